"""Reading JSON that someone else wrote: exports, session files, hook payloads, assistants' settings.

`parse` is the one JSON reader for all of it: `json.loads` with the nesting bounded (`MAX_DEPTH`,
`wikic.text.bounded_json`, which the model's replies are read through too), so JSON nested a thousand
levels deep is a `TooDeep` error (a ValueError, like any other text that is not JSON), never a
RecursionError, whatever the stack the caller runs on; and the value it returns can be walked recursively
by the format readers. `loads` is the same as an ExportError naming the file.

`iter_array` reads the elements of a top-level array one at a time, keeping only the element being parsed
(plus one read block) in memory, whatever the file's size, so a 200 MB `conversations.json` (or the same
file inside a zip) streams. `read_jsonl` reads JSON Lines with the line of every entry.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator, Mapping
from typing import IO, Any, NamedTuple, TypeVar

from wikic.errors import ExportError
from wikic.text.bounded_json import MAX_DEPTH, TooDeep, parse, raw_decode

__all__ = ["MAX_DEPTH", "JsonLines", "TooDeep", "field", "iter_array", "loads", "parse", "read_jsonl"]

T = TypeVar("T")

BLOCK = 1 << 20  # bytes read at a time
MAX_ELEMENT = 256 << 20  # one conversation larger than this is refused, not read into memory without end
_WS = " \t\r\n"


def loads(text: str, label: str, *, hint: str | None = None) -> Any:
    """`parse`, with an ExportError naming `label` (a file, or `file:line`) for text that is not JSON."""
    try:
        return parse(text)
    except ValueError as exc:
        what = f"JSON {exc}" if isinstance(exc, TooDeep) else f"not valid JSON: {exc}"
        raise ExportError(f"{label}: {what}", hint=hint or "the file is damaged; nothing of it was read") from None


def iter_array(stream: IO[bytes], label: str, *, max_element: int = MAX_ELEMENT) -> Iterator[Any]:
    """Each element of the JSON array `stream` holds, in order. ExportError names the file and line of the
    first thing that is not JSON (a truncated file included)."""
    decoder = json.JSONDecoder()
    text_of = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
    buf, pos, line, eof = "", 0, 1, False

    def more() -> bool:
        """Read on (as much again as the element so far: a large element is re-parsed a few times, not
        once per block), dropping what was parsed already."""
        nonlocal buf, pos, eof, line
        if eof:
            return False
        block = stream.read(max(BLOCK, len(buf) - pos))
        eof = not block
        line += buf.count("\n", 0, pos)
        buf, pos = buf[pos:] + text_of.decode(block, final=eof), 0
        return bool(block) or bool(buf)

    def skip(chars: str) -> str:
        """Skip whitespace and then one of `chars` if there; the character found ('' at the end)."""
        nonlocal pos
        while True:
            while pos < len(buf) and buf[pos] in _WS:
                pos += 1
            if pos < len(buf):
                found = buf[pos]
                if found in chars:
                    pos += 1
                return found
            if not more():
                return ""

    if skip("[") != "[":
        raise ExportError(
            f"{label}:{line}: not a JSON array", hint="wikic reads the export's conversations file as it was downloaded"
        )
    first = True
    while True:
        found = skip("]," if not first else "]")
        if found == "]":
            return
        if found == "":
            raise ExportError(f"{label}:{_line(buf, pos, line)}: the file ends inside the array (truncated?)",
                              hint="download the export again; nothing of the unread part was brought in")
        if not first and found != ",":
            raise ExportError(f"{label}:{_line(buf, pos, line)}: expected ',' between elements")
        skip("")
        while True:
            try:
                value, end = raw_decode(decoder, buf, pos)
            except TooDeep as exc:
                raise ExportError(f"{label}:{_line(buf, pos, line)}: an element {exc}",
                                  hint="the file is damaged there; conversations before this point were brought in"
                                  ) from None
            except json.JSONDecodeError as exc:
                if eof or len(buf) - pos > max_element:
                    where = _line(buf, pos if eof else exc.pos, line)  # truncated: where the cut element starts
                    what = f"{exc.msg}; the file ends before this element does (truncated?)" if eof else exc.msg
                    raise ExportError(
                        f"{label}:{where}: not valid JSON: {what}",
                        hint="download the export again; conversations before this point were brought in",
                    ) from None
                more()
                continue
            break
        pos = end
        first = False
        yield value


def _line(buf: str, pos: int, line: int) -> int:
    return line + buf.count("\n", 0, min(pos, len(buf)))


class JsonLines(NamedTuple):  # a tuple, not a dataclass: `wikic capture` imports this module and starts fast
    entries: list[tuple[int, dict[str, Any]]]  # (1-based line in the file, the object on it)
    consumed: int  # bytes of whole lines read (from the start of what was given)
    incomplete: bool  # the last line has no newline and is not JSON yet: a file still being written


def read_jsonl(data: bytes, label: str, *, first_line: int = 1) -> JsonLines:
    """Every object line of `data`. A line that is not JSON is an ExportError naming `label:LINE`, except
    the last one when it has no newline yet (the writer is still writing it): it is left for later."""
    entries: list[tuple[int, dict[str, Any]]] = []
    offset, number = 0, first_line
    size = len(data)
    while offset < size:
        end = data.find(b"\n", offset)
        last = end < 0
        stop = size if last else end
        raw = data[offset:stop].strip()
        if raw:
            try:
                value = parse(raw.decode("utf-8-sig", errors="replace"))
            except TooDeep as exc:
                raise ExportError(f"{label}:{number}: a JSON line {exc}",
                                  hint="the file is damaged at that line; nothing of it was brought in") from None
            except json.JSONDecodeError as exc:
                if last:
                    return JsonLines(entries, offset, True)
                raise ExportError(f"{label}:{number}: not a JSON line ({exc.msg})",
                                  hint="the file is damaged at that line; nothing of it was brought in") from None
            if isinstance(value, dict):
                entries.append((number, value))
        offset = size if last else end + 1
        number += 1
    return JsonLines(entries, offset, False)


def field(value: Mapping[str, Any], key: str, kind: type[T], default: T) -> T:
    """`value[key]` when it is a `kind`, else `default`: in an export any field may be missing or of
    another type."""
    found = value.get(key)
    return found if isinstance(found, kind) else default
