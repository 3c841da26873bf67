"""The one check that keeps wikic inside its vault: every path it writes (and the folders it reads as the
vault's own: `.wikic/`, `raw/`, the page folders, the palace) is refused when it leads outside the vault
through a symbolic link, with an error naming the link and where it leads; and the one reader of a vault's
own files (`read_inside`), which never opens one that leads out, nor one that is no regular file.

A vault is often a clone or a synced folder, so its own files may be hostile: `.wikic -> /elsewhere`,
`raw/articles -> ~/Documents` or a page folder linked out would otherwise make a capture, a cache or the
palace land outside it, and `identity.md -> ~/.aws/credentials` or `SCHEMA.md -> ~/notes/private.md` would
hand another file's text to the model or copy it into the vault. Links that stay inside the vault are
followed as usual.
"""

from __future__ import annotations

import errno
import mmap
import os
import stat
from pathlib import Path

from wikic.errors import VaultError

_HINT = "replace the link with a real folder of the vault (or remove it), then run the command again"
_FILE_HINT = ("replace the link with a real file of the vault (a copy, if it is yours) or remove it, then run the "
              "command again")


def within(real_root: str, real_path: str) -> bool:
    """`real_path` is `real_root` or below it (both already resolved)."""
    return real_path == real_root or real_path.startswith(real_root.rstrip(os.sep) + os.sep)


def inside_lexically(root: Path, path: Path) -> bool:
    """`path` is written as a place under `root` (`..` resolved, links not followed)."""
    try:
        Path(os.path.abspath(path)).relative_to(os.path.abspath(root))
    except ValueError:
        return False
    return True


def escape(root: Path, path: Path, *, leaf: bool = True) -> tuple[str, str] | None:
    """(the vault-relative part of `path` that leads out, where it leads) when `path` is not inside `root`
    once symbolic links are followed; None when it is. Parts that do not exist yet cannot lead anywhere.
    `leaf=False` checks the folders on the way only: a write replaces a link at the end of the path (a
    rename never follows one), so only the folders decide where the file lands."""
    real_root = os.path.realpath(root)
    try:
        rel = Path(os.path.abspath(path)).relative_to(os.path.abspath(root))
    except ValueError:
        return os.fspath(path), os.path.realpath(path)
    parts = rel.parts if leaf else rel.parts[:-1]
    current = os.path.abspath(root)
    for n, part in enumerate(parts):
        current = os.path.join(current, part)
        if os.path.islink(current):
            target = os.path.realpath(current)
        elif os.path.lexists(current):
            continue
        else:
            return None  # the rest is created by wikic, as real folders
        if not within(real_root, target):
            return "/".join(parts[: n + 1]), target
    return None


def confined(root: Path, path: Path, *, leaf: bool = True, verb: str = "use") -> Path:
    """`path`, or VaultError when it leads outside the vault at `root` through a symbolic link ("refusing to
    `verb` ...")."""
    found = escape(root, path, leaf=leaf)
    if found is not None:
        raise _leads_out(verb, *found)
    return path


def _leads_out(verb: str, part: str, target: str) -> VaultError:
    hint = _FILE_HINT if os.path.isfile(target) else _HINT
    return VaultError(f"refusing to {verb} {part}: it leads outside the vault (to {target})", hint=hint)


def read_inside(root: Path, path: Path) -> bytes | None:
    """The bytes of the file `path` of the vault at `root`, or None when there is none: the one reader of a
    vault's own files (the root files, pages, state). VaultError when `path`, or a folder on its way, is a
    symbolic link leading outside the vault ("refusing to read SCHEMA.md: it leads outside the vault (to
    ...)"); an OSError, as reading a folder raises, when it is a folder, a named pipe or a device (never
    read: a named pipe would block the reader until something writes into it)."""
    fd = _open_inside(root, path)
    if fd is None:
        return None
    try:
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read()
    finally:
        os.close(fd)


def map_inside(root: Path, path: Path) -> mmap.mmap | bytes | None:
    """`read_inside`, the file mapped rather than read (b"" for an empty one): for a big file of which a reader
    wants a few parts. The file must be replaced, never rewritten in place, while the map is read (as
    `.wikic/`'s caches are: `state.write_cache`)."""
    fd = _open_inside(root, path)
    if fd is None:
        return None
    try:
        return mmap.mmap(fd, 0, access=mmap.ACCESS_READ) if os.fstat(fd).st_size else b""
    finally:
        os.close(fd)


def _open_inside(root: Path, path: Path) -> int | None:
    """A read-only descriptor of the regular file `path` of the vault (None: there is none); see `read_inside`."""
    wanted = os.path.abspath(path)
    real = os.path.realpath(wanted)
    if not within(os.path.realpath(root), real):
        if not inside_lexically(root, Path(wanted)):
            raise VaultError(f"refusing to read {path}: it is not a file of the vault {root}")
        part, target = escape(root, Path(wanted)) or (os.fspath(path), real)
        raise _leads_out("read", part, target)
    # the resolved path, its last part never followed: a link swapped in after the check is not read either
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(real, flags)
    except FileNotFoundError:
        return None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            from wikic.vault.load import irregular_kind  # here: only a file that is no file needs its name

            code = errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL
            raise OSError(code, f"it is {irregular_kind(mode)}", os.fspath(path))
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_text_inside(root: Path, path: Path, *, encoding: str = "utf-8", errors: str = "strict") -> str | None:
    """`read_inside` as `Path.read_text` reads: decoded, with universal newlines (CRLF and CR read as LF)."""
    data = read_inside(root, path)
    if data is None:
        return None
    return data.decode(encoding, errors).replace("\r\n", "\n").replace("\r", "\n")


def make_folder(root: Path, folder: Path) -> Path:
    """Create `folder` (and its parents) inside the vault at `root`, never through a link that leads out."""
    confined(root, folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise VaultError(f"cannot create the folder {folder}: a file has its name") from None
    return folder
