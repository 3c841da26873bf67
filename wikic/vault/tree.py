"""Walking a folder tree without recursion, whatever its depth.

`os.walk` calls itself once per level on Python 3.11 (and `Path.rglob` recurses as well), so folders nested
a thousand deep under `raw/` (a vault is often a clone or a synced folder: anyone may have made them) ended
every ingest, watch and index in a RecursionError. `walk_tree` yields what `os.walk` yields, from a list of
folders still to read instead of the call stack.
"""

from __future__ import annotations

import os
from collections.abc import Iterator


def walk_tree(top: str | os.PathLike[str]) -> Iterator[tuple[str, list[str], list[str]]]:
    """`(folder, folder names, file names)` for `top` and every folder below it, as `os.walk(top)` gives them:
    top-down, in the same order, the caller pruning the walk by removing names from the folder names it was
    given; a link to a folder is listed among the folders but not walked into, and a folder that cannot be
    read is passed over."""
    pending = [os.fspath(top)]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as entries:
                listed = list(entries)
        except OSError:
            continue
        folders: list[str] = []
        files: list[str] = []
        links: set[str] = set()
        for entry in listed:
            try:
                is_folder = entry.is_dir()
            except OSError:
                is_folder = False
            if not is_folder:
                files.append(entry.name)
                continue
            folders.append(entry.name)
            try:
                if entry.is_symlink():
                    links.add(entry.name)
            except OSError:
                links.add(entry.name)
        yield folder, folders, files
        # reversed onto the list: the first folder named is the next one read, as os.walk's order has it
        pending += [os.path.join(folder, name) for name in reversed(folders) if name not in links]
