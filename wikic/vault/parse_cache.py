"""The parse cache under `.wikic/cache/`: every note of the last run, so a file whose size and mtime have not
changed is neither read nor parsed again.

The file is JSON lines: a header `{"format": 2, "wikic": VERSION}`, then one row per note (`note_json.py`:
`[path, size, mtime_ns, note]`), in the order of their paths: a reader of a few notes maps the file and finds
their rows by halving it (`RowsByPath`). A row is made once, where the note is parsed (in the parsing
processes), and copied as bytes while its file stays unchanged, so writing the cache costs a join, not a second
pass over every note. The same rows carry parsed notes from the parsing processes back to the main one.

JSON, never pickle: a vault is shared data, and loading its cache must not run code.
"""

from __future__ import annotations

import json
import mmap
import re
from contextlib import suppress
from pathlib import Path
from typing import NamedTuple

from wikic import __version__
from wikic.vault import note_json
from wikic.vault.model import Note
from wikic.vault.sorted_lines import halving
from wikic.vault.state import PARSE_CACHE, map_cache, read_cache_bytes, state_file, write_cache

FORMAT = 2
# The head of a row, `[path,size,mtime_ns,` (`note_json.py`: both of its codecs write it so)
# (the string's pattern unrolled, `[^"\\]*(?:\\.[^"\\]*)*`: the same strings, matched in half the time)
_ROW_HEAD = re.compile(rb'\["([^"\\]*(?:\\.[^"\\]*)*)",(\d+),(\d+),')
_LINE_HEAD = re.compile(b"\n" + _ROW_HEAD.pattern)  # a row's head after the line before it: JSON escapes newlines
_OLD_CACHE = "cache/parse-cache.json"  # the one-object form earlier versions wrote: removed on the next save


class CachedNote(NamedTuple):
    size: int
    mtime_ns: int
    note: Note
    line: bytes  # the note's row in the cache file, written back as it is while the file is unchanged


def encode(note: Note, size: int, mtime_ns: int) -> bytes | None:
    """The note's row, or None when its frontmatter holds a value JSON cannot give back as it was."""
    return note_json.encode(note, size, mtime_ns)


def choose_codec() -> None:
    """Pick the rows' codec now (msgspec is imported here when installed): a process forked after this shares it
    rather than importing it again."""
    note_json.codec_name()


def decode(lines: list[bytes]) -> list[CachedNote]:
    """Notes from their rows, in order."""
    return [
        CachedNote(size, mtime, note, line)
        for (_, size, mtime, note), line in zip(note_json.decode(lines), lines, strict=True)
    ]


def rows(root: Path) -> list[bytes] | None:
    """The cache's rows, undecoded; None when there is no cache, or one of another version or format."""
    found = _body(root)
    if found is None:
        return None
    data, start = found
    lines = data[start:].split(b"\n") if start < len(data) else []
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


class RowsByPath:
    """The cache's rows by their note's path, found in the file without cutting every row out of it (for a reader
    of a few notes). The rows are written in their paths' order (`load_vault`), so a row is found by halving the
    file; a path not found so (a note the cache does not hold, a file written otherwise), and every path once
    many were asked for, is looked up in an index of every row made then."""

    def __init__(self, data: bytes | mmap.mmap, start: int) -> None:
        self._data = data
        self._start = start
        self._starts: dict[str, int] | None = None  # where every row starts, once indexed
        self._stamps: dict[str, tuple[int, int]] = {}  # every row's (size, mtime_ns), made with the starts
        self._searches = 0

    def get(self, path: str) -> bytes | None:
        span = self._span(path)
        return self._data[span[0] : span[1]] if span is not None else None

    def stamp(self, path: str) -> tuple[int, int] | None:
        """(size, mtime_ns) of the file as the row of `path` was made from it, read from the row's head."""
        if self._starts is not None:
            return self._stamps.get(path)
        span = self._span(path)
        m = _ROW_HEAD.match(self._data, span[0]) if span is not None else None
        return (int(m.group(2)), int(m.group(3))) if m is not None else None

    def holds(self, path: str, part: bytes) -> bool:
        """Whether the row of `path` holds `part` (its bytes as written), without cutting the row out."""
        span = self._span(path)
        return span is not None and self._data.find(part, span[0], span[1]) >= 0

    def rows_holding(self, part: bytes) -> list[bytes]:
        """Every row that holds `part` (its bytes as written), found by searching the file for it rather than
        each row in turn: for a part few rows hold, a scan at the speed of `bytes.find`."""
        data, found, at = self._data, [], self._start
        while (hit := data.find(part, at)) >= 0:
            start = max(data.rfind(b"\n", self._start, hit) + 1, self._start)
            stop = data.find(b"\n", hit)
            stop = len(data) if stop < 0 else stop
            found.append(data[start:stop])
            at = stop + 1
        return found

    def _span(self, path: str) -> tuple[int, int] | None:
        if self._starts is None:
            if self._searches < _SEARCHES:
                self._searches += 1
                found = halving(self._data, self._start, path, _row_path)
                if found is not None:
                    return found
            self._index()
        start = self._starts.get(path) if self._starts is not None else None
        if start is None:
            return None
        stop = self._data.find(b"\n", start)
        return start, len(self._data) if stop < 0 else stop

    def _index(self) -> None:
        """Where every row starts, and its stamp, in one scan of the file for the rows' heads."""
        if self._starts is None:
            starts: dict[str, int] = {}
            stamps = self._stamps
            for m in _LINE_HEAD.finditer(self._data, self._start - 1):  # every row follows a line's end
                path = _unquoted(m.group(1))
                starts[path] = m.start() + 1
                stamps[path] = (int(m.group(2)), int(m.group(3)))
            self._starts = starts


