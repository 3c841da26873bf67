"""A vault's shadow: the same files, linked rather than copied, where a run can write what it would write.

A review run is the run itself (capture, the model, anchoring, composing, the hubs, index.md and log.md,
the ledgers), made in a shadow of the vault instead of the vault: what it writes there, and nothing else, is
the proposal. Every file is a hard link to the vault's (a copy where the file system has none), which costs
no space and a few microseconds a file; wikic replaces a file whole (a new file, then a rename: see
`vault/write.py`), so a write in the shadow gives the shadow a file of its own and never touches the
vault's. What is not the wiki's content stays out: the palace (a database written in place), locks, an
unfinished journal, other proposals, and the folders of other tools (`.git`, `.obsidian`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from wikic.vault.layout import IGNORED_DIRS, STATE_DIR
from wikic.vault.state import JOURNAL, PROPOSALS

# under .wikic/: what a run in the shadow neither reads as content nor may share with the vault
_STATE_LEFT_OUT = frozenset({"palace", PROPOSALS, JOURNAL})


@dataclass(frozen=True)
class Change:
    """One file a run in the shadow wrote or removed: its vault-relative path, its bytes before (None: the
    run made it) and after (None: the run removed it)."""

    path: str
    before: bytes | None
    after: bytes | None

    @property
    def before_sha(self) -> str | None:
        return sha(self.before)


def sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def _left_out(rel_folder: str, name: str) -> bool:
    """Whether the folder `name` inside `rel_folder` ("" for the vault's root) stays out of the shadow."""
    if rel_folder == "":
        return name in IGNORED_DIRS and name != STATE_DIR
    if rel_folder == STATE_DIR:
        return name in _STATE_LEFT_OUT
    return False


def vault_files(root: Path) -> dict[str, int]:
    """The vault's files a shadow holds, vault-relative with '/', each with its inode: regular files only (a
    link, a named pipe or a device is no content a run writes), locks left out. One `scandir` a folder, no
    `stat` a file: what a file is and its inode come with the listing."""
    out: dict[str, int] = {}
    pending = [""]
    while pending:
        rel = pending.pop()
        try:
            with os.scandir(os.path.join(root, rel) if rel else root) as entries:
                listed = list(entries)
        except OSError:
            continue
        for entry in listed:
            name = entry.name
            path = f"{rel}/{name}" if rel else name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not _left_out(rel, name):
                        pending.append(path)
                    continue
                if not entry.is_file(follow_symlinks=False):
                    continue
                if name.endswith(".lock") or (rel == STATE_DIR and name in _STATE_LEFT_OUT):
                    continue
                out[path] = entry.inode()
            except OSError:
                continue
    return out


def make_shadow(root: Path, shadow: Path) -> dict[str, int]:
    """Fill the empty folder `shadow` with the vault's files (`vault_files`), each linked where the file system
    can (else copied); returns them, each with its inode in the shadow."""
    files = vault_files(root)
    made: set[str] = set()
    linked: dict[str, int] = {}
    for rel in sorted(files):
        folder = rel.rpartition("/")[0]
        if folder not in made:
            (shadow / folder).mkdir(parents=True, exist_ok=True)
            made.add(folder)
        try:
            os.link(root / rel, shadow / rel)
            linked[rel] = files[rel]
        except OSError:  # a file system without hard links (FAT, some network shares): a copy does the same
            shutil.copy2(root / rel, shadow / rel)
            linked[rel] = os.stat(shadow / rel).st_ino
    return linked


def changes(root: Path, shadow: Path, linked: dict[str, int]) -> list[Change]:
    """What a run in `shadow` (made from `root` with the files `linked`) wrote: each file it made, replaced or
    removed, with the vault's bytes then. A file the run left alone is the file it was linked as (the same
    inode: wikic replaces a file whole, so a write gives it a new one), and is not read."""
    out: list[Change] = []
    now = vault_files(shadow)
    for rel in sorted(now.keys() | linked.keys()):
        if rel in now and linked.get(rel) == now[rel]:
            continue
        before = _read(root / rel)
        if rel not in now:
            if before is not None:
                out.append(Change(rel, before, None))
            continue
        after = (shadow / rel).read_bytes()
        if before != after:
            out.append(Change(rel, before, after))
    return out


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
