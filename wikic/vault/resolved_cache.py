"""Where each note's links land, kept under `.wikic/cache/` from one run to the next.

A link's resolution depends on its text, the folder of its note and the paths of the vault's files, nothing
else (`resolve.py`). So the resolutions of a note whose size and mtime have not changed still hold unless a
file was added or removed (a rename is both) whose name the note's links could reach: a lint after a page
was edited or a source ingested (the pre-commit case, the lint that ends an ingest) takes the other notes'
links from here instead of resolving a 10,000-page vault's 100,000 links again.

Which links a changed file can reach: the resolver only ever looks a link up by keys that end with the link's
last path segment (folded), and a file is found only by keys that are suffixes of its own folded path, with
or without `.md` for a note. So a link whose last segment is neither a changed file's name nor that name
without `.md` resolves as before. The cache belongs to one version of wikic; a damaged file is not used (and
is written anew).
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from wikic import __version__
from wikic.vault.load import FileInfo, Resolved
from wikic.vault.model import Note
from wikic.vault.resolve import NOTE_EXT, Resolver, fold_name
from wikic.vault.state import RESOLVED_LINKS, read_cache_bytes, write_cache

FORMAT = 2
VERSION = f"{FORMAT}|{__version__}"
# Past this many files added or removed since the cache was written, every note is resolved again: as quick
# as sorting out which notes those files concern.
MAX_CHANGED_FILES = 1000
_REWRITE_ROWS = 100  # rows made anew in a run past which the cache is written again (or a twentieth of them)
_Row = tuple[int, int, Resolved]  # size, mtime_ns, the note's links resolved
_File = tuple[str, list[str], dict[str, _Row]]  # VERSION, the vault's file paths, each note's row by path


@lru_cache(maxsize=1)
def _codec() -> tuple[Any, Any]:
    """(encode, decode): msgspec's when the `fast` extra is installed (typed: tuples come back as tuples), else
    the standard library's, whose lists are turned back into tuples."""
    try:
        import msgspec
    except ImportError:
        def decode(data: bytes) -> _File:
            version, paths, rows = json.loads(data)
            return version, paths, {
                path: (size, mtime, [(target, tuple(candidates)) for target, candidates in links])
                for path, (size, mtime, links) in rows.items()
            }

        return (lambda value: json.dumps(value, separators=(",", ":")).encode("utf-8")), decode
    return msgspec.json.Encoder().encode, msgspec.json.Decoder(_File).decode


def _load(root: Path) -> tuple[list[str], dict[str, _Row]]:
    """(the file paths the cache was made for, its rows); nothing when there is none usable."""
    data = read_cache_bytes(root, RESOLVED_LINKS)
    if not data:
        return [], {}
    try:
        version, paths, rows = _codec()[1](data)
    except Exception:  # noqa: BLE001 - a damaged cache (any decoding error of either codec) is rebuilt, never trusted
        return [], {}
    if version != VERSION or not isinstance(paths, list) or not isinstance(rows, dict):
        return [], {}
    return paths, rows


def reachable_names(changed: Iterable[str]) -> set[str]:
    """The last path segments (folded) by which links can reach the files `changed`: each one's name, and for a
    note that name without `.md`."""
    out: set[str] = set()
    for path in changed:
        name = fold_name(posixpath.basename(path))
        out.add(name)
        if name.endswith(NOTE_EXT):
            out.add(name[: -len(NOTE_EXT)])
    return out


def may_reach(note: Note, names: set[str]) -> bool:
    """Whether a link of `note` may resolve to a file named in `names` (`reachable_names`): its last segment is
    one of them, or one ("." or "..", or none after a trailing "/") that only normalizing the path tells. A link
    to a heading of the note itself (no target) reaches no other file."""
    for link in note.links:
        target = link.target
        if target:
            last = last_segment(target)
            if last in names or last in ANY_FILE:
                return True
    return False


ANY_FILE = ("", ".", "..")  # last segments only normalizing a link's path tells the file of


def last_segment(target: str) -> str:
    """A link target's last path segment, folded: what `reachable_names` are compared with."""
    last = target[target.rfind("/") + 1 :]
    if "\\" in last:
        last = last[last.rfind("\\") + 1 :]
    return fold_name(last)  # folding keeps every "/": the last segment of the folded target


def complete(
    root: Path, files: Mapping[str, FileInfo], notes: Mapping[str, Note], resolved: dict[str, Resolved],
    resolver: Resolver,
) -> None:
    """Give `resolved` every note's links resolved (those this load parsed were resolved then): from the cache
    where the note is unchanged and no file added or removed since may be reached by its links, else resolved
    here; then write the cache anew when much of it was made here. `files`: every file of the vault."""
    cached_paths, cached = _load(root)
    paths = sorted(files)
    changed: set[str] = set()
    if paths != cached_paths and cached:
        changed = set(cached_paths).symmetric_difference(files)
        if len(changed) > MAX_CHANGED_FILES:
            cached = {}
        else:
            names = reachable_names(changed)
            cached = {path: row for path, row in cached.items() if path in notes and not may_reach(notes[path], names)}
    rows: dict[str, _Row] = {}
    made = 0  # rows resolved here rather than taken from the cache
    for path, note in notes.items():
        if not note.links:
            continue
        size, mtime = files[path].size, files[path].mtime_ns
        mine = resolved.get(path)
        if mine is None:
            row = cached.get(path)
            if row is not None and row[0] == size and row[1] == mtime and len(row[2]) == len(note.links):
                resolved[path] = row[2]
                rows[path] = row
                continue
            mine = resolved[path] = [(r.path, r.candidates)
                                     for r in resolver.resolve_all(path, [link.target for link in note.links])]
        rows[path] = (size, mtime, mine)
        made += 1
    # Written again only when a good share of it is new: writing costs about what resolving saves, and a cache a
    # few files behind still serves (the files changed since are looked at again, and the notes made again).
    if not cached_paths or made > max(_REWRITE_ROWS, len(rows) // 20) or len(changed) > MAX_CHANGED_FILES // 2:
        write_cache(root, RESOLVED_LINKS, _codec()[0]([VERSION, paths, rows]))