_SEARCHES = 256  # rows found by halving before every row is indexed at once (a reader of all of them)


def rows_by_path(root: Path, *, every: bool = False) -> RowsByPath | None:
    """`rows`, by path; None when there is no cache, or one of another version or format. The file is mapped,
    not read: a reader of a few rows of a big vault's cache reads only those parts of it; a reader of `every`
    row has the file read and indexed at once."""
    if every:
        found = _body(root)
        if found is None:
            return None
        rows = RowsByPath(*found)
        rows._index()
        return rows
    data = map_cache(root, PARSE_CACHE)
    start = _head(data) if data else None
    return RowsByPath(data, start) if data and start is not None else None


def _body(root: Path) -> tuple[bytes, int] | None:
    """The cache file's bytes and where its rows begin, when its header is this version's and format's."""
    data = read_cache_bytes(root, PARSE_CACHE)
    start = _head(data) if data else None
    return (data, start) if data and start is not None else None


def _head(data: bytes | mmap.mmap) -> int | None:
    """Where the rows begin, when the header is this version's and format's (None: it is not)."""
    cut = data.find(b"\n")
    header, start = (data[:], len(data)) if cut < 0 else (data[:cut], cut + 1)
    try:
        head = json.loads(header)
    except (ValueError, RecursionError):  # RecursionError: a header nested 1,000 deep
        return None
    if not isinstance(head, dict) or head.get("format") != FORMAT or head.get("wikic") != __version__:
        return None
    return start


def row_head(line: bytes) -> tuple[str, int, int] | None:
    """(path, size, mtime_ns) of a row, read from its head alone, without decoding the note."""
    m = _ROW_HEAD.match(line)
    if m is None:
        return None
    return _unquoted(m.group(1)), int(m.group(2)), int(m.group(3))


def _row_path(data: bytes | mmap.mmap, at: int) -> str | None:
    m = _ROW_HEAD.match(data, at)
    return _unquoted(m.group(1)) if m is not None else None


def _unquoted(quoted: bytes) -> str:
    return json.loads(b'"' + quoted + b'"') if b"\\" in quoted else quoted.decode("utf-8", "replace")


def load(root: Path) -> dict[str, CachedNote]:
    """The cached notes by path; empty when there is no cache, or one of another version or format."""
    lines = rows(root)
    if lines is None:
        return {}
    try:
        return {entry.note.path: entry for entry in decode(lines)}
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):  # RecursionError: nested 1,000 deep
        return {}  # a damaged cache is rebuilt, never trusted


def save(root: Path, lines: list[bytes]) -> None:
    header = json.dumps({"format": FORMAT, "wikic": __version__}).encode("utf-8")
    write_cache(root, PARSE_CACHE, b"\n".join([header, *lines, b""]))
    old = state_file(root, _OLD_CACHE)  # None: a `.wikic` that leads out of the vault is never deleted from
    if old is not None:
        with suppress(OSError):
            old.unlink(missing_ok=True)
