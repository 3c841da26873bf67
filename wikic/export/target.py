"""The folder an export writes into: refused where it would mix with the vault, and where it holds a person's
files, before anything is written.

A site is written into a folder of its own. Inside the vault's page folders, `raw/` or `.wikic/` its pages
would be read back as the vault's own notes (and `raw/` never changes), at the vault's root it would lie
among the notes, and a folder holding the vault would take the site's `entities/` over the vault's. A folder
that holds files, and neither an earlier site's manifest nor only what `wikic export llms` wrote, is someone's:
refused unless `--force`, and even then only files the export writes are replaced (none is ever deleted but
those an earlier export wrote).
"""

from __future__ import annotations

import os
from pathlib import Path

from wikic.errors import UsageError
from wikic.vault.layout import RAW_DIR, STATE_DIR
from wikic.vault.paths import within

MANIFEST = ".wikic-site.json"  # in the export's folder: what an earlier export wrote, and from what
LLMS_FILES = ("llms.txt", "llms-full.txt")  # what `wikic export llms` writes, beside a site or alone


def check_target(root: Path, out_dir: Path, page_folders: list[str], *, force: bool) -> Path:
    """`out_dir` made absolute, or UsageError naming why it cannot hold the vault at `root`'s site: the vault
    itself, a folder holding it, a folder inside its page folders, `raw/` or `.wikic/`, something not a folder,
    or a folder of files that no export wrote (unless `force`)."""
    real_root = os.path.realpath(root)
    target = Path(os.path.abspath(out_dir.expanduser()))
    real = os.path.realpath(target)
    shown = str(out_dir)
    if real == real_root:
        raise UsageError(f"refusing to export into {shown}: it is the vault itself",
                         hint="give a folder outside the vault, e.g. `wikic export site ../site`")
    if within(real, real_root):
        raise UsageError(f"refusing to export into {shown}: it holds the vault",
                         hint="give a folder outside the vault, e.g. `wikic export site ../site`")
    if within(real_root, real):
        top = os.path.relpath(real, real_root).split(os.sep)[0]
        if top in (RAW_DIR, STATE_DIR, *page_folders):
            where = {RAW_DIR: "the raw sources", STATE_DIR: "wikic's own state"}.get(top, "a page folder")
            raise UsageError(f"refusing to export into {shown}: it is inside {top}/ ({where})",
                             hint="give a folder outside the vault, e.g. `wikic export site ../site`")
    if os.path.lexists(target) and not os.path.isdir(target):
        raise UsageError(f"refusing to export into {shown}: it is not a folder",
                         hint="give a folder, new or empty or one an earlier export wrote")
    if os.path.isdir(target) and not force and not (target / MANIFEST).is_file():
        try:
            held = next((entry for entry in os.scandir(target) if entry.name not in LLMS_FILES), None)
        except OSError as exc:
            raise UsageError(f"cannot read {shown}: {exc.strerror}", hint="give a folder you may write") from None
        if held is not None:
            raise UsageError(f"refusing to export into {shown}: it holds files that no export of wikic wrote",
                             hint="give a new or empty folder, or add --force to write the site among them "
                                  "(nothing of theirs is deleted; a file by a name the site uses is replaced)")
    return target


def inside_vault(root: Path, out_dir: Path) -> str | None:
    """The export's folder as a vault-relative path when it lies inside the vault (its files are then no
    vault files to export), else None."""
    real_root, real = os.path.realpath(root), os.path.realpath(out_dir)
    if real == real_root or not within(real_root, real):
        return None
    return os.path.relpath(real, real_root).replace(os.sep, "/")
