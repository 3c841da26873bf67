"""A parsed note as one line of JSON and back: the rows of the parse cache, and how notes parsed in a forked
process travel to the main one.

A row is `[path, size, mtime_ns, note]`, the note being the `Note` tuple as a JSON array. JSON has no dates:
a date or time in the frontmatter is written `{"__date__": "2024-01-01"}` (`__datetime__`), and a note whose
frontmatter JSON cannot give back exactly as it was (a key that is no string, a number that is not finite,
bytes, a set, a mapping that reads like such a tag) has no row: it is parsed again next time.

msgspec (the `fast` extra) writes and reads the rows about 4x faster than the standard library and builds
the named tuples itself; without it the standard library's json writes and reads the same rows, so a cache
either one wrote reads the same with the other.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from wikic.vault.model import Block, Heading, Link, Note, Problem

Row = tuple[str, int, int, Note]

_TAGS = ("__date__", "__datetime__")


class _NotJSON(Exception):
    """A frontmatter value JSON cannot give back as it was."""


_PLAIN = frozenset({str, int, bool, type(None)})
_CONTAINERS = frozenset({dict, list})


def _tagged(value: Any) -> Any:
    """`value` with every date and time as its tag (a container is copied only where something changes);
    raises _NotJSON for what would not read back the same."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is float:
        if not math.isfinite(value):
            raise _NotJSON  # json writes NaN, which is no JSON; msgspec writes null
        return value
    if kind is dict:
        if len(value) == 1 and next(iter(value)) in _TAGS:
            raise _NotJSON  # it would read back as a date
        copy = None
        for key, item in value.items():
            if type(key) is not str:
                raise _NotJSON  # JSON turns a key 1 or 2024-01-01 into a string without a word
            if type(item) not in _PLAIN:
                new = _tagged(item)
                if new is not item:
                    copy = copy or dict(value)
                    copy[key] = new
        return value if copy is None else copy
    if kind is list:
        listed = None
        for i, item in enumerate(value):
            if type(item) not in _PLAIN:
                new = _tagged(item)
                if new is not item:
                    listed = listed or list(value)
                    listed[i] = new
        return value if listed is None else listed
    if kind is dt.datetime:
        return {"__datetime__": value.isoformat()}
    if kind is dt.date:
        return {"__date__": value.isoformat()}
    raise _NotJSON


def _read_tag(obj: dict[str, Any]) -> Any:
    """A tag as its date or time; any other mapping as it is."""
    if len(obj) == 1:
        ((key, value),) = obj.items()
        if type(value) is str:
            if key == "__date__":
                return dt.date.fromisoformat(value)
            if key == "__datetime__":
                return dt.datetime.fromisoformat(value)
    return obj


def _read_tags(value: Any) -> Any:
    """`value` with every tag read back as its date or time, inner ones first (as json's `object_hook` reads
    them). The containers are the decoder's own, fresh: they are changed in place."""
    kind = type(value)
    if kind is dict:
        for key, item in value.items():
            if type(item) in _CONTAINERS:
                value[key] = _read_tags(item)
        return _read_tag(value)
    if kind is list:
        for i, item in enumerate(value):
            if type(item) in _CONTAINERS:
                value[i] = _read_tags(item)
    return value


def _note_from(row: list[Any]) -> Note:
    path, fm, fm_lines, key_lines, links, headings, blocks, problems, line_count, body_start = row
    return Note(
        path, fm, fm_lines, key_lines,
        [Link._make(x) for x in links], [Heading._make(x) for x in headings], [Block._make(x) for x in blocks],
        [Problem._make(x) for x in problems], line_count, body_start,
    )  # fmt: skip


class _Stdlib:
    """The standard library's json."""

    name = "json"

    @staticmethod
    def encode(row: list[Any]) -> bytes:
        return json.dumps(row, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")

    @staticmethod
    def decode(joined: bytes) -> list[Row]:
        rows = json.loads(joined, object_hook=_read_tag)
        return [(path, size, mtime, _note_from(note)) for path, size, mtime, note in rows]


class _Msgspec:
    """msgspec: straight from JSON into the named tuples, every field's type checked on the way."""

    name = "msgspec"

    def __init__(self, encode: Callable[[Any], bytes], decode: Callable[[bytes], list[Row]]) -> None:
        self.encode = encode
        self._decode = decode

    def decode(self, joined: bytes) -> list[Row]:
        rows = self._decode(joined)
        for row in rows:
            if row[3].frontmatter:
                _read_tags(row[3].frontmatter)
        return rows


@lru_cache(maxsize=1)  # chosen on first use: a lint served from its cached report never imports msgspec
def _codec() -> _Stdlib | _Msgspec:
    try:
        import msgspec
    except ImportError:  # the `fast` extra is not installed: the standard library does the same work
        return _Stdlib()
    return _Msgspec(msgspec.json.Encoder().encode, msgspec.json.Decoder(list[Row]).decode)


def codec_name() -> str:
    """Which library reads and writes the rows: "msgspec" or "json"."""
    return _codec().name


def encode(note: Note, size: int, mtime_ns: int) -> bytes | None:
    """The note's row, or None when its frontmatter holds a value JSON cannot give back as it was."""
    try:
        if note.frontmatter:
            note = note._replace(frontmatter=_tagged(note.frontmatter))
        return _codec().encode([note.path, size, mtime_ns, note])
    except (_NotJSON, TypeError, ValueError, OverflowError):
        return None


def decode(rows: list[bytes]) -> list[Row]:
    """Notes from their rows, in order, decoded as one JSON array (a call per row costs more). Raises ValueError
    or TypeError for rows that are no such rows."""
    if not rows:
        return []
    return _codec().decode(b"[" + b",".join(rows) + b"]")
