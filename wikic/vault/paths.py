"""The one check that keeps wikic inside its vault: every path it writes (and the folders it reads as the
vault's own: `.wikic/`, `raw/`, the page folders, the palace) is refused when it leads outside the vault
through a symbolic link, with an error naming the link and where it leads.

A vault is often a clone or a synced folder, so its own files may be hostile: `.wikic -> /elsewhere`,
`raw/articles -> ~/Documents` or a page folder linked out would otherwise make a capture, a cache or the
palace land outside it. Links that stay inside the vault are followed as usual.
"""

from __future__ import annotations

import os
from pathlib import Path

from wikic.errors import VaultError

_HINT = "replace the link with a real folder of the vault (or remove it), then run the command again"


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


def confined(root: Path, path: Path, *, leaf: bool = True) -> Path:
    """`path`, or VaultError when it leads outside the vault at `root` through a symbolic link."""
    found = escape(root, path, leaf=leaf)
    if found is not None:
        part, target = found
        raise VaultError(f"refusing to use {part}: it leads outside the vault (to {target})", hint=_HINT)
    return path


def make_folder(root: Path, folder: Path) -> Path:
    """Create `folder` (and its parents) inside the vault at `root`, never through a link that leads out."""
    confined(root, folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise VaultError(f"cannot create the folder {folder}: a file has its name") from None
    return folder
