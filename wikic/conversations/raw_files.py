"""Where conversations land in the vault: the export kept once under a content-addressed name, and each
conversation's transcript parts under names made from its date, tool and title.

    raw/transcripts/2026-11-30-claude-code-use-uv-for-every-python-project.md          part 1
    raw/transcripts/2026-11-30-claude-code-use-uv-for-every-python-project-part-2.md   what it said since
    raw/transcripts/exports/5d0c…e1.jsonl                                              the session as read
    raw/transcripts/exports/8a61…07.zip                                                a folder export, zipped

Files are created once and never rewritten (raw/ is immutable). A name another conversation already has
gets the conversation id's first characters, then a number: the same conversation always gets the same
name, whatever order it is read in.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import zipfile
from datetime import UTC, datetime
from pathlib import Path

from wikic.conversations.sources import FolderTree
from wikic.vault.formats.set_aside import sha256_of
from wikic.vault.formats.transcript import Conversation
from wikic.vault.layout import EXPORTS_DIR, RAW_DIR
from wikic.vault.paths import make_folder
from wikic.vault.slug import SOURCE, slugify
from wikic.vault.write import copy_exclusive, create_exclusive, inside

TRANSCRIPTS_DIR = f"{RAW_DIR}/transcripts"
_KEPT_SUFFIXES = (".json", ".jsonl", ".zip", ".txt", ".md", ".log")


def export_sha256(path: Path) -> str:
    """A file's sha256; a folder's: of each file's relative name and sha256, in order."""
    if not path.is_dir():
        return sha256_of(path)
    digest = hashlib.sha256()
    tree = FolderTree(path)
    for name in tree.names():
        digest.update(f"{name}\0{sha256_of(path / name)}\n".encode())
    return digest.hexdigest()


def keep_export(root: Path, path: Path, sha: str) -> str:
    """Keep the export verbatim, once, and return its vault path. One already in raw/ stays where it is."""
    if inside(root / RAW_DIR, path):
        return Path(os.path.realpath(path)).relative_to(os.path.realpath(root)).as_posix()
    suffix = ".zip" if path.is_dir() else path.suffix.lower() if path.suffix.lower() in _KEPT_SUFFIXES else ""
    rel = f"{EXPORTS_DIR}/{sha[:32]}{suffix}"
    target = root / rel
    if path.is_dir():
        _zip_folder(root, target, path)
    else:
        copy_exclusive(target, path, root=root)
    return rel


def _zip_folder(root: Path, target: Path, folder: Path) -> None:
    """A folder export (an unpacked Slack export) kept as one zip of its files, byte for byte: its own file
    names (`dev: ops?/2026-11-30.json`) never become names in the vault, where Obsidian or Windows could
    not hold them. Deterministic (sorted names, a fixed date), so the same folder is the same zip."""
    if target.is_file():
        return
    make_folder(root, target.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
            for name in FolderTree(folder).names():
                info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                with open(folder / name, "rb") as src, archive.open(info, "w") as out:
                    shutil.copyfileobj(src, out, 1 << 20)
        copy_exclusive(target, Path(tmp), root=root)
    finally:
        os.unlink(tmp)


def keep_bytes(root: Path, data: bytes, suffix: str) -> str:
    """Keep captured bytes (a session's new lines) as an export of their own."""
    rel = f"{EXPORTS_DIR}/{hashlib.sha256(data).hexdigest()[:32]}{suffix}"
    create_exclusive(root / rel, data, root=root)
    return rel


def conversation_date(conversation: Conversation, today: datetime | None = None) -> str:
    when = conversation.started or next((t.when for t in conversation.turns if t.when), None)
    return (when or today or datetime.now(UTC)).astimezone(UTC).strftime("%Y-%m-%d")


def choose_stem(
    root: Path, conversation: Conversation, text: str, stems_in_use: set[str], today: datetime | None = None
) -> str:
    """The transcript name (without `.md`) for a conversation brought in for the first time: free in the
    ledger (`stems_in_use`) and on disk, unless the file there already holds exactly `text` (left by a run
    killed before it recorded it)."""
    title = slugify(conversation.title, max_length=60, rules=SOURCE)
    base = f"{conversation_date(conversation, today)}-{conversation.tool}-{title}"
    candidates = [base, f"{base}-{slugify(conversation.id, max_length=8, rules=SOURCE)}"]
    number = 2
    while True:
        for stem in candidates:
            path = root / TRANSCRIPTS_DIR / f"{stem}.md"
            if stem not in stems_in_use and (not path.exists() or _holds(path, text)):
                return stem
        candidates = [f"{base}-{number}"]
        number += 1


def part_path(stem: str, part: int) -> str:
    return f"{TRANSCRIPTS_DIR}/{stem}.md" if part == 1 else f"{TRANSCRIPTS_DIR}/{stem}-part-{part}.md"


def write_part(root: Path, rel: str, text: str) -> None:
    create_exclusive(root / rel, text.encode("utf-8"), root=root)


def _holds(path: Path, text: str) -> bool:
    try:
        return path.read_bytes() == text.encode("utf-8")
    except OSError:
        return False
