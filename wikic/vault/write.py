"""Writing files into a vault: atomic (temp file + rename), never outside the vault, never over a file
that `write_new` or `create_exclusive` finds already there. Every file wikic writes whole goes through
here: pages, index.md, log.md, state under `.wikic/` and its caches, and raw captures.

Each function takes the `root` its file must stay inside (`paths.confined`: no folder on the way may be a
link leading out), or `root=None` for a file of the user's own outside any vault (an assistant's settings).
A file gets the mode a new file of a text editor gets (0666 narrowed by the umask), so a vault shared through
git, a sync tool or a group folder reads as usual; `private=True` keeps a file to its
owner (0600): model replies and captured sessions.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from wikic.errors import VaultError
from wikic.vault.layout import RAW_DIR
from wikic.vault.paths import confined, make_folder, within

SHARED_MODE = 0o666  # narrowed by the umask, as open() does
PRIVATE_MODE = 0o600
# folders whose files are scratch (a review's shadow of a vault, thrown away once read): written atomically
# like any file, but never synced to the disk, since a power cut loses nothing a person keeps
_SCRATCH: set[str] = set()


@contextlib.contextmanager
def scratch(folder: Path) -> Iterator[None]:
    """While the block runs, files written under `folder` skip the fsyncs."""
    key = os.path.join(os.path.realpath(folder), "")
    _SCRATCH.add(key)
    try:
        yield
    finally:
        _SCRATCH.discard(key)


def _durable(path: Path, durable: bool) -> bool:
    if not durable or not _SCRATCH:
        return durable
    real = os.path.realpath(path)
    return not any(real.startswith(key) for key in _SCRATCH)


def inside(root: Path, path: Path) -> bool:
    """True when `path` (resolved, symlinks followed) lies inside `root`."""
    return within(os.path.realpath(root), os.path.realpath(path))


def _folder_for(path: Path, root: Path | None) -> None:
    """Make `path`'s folder, refusing one that leads outside `root` (when given)."""
    if root is None:
        path.parent.mkdir(parents=True, exist_ok=True)
    else:
        make_folder(root, path.parent)


def write_atomic(path: Path, text: str, *, root: Path | None) -> None:
    """Replace `path` with `text` in one step: readers see the old file or the new one, never half."""
    write_bytes_atomic(path, text.encode("utf-8"), root=root)


def write_bytes_atomic(
    path: Path, data: bytes, *, root: Path | None, durable: bool = True, private: bool = False
) -> None:
    """Write via a temporary file in the same folder, `os.replace`, then fsync the folder. `durable=False`
    skips the fsyncs, for caches: a cache lost to a power cut is rebuilt, never half-read."""
    _folder_for(path, root)
    durable = _durable(path, durable)
    tmp = _temp_copy(path, data, durable, private=private)
    try:
        os.replace(tmp, path)
    except BaseException as exc:
        _remove(tmp)
        if isinstance(exc, IsADirectoryError):  # a synced or cloned vault may hold a folder by a file's name
            raise VaultError(f"cannot write {_shown(path, root)}: it is a folder",
                             hint=f"move the folder {path} away (wikic keeps a file of that name there), then "
                                  "run the command again") from None
        _name(exc, path)
        raise
    if durable:
        sync_folder(path.parent)


def create_exclusive(path: Path, data: bytes, *, root: Path | None) -> None:
    """Create `path` holding `data` in one step, never replacing a file: a hard link to the finished temp
    file fails if the name is taken (FileExistsError). A file already holding exactly `data` is kept: a
    writer killed after creating it and before recording it left it, and it is this write's own."""
    _folder_for(path, root)
    if path.is_file() and not path.is_symlink() and path.read_bytes() == data:
        return
    tmp = _temp_copy(path, data, durable=_durable(path, True))
    try:
        os.link(tmp, path)
    finally:
        _remove(tmp)


def copy_exclusive(path: Path, source: Path, *, root: Path | None, block: int = 1 << 20) -> None:
    """`create_exclusive` for a file too large to hold in memory (a whole account's export): streamed
    into a temporary file beside `path`, fsynced, then hard-linked into place. A file already at `path`
    is kept (its name is its content's hash, so it holds the same bytes)."""
    _folder_for(path, root)
    if path.is_file():
        return
    fd, tmp = temp_beside(path, private=False)
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


