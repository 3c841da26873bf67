"""`wikic capture`: what an assistant's hook runs when a session stops or compacts. It copies the part of
the session file not copied before (whole lines only) into the vault's capture queue and returns.

It must never slow or break the session: no model, no palace, no vault lock, only the standard library and
wikic's state names (so the process starts fast); one capture at a time per session file (a lock file of
its own), so eight sessions ending at once never wait on each other and the same session's Stop and
PreCompact never copy a line twice. `wikic ingest` (or `wikic watch`) turns the queue into transcripts
later (`wikic.conversations.intake.drain_queue`).

A queued capture is `.wikic/capture/queue/<key>-<offset>.jsonl`: one JSON line saying where it comes
from (session id, file, byte range, hook event), then the session file's bytes, verbatim. An entry there
that is no capture (a folder, a file whose first line is not a capture's) is moved by the drain to
`.wikic/capture/quarantine/` (`quarantine`), where it waits for a person and stops nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING

from wikic.config_file import USER_CONFIG, user_config_path
from wikic.conversations.jsonio import TooDeep, parse
from wikic.errors import CaptureRefused, ConfigError
from wikic.vault.layout import STATE_DIR, find_vault_root, is_vault
from wikic.vault.paths import make_folder
from wikic.vault.state import CAPTURE, CAPTURE_QUARANTINE, CAPTURE_QUEUE, read_json, state_is_ours, state_path
from wikic.vault.write import sync_folder, temp_beside, write_bytes_atomic

# Where assistants keep their sessions, under the user's home; `[capture] allow` in the user's own config
# (`~/.config/wikic/config.toml`, which also names the hook's `[capture] vault`) adds more.
SESSION_FOLDERS = (".claude/projects", ".codex/sessions", ".gemini/tmp")
_BLOCK = 1 << 20


if TYPE_CHECKING:
    from typing import Any

    from wikic.config_file import ConfigFile


class Captured:
    """What one capture did (a plain class: dataclasses costs a hook's process more than its work)."""

    def __init__(self, vault: Path, transcript: str, copied: int, queued: str | None) -> None:
        self.vault, self.transcript = vault, transcript
        self.bytes = copied  # copied into the queue by this capture (0: nothing new yet)
        self.queued = queued  # the queue file, vault-relative


def capture(payload: bytes, *, vault: Path | None, env: Mapping[str, str], tool: str | None = None) -> Captured:
    """Queue the new whole lines of the session file a hook payload names. CaptureRefused says why not."""
    hook = _payload(payload)
    transcript = hook.get("transcript_path")
    if not isinstance(transcript, str) or not transcript.strip():
        raise CaptureRefused("the hook payload has no transcript_path: nothing to capture")
    root = find_vault(vault, env, hook.get("cwd"))
    session_file = Path(os.path.expanduser(transcript))
    real = Path(os.path.realpath(session_file))
    allowed = allowed_folders(root, env)
    if not any(real.is_relative_to(folder) for folder in allowed):
        raise CaptureRefused(f"{transcript}: outside the folders capture reads ({', '.join(str(f) for f in allowed)}); "
                             f"add its folder to [capture] allow in {user_config_path(env)} to capture it")
    if not real.is_file():
        raise CaptureRefused(f"{transcript}: no such session file")
    key = hashlib.sha256(str(real).encode("utf-8")).hexdigest()[:20]
    folder = state_path(root, CAPTURE)
    queue = state_path(root, CAPTURE_QUEUE)
    make_folder(root, queue)
    with _session_lock(folder / f"{key}.lock"):
        mark = folder / f"{key}.json"
        seen = read_json(mark)
        offset = seen["offset"] if isinstance(seen, dict) and isinstance(seen.get("offset"), int) else 0
        size = real.stat().st_size
        if size < offset:
            offset = 0  # the file was replaced by a shorter one: read it from the start
        end = _last_line_end(real, offset, size)
        if end <= offset:
            return Captured(root, str(real), 0, None)  # nothing new, or a line still being written
        header = {"session_id": hook.get("session_id") if isinstance(hook.get("session_id"), str) else None,
                  "transcript_path": str(real), "cwd": hook.get("cwd") if isinstance(hook.get("cwd"), str) else None,
                  "hook_event_name": hook.get("hook_event_name"), "tool": tool, "start": offset, "end": end}
        name = f"{key}-{offset:015d}.jsonl"
        _copy_range(queue / name, json.dumps(header, ensure_ascii=False).encode("utf-8") + b"\n", real, offset, end)
        # not fsynced: the queue file is on disk already, and a mark lost to a power cut only makes the next
        # capture copy these lines again, under the same queue name (the drain skips what it has read)
        write_bytes_atomic(mark, json.dumps({"path": str(real), "offset": end}).encode("utf-8"), root=root,
                           durable=False, private=True)
    return Captured(root, str(real), end - offset, f"{CAPTURE_QUEUE}/{name}")


def _payload(payload: bytes) -> dict[str, Any]:
    try:
        value = parse(payload.decode("utf-8-sig"))
    except ValueError as exc:  # not UTF-8, not JSON, or nested too deep
        what = f"JSON {exc}" if isinstance(exc, TooDeep) else "not JSON"
        raise CaptureRefused(f"the hook payload on standard input is {what}: nothing captured") from None
    if not isinstance(value, dict):
        raise CaptureRefused("the hook payload on standard input is not a JSON object: nothing captured")
    return value


def find_vault(vault: Path | None, env: Mapping[str, str], cwd: object) -> Path:
    """--vault, else WIKIC_VAULT, else `[capture] vault` in the user's config file, else the nearest vault
    at or above the session's working folder."""
    candidates: list[tuple[str, Path]] = []
    if vault is not None:
        candidates.append(("--vault", vault))
    elif env.get("WIKIC_VAULT"):
        candidates.append(("WIKIC_VAULT", Path(env["WIKIC_VAULT"])))
    else:
        configured = _user_config_vault(env)
        if configured is not None:
            candidates.append(configured)
        elif isinstance(cwd, str) and cwd:
            candidates.append(("the session's folder", find_vault_root(Path(cwd))))
    if not candidates:
        raise CaptureRefused("no vault: pass --vault DIR, set WIKIC_VAULT, or set [capture] vault in "
                             f"~/.config/{USER_CONFIG}")
    where, path = candidates[0]
    root = Path(os.path.expanduser(str(path))).resolve()
    if not is_vault(root):
        raise CaptureRefused(f"{root} (from {where}) is not a wikic vault: nothing captured")
    if not state_is_ours(root):
        raise CaptureRefused(f"{root}/.wikic is not a folder of the vault: nothing captured")
    return root


def _user_config(env: Mapping[str, str]) -> ConfigFile:
    from wikic.config_file import read_user_config

    try:
        return read_user_config(env)
    except ConfigError as exc:
        raise CaptureRefused(f"{exc.message}: nothing captured") from None


def _user_config_vault(env: Mapping[str, str]) -> tuple[str, Path] | None:
    config = _user_config(env)
    table = config.data.get("capture")
    value = table.get("vault") if isinstance(table, dict) else None
    if value is None:
        return None
    if not isinstance(value, str):
        raise CaptureRefused(f"{config.path}: [capture] vault must be a folder path (text)")
    return (str(config.path), Path(value))


def allowed_folders(root: Path, env: Mapping[str, str]) -> list[Path]:
    """The assistants' session folders under the home folder, and `[capture] allow` of the user's own config
    (never the vault's: a cloned vault would choose what its user's hook reads)."""
    from wikic.config_file import capture_allow

    home = Path(env.get("HOME") or Path.home())
    folders = [Path(os.path.realpath(home / sub)) for sub in SESSION_FOLDERS]
    extra = capture_allow(_user_config(env))
    for item in extra:
        if item.strip():
            folder = Path(os.path.expanduser(item))
            folders.append(Path(os.path.realpath(folder if folder.is_absolute() else root / folder)))
    return folders


def _last_line_end(path: Path, start: int, size: int) -> int:
    """The offset just past the last newline between `start` and `size` (`start` when there is none):
    a line still being written is left for the next capture."""
    with open(path, "rb") as fh:
        pos = size
        while pos > start:
            low = max(start, pos - 65536)
            fh.seek(low)
            block = fh.read(pos - low)
            found = block.rfind(b"\n")
            if found >= 0:
                return low + found + 1
            pos = low
    return start


def _copy_range(target: Path, header: bytes, source: Path, start: int, end: int) -> None:
    """`header` and bytes [start, end) of `source` into `target`, whole or not at all."""
    fd, tmp = temp_beside(target, private=True)
    try:
        with os.fdopen(fd, "wb") as out, open(source, "rb") as src:
            out.write(header)
            src.seek(start)
            left = end - start
            while left > 0:
                block = src.read(min(_BLOCK, left))
                if not block:
                    raise CaptureRefused(f"{source}: shrank while it was being read; try again")
                out.write(block)
                left -= len(block)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
    sync_folder(target.parent)


@contextmanager
def _session_lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # Windows: the portable lock (slower to import, still short)
        from filelock import FileLock

        with FileLock(str(path), timeout=30):
            yield
        return
    with open(path, "a") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def queued(root: Path) -> list[Path]:
    """The queue's files, oldest range first per session file."""
    folder = state_path(root, CAPTURE_QUEUE)
    return sorted(p for p in folder.glob("*.jsonl") if not p.name.startswith(".")) if folder.is_dir() else []


def quarantined(root: Path) -> list[Path]:
    """The entries the drain set aside, oldest name first."""
    folder = state_path(root, CAPTURE_QUARANTINE)
    return sorted(p for p in folder.iterdir() if not p.name.startswith(".")) if folder.is_dir() else []


def quarantine(root: Path, entry: Path) -> str:
    """Move a queue entry that is no capture to the quarantine (under a free name: the same queue name can
    come twice) and say where it went, vault-relative; or, when it cannot be moved, that it stays."""
    folder = state_path(root, CAPTURE_QUARANTINE)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        target, number = folder / entry.name, 1
        while os.path.lexists(target):
            number += 1
            target = folder / f"{entry.name}.{number}"
        os.rename(entry, target)
    except OSError as exc:
        return f"could not be set aside ({exc.strerror or exc}); it stays in the queue"
    sync_folder(folder)
    return f"set aside in {STATE_DIR}/{CAPTURE_QUARANTINE}/{target.name}"
