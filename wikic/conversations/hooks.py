"""`wikic hooks install|uninstall claude-code|codex`: the assistant's hook configuration that runs
`wikic capture` when a session stops or compacts, and `wikic wake-up` when one starts.

Claude Code reads `.claude/settings.json` (the project's) or `~/.claude/settings.json` (the user's);
Codex reads `.codex/hooks.json` or `~/.codex/hooks.json`. Both take the same shape:

    {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/…/bin/wikic capture ...", "timeout": 30}]}]}}

The command names this install's `wikic` by its absolute path (`program`): the assistant runs hooks with
its own PATH, which seldom holds the virtualenv wikic was installed in, and a hook that is not found fails
without a word. Installing merges into what the file holds: every other key and hook stays, in its order,
and the file keeps its indentation; a hook already there is not added twice, and one an earlier install
wrote for the same vault (a bare `wikic`, another install's path) is replaced. Uninstalling removes exactly
the entries install writes (matched by their arguments, whichever `wikic` they run), then any event list
or `hooks` table left empty. A settings file that is a symbolic link is written through (its target
changes, the link stays), as editors do.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic.conversations.jsonio import parse
from wikic.errors import UsageError
from wikic.vault.write import write_bytes_atomic

TOOLS = ("claude-code", "codex")
_FILES = {"claude-code": (".claude", "settings.json"), "codex": (".codex", "hooks.json")}
TIMEOUT = 30  # seconds: capture takes a fraction of one; the assistant kills a hook that hangs
_SCRIPTS = ("wikic", "wikic.exe")


@dataclass
class HooksChange:
    path: Path
    added: list[str] = field(default_factory=list)  # "Event: command"
    removed: list[str] = field(default_factory=list)
    unchanged: bool = False
    warnings: list[str] = field(default_factory=list)  # what may keep the hooks from running


def settings_file(tool: str, *, user: bool, home: Path, project: Path) -> Path:
    if tool not in _FILES:
        raise UsageError(f"unknown assistant {tool!r}", hint=f"use one of: {', '.join(TOOLS)}")
    folder, name = _FILES[tool]
    return (home if user else project) / folder / name


def program() -> str:
    """How a hook runs this wikic, whatever its PATH: the absolute path of the `wikic` script that is
    running (or, under `python -m wikic`, the one installed beside this interpreter), else this interpreter
    by its absolute path with `-m wikic`."""
    candidates = []
    if sys.argv and Path(sys.argv[0]).name in _SCRIPTS:
        candidates.append(Path(sys.argv[0]))
    interpreter = Path(sys.executable)
    candidates += [interpreter.parent / name for name in _SCRIPTS]
    for script in candidates:
        if script.is_file() and os.access(script, os.X_OK):
            return shlex.quote(os.path.abspath(script))
    return f"{shlex.quote(os.path.abspath(interpreter))} -m wikic"


def commands(tool: str, vault: Path, wikic: str = "wikic") -> dict[str, str]:
    """Event -> the command wikic installs for it (`wikic`: how the command runs wikic, see `program`)."""
    where = shlex.quote(str(vault))
    capture = f"{wikic} capture --vault {where} --tool {tool}"
    return {"Stop": capture, "PreCompact": capture, "SessionStart": f"{wikic} wake-up --vault {where}"}


def _ours(event: str, tool: str, vault: Path, *, but: str | None = None) -> Callable[[Any], bool]:
    """Whether a hook entry is one an install (of any version, from any place) wrote for `event`: its
    arguments are this vault's (and tool's), and what it runs is a `wikic` script or `python -m wikic`;
    other than the command `but`."""
    wanted = shlex.split(commands(tool, vault)[event])[1:]

    def match(entry: Any) -> bool:
        command = entry.get("command") if isinstance(entry, dict) else None
        if command == but:
            return False
        try:
            words = shlex.split(command) if isinstance(command, str) else []
        except ValueError:  # unbalanced quotes: someone else's command
            return False
        if len(words) <= len(wanted) or words[-len(wanted):] != wanted:
            return False
        runs = words[: -len(wanted)]
        return (len(runs) == 1 and Path(runs[0]).name in _SCRIPTS) or (len(runs) == 3 and runs[1:] == ["-m", "wikic"])

    return match


def install(path: Path, tool: str, vault: Path, wikic: str | None = None) -> HooksChange:
    """Add the hooks to the settings file at `path`; `wikic` is how they run wikic (default: `program()`)."""
    wikic = wikic or program()
    target = _through_links(path)
    data, indent = _read(target)
    change = HooksChange(path, warnings=_warnings(wikic))
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise UsageError(f"{path}: \"hooks\" is not an object", hint="fix the file by hand; nothing was changed")
    for event, command in commands(tool, vault, wikic).items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise UsageError(f"{path}: hooks.{event} is not a list", hint="fix the file by hand; nothing was changed")
        # what an earlier install wrote for this vault with another `wikic` (a bare one, another place's)
        change.removed += [f"{event}: {old}" for old in _remove(groups, _ours(event, tool, vault, but=command))]
        if not any(command == entry.get("command") for entry in _entries(groups)):
            groups.append({"hooks": [{"type": "command", "command": command, "timeout": TIMEOUT}]})
            change.added.append(f"{event}: {command}")
    if not change.added and not change.removed:
        change.unchanged = True
        return change
    _write(target, data, indent)
    return change


def uninstall(path: Path, tool: str, vault: Path) -> HooksChange:
    change = HooksChange(path)
    target = _through_links(path)
    if not target.exists():
        change.unchanged = True
        return change
    data, indent = _read(target)
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        change.unchanged = True
        return change
    for event in commands(tool, vault):
        groups = hooks.get(event)
        if not isinstance(groups, list):
            continue
        change.removed += [f"{event}: {old}" for old in _remove(groups, _ours(event, tool, vault))]
        if not groups:
            del hooks[event]
    if not hooks:
        del data["hooks"]
    if not change.removed:
        change.unchanged = True
        return change
    _write(target, data, indent)
    return change


def _remove(groups: list[Any], ours: Callable[[Any], bool]) -> list[str]:
    """Take the entries `ours` matches out of an event's groups (and a group they leave empty); their
    commands."""
    removed = []
    for group in list(groups):
        inner = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(inner, list):
            continue
        kept = [e for e in inner if not ours(e)]
        if len(kept) != len(inner):
            removed += [str(e.get("command")) for e in inner if ours(e)]
            if kept:
                group["hooks"] = kept
            else:
                groups.remove(group)
    return removed


def _entries(groups: list[Any]) -> list[dict[str, Any]]:
    return [e for g in groups if isinstance(g, dict) and isinstance(g.get("hooks"), list)
            for e in g["hooks"] if isinstance(e, dict)]


def _warnings(wikic: str) -> list[str]:
    """A hook that runs `python -m wikic` works only if that interpreter imports wikic by itself (no
    PYTHONPATH, from any folder): asked once, here, rather than found out by a silent hook."""
    if not wikic.endswith(" -m wikic"):
        return []
    interpreter = shlex.split(wikic)[0]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    try:
        found = subprocess.run([interpreter, "-c", "import wikic"], capture_output=True, env=env, cwd=os.sep,
                               timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        found = False
    if found:
        return []
    return [f"the hooks run `{wikic}`, but that interpreter does not find wikic by itself (it runs here from "
            "a source folder or PYTHONPATH): install wikic (pip install), then run `wikic hooks install` again"]


def _through_links(path: Path) -> Path:
    """The file to read and write: `path`, or the file a symbolic link there leads to (written in place,
    the link kept). A link whose target's folder does not exist is refused: nothing is created through it."""
    if not path.is_symlink():
        return path
    target = Path(os.path.realpath(path))
    if not target.parent.is_dir():
        raise UsageError(f"{path}: a symbolic link to {target}, whose folder does not exist",
                         hint="fix or remove the link; nothing was changed")
    return target


def _read(path: Path) -> tuple[dict[str, Any], int | str]:
    """The file's JSON object (empty when there is no file) and its indentation, to write it back alike."""
    if not path.exists():
        return {}, 2
    try:
        text = path.read_text(encoding="utf-8-sig")
        data = parse(text) if text.strip() else {}
    except (OSError, ValueError) as exc:  # not UTF-8, not JSON, or nested deeper than wikic reads
        raise UsageError(f"{path}: not a JSON file wikic can merge into ({exc})",
                         hint="fix or move the file; it was not changed") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path}: not a JSON object", hint="fix or move the file; it was not changed")
    found = re.search(r"^\{\s*\n([ \t]+)\"", text)
    return data, (found.group(1) if found and "\t" in found.group(1) else len(found.group(1)) if found else 2)


def _write(path: Path, data: dict[str, Any], indent: int | str) -> None:
    # the assistant's own settings file, outside any vault
    write_bytes_atomic(path, (json.dumps(data, indent=indent, ensure_ascii=False) + "\n").encode("utf-8"), root=None)