def temp_beside(path: Path, *, private: bool) -> tuple[int, str]:
    """(open descriptor, name) of a new hidden temporary file in `path`'s folder, as tempfile.mkstemp makes
    one (created exclusively) without importing tempfile: `wikic capture` writes through here and must
    start fast. Its name (`.<name>.<pid>-<random>.tmp`) is what `stale_temp_files` recognises."""
    mode = PRIVATE_MODE if private else SHARED_MODE
    while True:
        tmp = os.path.join(path.parent, f".{path.name}.{os.getpid()}-{os.urandom(6).hex()}{TEMP_SUFFIX}")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), mode), tmp
        except FileExistsError:
            continue


TEMP_SUFFIX = ".tmp"
STALE_AFTER = 24 * 3600.0  # seconds: a temporary file this old is nobody's, whichever process made it


def remove_stale_temp_files(root: Path) -> list[str]:
    """Remove the temporary files a killed writer left in the vault's visible folders (the root, the
    folders at its top, raw/'s): those of a process no longer running, or older than a day (a process of
    another machine sharing the folder). Returns the vault paths removed. Call it as the sole writer."""
    import re

    pattern = re.compile(rf"^\..+\.(\d+)-[0-9a-f]{{12}}{re.escape(TEMP_SUFFIX)}$")
    top: list[os.DirEntry[str]] = []  # the root's listing, read once: its folders, and its own files below
    with contextlib.suppress(OSError):
        top = list(os.scandir(root))
    folders = [Path(e.path) for e in top if e.is_dir(follow_symlinks=False) and e.name[0] != "."]
    with contextlib.suppress(OSError):
        folders += [Path(e.path) for e in os.scandir(Path(root) / RAW_DIR) if e.is_dir(follow_symlinks=False)]
    removed: list[str] = []
    for folder in [None, *folders]:
        try:
            listing = top if folder is None else list(os.scandir(folder))
            entries = [e for e in listing if e.name.startswith(".") and e.name.endswith(TEMP_SUFFIX)]
        except OSError:
            continue
        for entry in entries:
            found = pattern.match(entry.name)
            if found and entry.is_file(follow_symlinks=False) and _abandoned(entry, int(found.group(1))):
                _remove(entry.path)
                removed.append(Path(entry.path).relative_to(root).as_posix())
    return removed


def _abandoned(entry: os.DirEntry[str], pid: int) -> bool:
    import time

    try:
        if time.time() - entry.stat(follow_symlinks=False).st_mtime > STALE_AFTER:
            return True
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):
        return False  # alive (or not ours to signal): maybe still writing
    return False


def _temp_copy(path: Path, data: bytes, durable: bool, *, private: bool = False) -> str:
    """A temporary file beside `path` holding `data` (fsynced when `durable`)."""
    fd, tmp = temp_beside(path, private=private)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
    except BaseException as exc:
        _remove(tmp)
        _name(exc, path)
        raise
    return tmp


def _shown(path: Path, root: Path | None) -> str:
    """`path` as a message names it: vault-relative where it lies in the vault at `root`."""
    try:
        return path.relative_to(root).as_posix() if root is not None else str(path)
    except ValueError:
        return str(path)


def _name(exc: BaseException, path: Path) -> None:
    """Make `exc` name the file it was about when it does not say (a full disk fails a flush, which names
    nothing): the person must learn where."""
    if isinstance(exc, OSError) and exc.errno is not None and exc.filename is None:
        exc.filename = str(path)


def remove_file(path: Path, *, root: Path) -> None:
    """Remove the file `path` of the vault at `root` (a page a run no longer keeps), never through a folder that
    leads outside the vault; the folder is synced, so the removal is as durable as a write."""
    confined(root, path, leaf=False)
    try:
        os.unlink(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        _name(exc, path)
        raise
    if _durable(path, True):
        sync_folder(path.parent)


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


def write_new(path: Path, text: str, *, root: Path | None) -> bool:
    """Create `path` with `text` unless something is already there. Returns whether it wrote."""
    _folder_for(path, root)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, SHARED_MODE)
    except FileExistsError:
        return False
    except OSError as exc:
        raise VaultError(f"cannot create {path}: {exc.strerror}") from exc
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
    return True
