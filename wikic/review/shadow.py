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
import stat
from dataclasses import dataclass
from pathlib import Path

from wikic.vault.layout import IGNORED_DIRS, STATE_DIR
from wikic.vault.state import JOURNAL, PROPOSALS
from wikic.vault.tree import walk_tree

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


def vault_files(root: Path) -> list[str]:
    """The vault's files a shadow holds, vault-relative with '/': regular files only (a link, a named pipe or
    a device is no content a run writes), locks left out."""
    out: list[str] = []
    for folder, folders, files in walk_tree(root):
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        rel = "" if rel == "." else rel
        folders[:] = [name for name in folders if not _left_out(rel, name)]
        for name in files:
            if name.endswith(".lock") or (rel == STATE_DIR and name in _STATE_LEFT_OUT):
                continue
            path = os.path.join(folder, name)
            try:
                if not stat.S_ISREG(os.lstat(path).st_mode):
                    continue
            except OSError:
                continue
            out.append(f"{rel}/{name}" if rel else name)
    return sorted(out)


def make_shadow(root: Path, shadow: Path) -> list[str]:
    """Fill the empty folder `shadow` with the vault's files (`vault_files`), each linked where the file system
    can (else copied); returns them."""
    files = vault_files(root)
    for rel in files:
        target = shadow / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        source = root / rel
        try:
            os.link(source, target)
        except OSError:  # a file system without hard links (FAT, some network shares): a copy does the same
            shutil.copy2(source, target)
    return files


def changes(root: Path, shadow: Path, linked: list[str]) -> list[Change]:
    """What a run in `shadow` (made from `root` with the files `linked`) wrote: each file it made, replaced or
    removed, with the vault's bytes then. A file the run left alone is the vault's own file still, and is not
    read."""
    out: list[Change] = []
    now = set(vault_files(shadow))
    for rel in sorted(now | set(linked)):
        mine, theirs = shadow / rel, root / rel
        if rel not in now:
            before = _read(theirs)
            if before is not None:
                out.append(Change(rel, before, None))
            continue
        try:
            if rel in linked and os.path.samefile(mine, theirs):
                continue
        except OSError:
            pass
        after = mine.read_bytes()
        before = _read(theirs)
        if before != after:
            out.append(Change(rel, before, after))
    return out


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
