"""The parse cache under `.wikic/cache/`: every note of the last run, so a file whose size and mtime have not
changed is neither read nor parsed again.

The file is JSON lines: a header `{"format": 2, "wikic": VERSION}`, then one line per note,
`[path, size, mtime_ns, note]`, the note being the `Note` tuple as a JSON array. A line is made once, where the
note is parsed (in the parsing processes), and copied as text while its file stays unchanged, so writing the
cache costs a join, not a second pass over every note. The same lines carry parsed notes from the parsing
processes back to the main one.

JSON, never pickle: a vault is shared data, and loading its cache must not run code.
"""

from __future__ import annotations

import datetime as dt
import json
from contextlib import suppress
from pathlib import Path
from typing import Any, NamedTuple

from wikic import __version__
from wikic.vault.model import Block, Heading, Link, Note, Problem
from wikic.vault.state import PARSE_CACHE, read_cache, state_file, write_cache

FORMAT = 2
_OLD_CACHE = "cache/parse-cache.json"  # the one-object form earlier versions wrote: removed on the next save


class CachedNote(NamedTuple):
    size: int
    mtime_ns: int
    note: Note
    line: str  # the note's line in the cache file, written back as it is while the file is unchanged


def _encode(value: Any) -> Any:
    # YAML gives dates; JSON has none. Anything else unusual makes the note uncacheable.
    if isinstance(value, dt.datetime):
        return {"__datetime__": value.isoformat()}
    if isinstance(value, dt.date):
        return {"__date__": value.isoformat()}
    raise TypeError(type(value).__name__)


def _decode(obj: dict[str, Any]) -> Any:
    if len(obj) == 1:
        if "__date__" in obj:
            return dt.date.fromisoformat(obj["__date__"])
        if "__datetime__" in obj:
            return dt.datetime.fromisoformat(obj["__datetime__"])
    return obj


def _string_keys(value: Any) -> bool:
    """JSON turns a key `1` or `2024-01-01` into a string without a word: such a note would read back
    changed, so it is not cached."""
    for item in value.values() if type(value) is dict else value:
        if type(item) is dict:
            if not all(type(k) is str for k in item) or not _string_keys(item):
                return False
        elif type(item) is list and not _string_keys(item):
            return False
    return True


def encode(note: Note, size: int, mtime_ns: int) -> str | None:
    """The note's cache line, or None when its frontmatter holds a value JSON cannot carry faithfully."""
    if note.frontmatter and not _string_keys(note.frontmatter):
        return None
    try:
        return json.dumps([note.path, size, mtime_ns, note], default=_encode, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return None


def _note_from(row: list[Any]) -> Note:
    path, fm, fm_lines, key_lines, links, headings, blocks, problems, line_count, body_start = row
    return Note(
        path, fm, fm_lines, key_lines,
        [Link._make(x) for x in links], [Heading._make(x) for x in headings], [Block._make(x) for x in blocks],
        [Problem._make(x) for x in problems], line_count, body_start,
    )  # fmt: skip


def decode(lines: list[str]) -> list[CachedNote]:
    """Notes from their cache lines, in order. One `json.loads` over all of them: per-line calls cost more."""
    if not lines:
        return []
    rows = json.loads("[" + ",".join(lines) + "]", object_hook=_decode)
    return [
        CachedNote(size, mtime, _note_from(row), line) for (_, size, mtime, row), line in zip(rows, lines, strict=True)
    ]


def load(root: Path) -> dict[str, CachedNote]:
    """The cached notes by path; empty when there is no cache, or one of another version or format."""
    text = read_cache(root, PARSE_CACHE)
    if not text:
        return {}
    header, _, body = text.partition("\n")
    try:
        head = json.loads(header)
        if not isinstance(head, dict) or head.get("format") != FORMAT or head.get("wikic") != __version__:
            return {}
        lines = body.split("\n") if body else []
        if lines and lines[-1] == "":
            lines.pop()
        return {entry.note.path: entry for entry in decode(lines)}
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}  # a damaged cache is rebuilt, never trusted


def save(root: Path, lines: list[str]) -> None:
    header = json.dumps({"format": FORMAT, "wikic": __version__})
    write_cache(root, PARSE_CACHE, "\n".join([header, *lines, ""]))
    old = state_file(root, _OLD_CACHE)  # None: a `.wikic` that leads out of the vault is never deleted from
    if old is not None:
        with suppress(OSError):
            old.unlink(missing_ok=True)
