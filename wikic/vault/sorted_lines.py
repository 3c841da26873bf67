"""Lines written in the order of their keys, each found by halving the bytes rather than reading them all: for
a big cache of which a run asks for a few entries (the parse cache's rows, the faces a whole lint keeps).

A keyed line is `JSON key TAB JSON value` (`keyed_lines`): JSON escapes every tab and newline inside a string,
so neither can appear in a key or a value.
"""

from __future__ import annotations

import json
import mmap
from collections.abc import Callable, Iterable, Iterator, Mapping
from json.encoder import encode_basestring_ascii  # the C one where built
from typing import Any

Data = bytes | mmap.mmap


def halving(data: Data, start: int, wanted: str, key_at: Callable[[Data, int], str | None]) -> tuple[int, int] | None:
    """The span of the line of `data` (from `start`) whose key (`key_at` of its first byte) is `wanted`, the lines
    being in their keys' order; None when it is not found so (no such line, a line without a key, or lines in
    another order)."""
    low, high = start, len(data)
    while low < high:
        at = max(data.rfind(b"\n", low, (low + high) // 2) + 1, low)
        stop = data.find(b"\n", at, high)
        stop = high if stop < 0 else stop
        key = key_at(data, at)
        if key is None:
            return None
        if key == wanted:
            return at, stop
        if key < wanted:
            low = stop + 1
        else:
            high = at
    return None


def keyed_lines(entries: Iterable[tuple[str, str]]) -> str:
    """The entries (a key, its value as JSON text on one line) as keyed lines, in their keys' order (a key once).
    The caller encodes the values (`json_strings`, or text it knows to be JSON): one encoder call an entry would
    cost more than the rest of the writing."""
    return "\n".join(f"{encode_basestring_ascii(key)}\t{value}" for key, value in sorted(dict(entries).items()))


def json_strings(texts: Iterable[str]) -> str:
    """A list of strings as JSON text on one line (ASCII: a name no file system could decode is escaped), made
    without the encoder."""
    return "[" + ",".join(map(encode_basestring_ascii, texts)) + "]"


class KeyedLines(Mapping[str, Any]):
    """The values of keyed lines (from `start` of `data`), each decoded when asked for; with `prefix`, those
    whose keys begin with it, by the rest of their keys. Only looked up by key: a reader of them all is told
    `LookupOnly`."""

    def __init__(self, data: Data, start: int = 0, prefix: str = "") -> None:
        self._data = data
        self._start = start
        self._prefix = prefix

    def __getitem__(self, key: str) -> Any:
        span = halving(self._data, self._start, self._prefix + key, _key_at)
        if span is None:
            raise KeyError(key)
        line = self._data[span[0] : span[1]]
        try:
            return json.loads(line[line.index(b"\t") + 1 :])
        except (ValueError, RecursionError) as exc:  # a damaged line: as if the entry were not there
            raise KeyError(key) from exc

    def __iter__(self) -> Iterator[str]:
        raise LookupOnly("every entry")

    def __len__(self) -> int:
        raise LookupOnly("every entry")


class LookupOnly(Exception):
    """More was asked of keyed lines than entries by key."""


def _key_at(data: Data, at: int) -> str | None:
    end = data.find(b"\n", at)
    tab = data.find(b"\t", at, len(data) if end < 0 else end)
    if tab < 0:
        return None
    try:
        key = json.loads(data[at:tab])
    except (ValueError, RecursionError):
        return None
    return key if isinstance(key, str) else None
