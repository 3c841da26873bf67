"""Where each note's links land, kept under `.wikic/cache/` while the vault holds the same files.

A link's resolution depends on its text, the folder of its note and the paths of the vault's files, nothing
else (`resolve.py`). So while no file is added, removed or renamed, the resolutions of a note whose size and
mtime have not changed still hold: a lint after one page was edited (the pre-commit case) takes the others'
from here instead of resolving a 10,000-page vault's 100,000 links again. The cache belongs to one set of
file paths and one version of wikic; any change of those, or a damaged file, and it is not used (and is
written anew).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from wikic import __version__
from wikic.vault.load import FileInfo, Resolved
from wikic.vault.model import Note
from wikic.vault.resolve import Resolver
from wikic.vault.state import RESOLVED_LINKS, read_cache_bytes, write_cache

FORMAT = 1
_Row = tuple[int, int, Resolved]  # size, mtime_ns, the note's links resolved
_File = tuple[str, dict[str, _Row]]  # the key, then each note's row by path


def _key(paths: Mapping[str, Any]) -> str:
    h = hashlib.sha256(f"{FORMAT}|{__version__}".encode())
    h.update("\0".join(sorted(paths)).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


@lru_cache(maxsize=1)
def _codec() -> tuple[Any, Any]:
    """(encode, decode): msgspec's when the `fast` extra is installed (typed: tuples come back as tuples), else
    the standard library's, whose lists are turned back into tuples."""
    try:
        import msgspec
    except ImportError:
        def decode(data: bytes) -> _File:
            key, rows = json.loads(data)
            return key, {path: (size, mtime, [(target, tuple(candidates)) for target, candidates in links])
                         for path, (size, mtime, links) in rows.items()}

        return (lambda value: json.dumps(value, separators=(",", ":")).encode("utf-8")), decode
    return msgspec.json.Encoder().encode, msgspec.json.Decoder(_File).decode


def _load(root: Path, key: str) -> dict[str, _Row]:
    data = read_cache_bytes(root, RESOLVED_LINKS)
    if not data:
        return {}
    try:
        found_key, rows = _codec()[1](data)
    except Exception:  # noqa: BLE001 - a damaged cache (any decoding error of either codec) is rebuilt, never trusted
        return {}
    return rows if found_key == key and isinstance(rows, dict) else {}


def complete(
    root: Path, files: Mapping[str, FileInfo], notes: Mapping[str, Note], resolved: dict[str, Resolved],
    resolver: Resolver,
) -> None:
    """Give `resolved` every note's links resolved (those this load parsed were resolved then): from the cache
    while the note and the vault's file paths are unchanged, else resolved here; then write the cache anew
    when it no longer holds exactly these. `files`: every file of the vault."""
    key = _key(files)
    cached = _load(root, key)
    rows: dict[str, _Row] = {}
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
    if rows.keys() != cached.keys() or any(rows[p] is not cached[p] for p in rows):
        write_cache(root, RESOLVED_LINKS, _codec()[0]([key, rows]))
