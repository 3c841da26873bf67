"""`wikic hooks install|uninstall claude-code|codex`: the assistant's hook configuration that runs
`wikic capture` when a session stops or compacts, and `wikic wake-up` when one starts.

Claude Code reads `.claude/settings.json` (the project's) or `~/.claude/settings.json` (the user's);
Codex reads `.codex/hooks.json` or `~/.codex/hooks.json`. Both take the same shape:

    {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "wikic capture ...", "timeout": 30}]}]}}

Installing merges into what the file holds: every other key and hook stays, in its order, and the file
keeps its indentation; a hook already there is not added twice. Uninstalling removes exactly the entries
install writes (matched by their command), then any event list or `hooks` table left empty.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic.errors import UsageError
from wikic.vault.write import write_bytes_atomic

TOOLS = ("claude-code", "codex")
_FILES = {"claude-code": (".claude", "settings.json"), "codex": (".codex", "hooks.json")}
TIMEOUT = 30  # seconds: capture takes a fraction of one; the assistant kills a hook that hangs


@dataclass
class HooksChange:
    path: Path
    added: list[str] = field(default_factory=list)  # "Event: command"
    removed: list[str] = field(default_factory=list)
    unchanged: bool = False


def settings_file(tool: str, *, user: bool, home: Path, project: Path) -> Path:
    if tool not in _FILES:
        raise UsageError(f"unknown assistant {tool!r}", hint=f"use one of: {', '.join(TOOLS)}")
    folder, name = _FILES[tool]
    return (home if user else project) / folder / name


def commands(tool: str, vault: Path) -> dict[str, str]:
    """Event -> the command wikic installs for it."""
    where = shlex.quote(str(vault))
    capture = f"wikic capture --vault {where} --tool {tool}"
    return {"Stop": capture, "PreCompact": capture, "SessionStart": f"wikic wake-up --vault {where}"}


def install(path: Path, tool: str, vault: Path) -> HooksChange:
    data, indent = _read(path)
    change = HooksChange(path)
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise UsageError(f"{path}: \"hooks\" is not an object", hint="fix the file by hand; nothing was changed")
    for event, command in commands(tool, vault).items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise UsageError(f"{path}: hooks.{event} is not a list", hint="fix the file by hand; nothing was changed")
        if any(command == entry.get("command") for entry in _entries(groups)):
            continue
        groups.append({"hooks": [{"type": "command", "command": command, "timeout": TIMEOUT}]})
        change.added.append(f"{event}: {command}")
    if not change.added:
        change.unchanged = True
        return change
    _write(path, data, indent)
    return change


def uninstall(path: Path, tool: str, vault: Path) -> HooksChange:
    change = HooksChange(path)
    if not path.exists():
        change.unchanged = True
        return change
    data, indent = _read(path)
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        change.unchanged = True
        return change
    for event, command in commands(tool, vault).items():
        groups = hooks.get(event)
        if not isinstance(groups, list):
            continue
        for group in list(groups):
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list):
                continue
            kept = [e for e in inner if not (isinstance(e, dict) and e.get("command") == command)]
            if len(kept) != len(inner):
                change.removed.append(f"{event}: {command}")
                if kept:
                    group["hooks"] = kept
                else:
                    groups.remove(group)
        if not groups:
            del hooks[event]
    if not hooks:
        del data["hooks"]
    if not change.removed:
        change.unchanged = True
        return change
    _write(path, data, indent)
    return change


def _entries(groups: list[Any]) -> list[dict[str, Any]]:
    return [e for g in groups if isinstance(g, dict) and isinstance(g.get("hooks"), list)
            for e in g["hooks"] if isinstance(e, dict)]


def _read(path: Path) -> tuple[dict[str, Any], int | str]:
    """The file's JSON object (empty when there is no file) and its indentation, to write it back alike."""
    if not path.exists():
        return {}, 2
    try:
        text = path.read_text(encoding="utf-8-sig")
        data = json.loads(text) if text.strip() else {}
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{path}: not a JSON file wikic can merge into ({exc})",
                         hint="fix or move the file; it was not changed") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path}: not a JSON object", hint="fix or move the file; it was not changed")
    found = re.search(r"^\{\s*\n([ \t]+)\"", text)
    return data, (found.group(1) if found and "\t" in found.group(1) else len(found.group(1)) if found else 2)


def _write(path: Path, data: dict[str, Any], indent: int | str) -> None:
    # the assistant's own settings file, outside any vault
    write_bytes_atomic(path, (json.dumps(data, indent=indent, ensure_ascii=False) + "\n").encode("utf-8"), root=None)
