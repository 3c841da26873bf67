"""Writing files into a vault: atomic (temp file + rename), never outside the vault, never over a file
that `write_new` or `create_exclusive` finds already there. Every file wikic writes whole goes through
here: pages, index.md, log.md, state under `.wikic/` and its caches, and raw captures."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from wikic.errors import VaultError


def inside(root: Path, path: Path) -> bool:
    """True when `path` (resolved, symlinks followed) lies inside `root`."""
    try:
        Path(os.path.realpath(path)).relative_to(os.path.realpath(root))
        return True
    except ValueError:
        return False


def write_atomic(path: Path, text: str, *, root: Path | None = None) -> None:
    """Replace `path` with `text` in one step: readers see the old file or the new one, never half."""
    if root is not None and not inside(root, path.parent if path.parent.exists() else root):
        raise VaultError(f"refusing to write outside the vault: {path}")
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Write via a temporary file in the same folder, `os.replace`, then fsync the folder. `durable=False`
    skips the fsyncs, for caches: a cache lost to a power cut is rebuilt, never half-read."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temp_copy(path, data, durable)
    try:
        os.replace(tmp, path)
    except BaseException:
        _remove(tmp)
        raise
    if durable:
        sync_folder(path.parent)


def create_exclusive(path: Path, data: bytes) -> None:
    """Create `path` holding `data` in one step, never replacing a file: a hard link to the finished temp
    file fails if the name is taken (FileExistsError). A file already holding exactly `data` is kept: a
    writer killed after creating it and before recording it left it, and it is this write's own."""
    if path.is_file() and path.read_bytes() == data:
        return
    tmp = _temp_copy(path, data, durable=True)
    try:
        os.link(tmp, path)
    finally:
        _remove(tmp)


def copy_exclusive(path: Path, source: Path, block: int = 1 << 20) -> None:
    """`create_exclusive` for a file too large to hold in memory (a whole account's export): streamed
    into a temporary file beside `path`, fsynced, then hard-linked into place. A file already at `path`
    is kept (its name is its content's hash, so it holds the same bytes)."""
    if path.is_file():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = temp_beside(path)
    try:
        with os.fdopen(fd, "wb") as out, open(source, "rb") as src:
            while chunk := src.read(block):
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        with contextlib.suppress(FileExistsError):  # another process kept the same export meanwhile
            os.link(tmp, path)
    finally:
        _remove(tmp)


def temp_beside(path: Path) -> tuple[int, str]:
    """(open descriptor, name) of a new hidden temporary file in `path`'s folder, as tempfile.mkstemp makes
    one (created exclusively, mode 0600) without importing tempfile: `wikic capture` writes through here
    and must start fast."""
    while True:
        tmp = os.path.join(path.parent, f".{path.name}.{os.getpid()}-{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600), tmp
        except FileExistsError:
            continue


def _temp_copy(path: Path, data: bytes, durable: bool) -> str:
    """A temporary file beside `path` holding `data` (fsynced when `durable`)."""
    fd, tmp = temp_beside(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
    except BaseException:
        _remove(tmp)
        raise
    return tmp


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def sync_folder(folder: Path) -> None:
    """Make a rename in `folder` survive power loss: the new name lives in the folder's own blocks, which
    the file's fsync does not write. Writes that must happen in order (the journal before the pages it
    lists) rely on it. Folders cannot be opened for fsync on Windows; there the rename is left to NTFS."""
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_files(paths: list[Path]) -> None:
    """Make files written with `durable=False` survive power loss after all: each file's data, then each
    of their folders once (the renames). A file removed meanwhile needs nothing."""
    folders: dict[Path, None] = {}
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY if os.name == "posix" else os.O_RDWR)
        except FileNotFoundError:
            continue
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        folders[path.parent] = None
    for folder in folders:
        sync_folder(folder)


def write_new(path: Path, text: str) -> bool:
    """Create `path` with `text` unless something is already there. Returns whether it wrote."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    except OSError as exc:
        raise VaultError(f"cannot create {path}: {exc.strerror}") from exc
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
    return True
