"""Reading JSON that someone else wrote: exports, session files, hook payloads, assistants' settings.

`parse` is the one JSON reader for all of it: `json.loads` with the nesting bounded (`MAX_DEPTH`), so JSON
nested a thousand levels deep is a `TooDeep` error (a ValueError, like any other text that is not JSON),
never a RecursionError, whatever the stack the caller runs on; and the value it returns can be walked
recursively by the format readers. `loads` is the same as an ExportError naming the file.

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

T = TypeVar("T")

BLOCK = 1 << 20  # bytes read at a time
MAX_ELEMENT = 256 << 20  # one conversation larger than this is refused, not read into memory without end
_WS = " \t\r\n"
# No export nests more than a few dozen levels; Python's parser (and any code that walks the value) runs out
# of stack near a thousand, so the limit sits well below that, whatever the caller's own depth.
MAX_DEPTH = 200
_DECODER = json.JSONDecoder()


class TooDeep(ValueError):
    """JSON that wikic does not read although it is valid: nested deeper than MAX_DEPTH levels, or holding
    a number longer than Python converts (4,300 digits)."""

    def __init__(self, what: str = f"nested deeper than {MAX_DEPTH} levels") -> None:
        super().__init__(what)


def parse(text: str) -> Any:
    """The JSON value of `text`: json.JSONDecodeError when it is not JSON, TooDeep when it nests deeper
    than MAX_DEPTH levels (both ValueErrors)."""
    return _raw_decode(_DECODER, text, 0, whole=True)[0]


def loads(text: str, label: str, *, hint: str | None = None) -> Any:
    """`parse`, with an ExportError naming `label` (a file, or `file:line`) for text that is not JSON."""
    try:
        return parse(text)
    except ValueError as exc:
        what = f"JSON {exc}" if isinstance(exc, TooDeep) else f"not valid JSON: {exc}"
        raise ExportError(f"{label}: {what}", hint=hint or "the file is damaged; nothing of it was read") from None


def _raw_decode(decoder: json.JSONDecoder, text: str, pos: int, *, whole: bool = False) -> tuple[Any, int]:
    """`decoder.raw_decode(text, pos)` with the nesting bounded (`whole`: nothing but whitespace may follow,
    as `json.loads` requires)."""
    try:
        value, end = decoder.raw_decode(text, pos) if not whole else (decoder.decode(text), len(text))
    except RecursionError:
        raise TooDeep() from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer of more digits than int() converts
        raise TooDeep("holding a number too long to read") from None
    _check_depth(value, text, pos, end)
    return value, end


def _check_depth(value: Any, text: str, start: int, end: int) -> None:
    """TooDeep when `value` (parsed from text[start:end]) nests deeper than MAX_DEPTH. A text with fewer
    brackets than that cannot; otherwise the containers are walked (a stack, not recursion), which costs a
    fraction of the parse."""
    if not isinstance(value, dict | list) or text.count("[", start, end) + text.count("{", start, end) <= MAX_DEPTH:
        return
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        for child in children:
            if isinstance(child, dict | list):
                if depth >= MAX_DEPTH:
                    raise TooDeep()
                stack.append((child, depth + 1))


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
                value, end = _raw_decode(decoder, buf, pos)
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
