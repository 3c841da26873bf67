"""Findings as lint's caches keep them (the report of the last run, the base of the lints after it): one line of
JSON, an array of the findings as `Finding.to_dict` gives them, after a line of JSON saying what they are of
(`headed`), which a reader asks before it decodes them (`read_headed`).

A base at 30,000 pages holds some 90,000 findings, and a lint after an ingest reads them all and writes them all
in its report: with the standard library's json, the objects decoded and made into findings and back take most
of that lint's time. msgspec (the `fast` extra, the parse cache's codec) decodes the array straight into the
findings and encodes them several times faster. Without it the standard library reads and writes the same
array, so a cache either one wrote reads the same with the other.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from wikic.lint.finding import Finding


class _Fast:
    """msgspec's encoder and decoder of a list of findings, and the error it raises for what it cannot do."""

    def __init__(self, encode: Callable[[Any], bytes], decode: Callable[[bytes], list[Finding]],
                 error: type[Exception]) -> None:
        self.encode = encode
        self.decode = decode
        self.error = error


# When msgspec serves: on a line longer than `_SHORT` bytes once it is imported (the parse cache imports it), and
# on one longer than `_LONG` before: importing it (~13 ms) costs more than it saves on fewer findings (a warm lint
# reads its report and nothing else). A finding is about `_FINDING` bytes of the line.
_SHORT = 20_000
_LONG = 1_500_000
_FINDING = 250


def choose() -> None:
    """Pick the codec now (msgspec is imported here when installed): a lint started next on another thread then
    imports nothing."""
    _fast()


def _fast_for(size: int) -> _Fast | None:
    """msgspec, when installed and worth it for a line of `size` bytes."""
    if size > _LONG or (size > _SHORT and _imported()):
        return _fast()
    return None


def _imported() -> bool:
    return "msgspec" in sys.modules


@lru_cache(maxsize=1)  # chosen on first use
def _fast() -> _Fast | None:
    try:
        import msgspec
    except ImportError:  # the `fast` extra is not installed: the standard library does the same work
        return None
    return _Fast(msgspec.json.Encoder().encode, msgspec.json.Decoder(list[Finding]).decode, msgspec.MsgspecError)


def encode(findings: Sequence[Finding]) -> bytes:
    """The findings as one line of JSON."""
    fast = _fast_for(len(findings) * _FINDING)
    if fast is not None:
        try:
            return fast.encode(findings)
        except (fast.error, UnicodeEncodeError):
            pass  # a text UTF-8 cannot carry (a file name's undecodable bytes): the standard library escapes it
    return json.dumps([f.to_dict() for f in findings], separators=(",", ":")).encode("ascii")


def headed(head: dict[str, Any], findings: Sequence[Finding]) -> bytes:
    """`head` as a line of JSON, then the findings' line: how the report and the base begin."""
    return json.dumps(head, separators=(",", ":")).encode("ascii") + b"\n" + encode(findings)


def read_headed(data: Any) -> tuple[dict[str, Any], int, int] | None:
    """(the head, where the findings' line starts and ends) of bytes (or a mapped file) that `headed` began; None
    when they do not begin so. The findings are not decoded: a reader first asks the head what they are of."""
    cut = data.find(b"\n")
    if cut < 0:
        return None
    end = data.find(b"\n", cut + 1)
    try:
        head = json.loads(data[:cut])
    except (ValueError, RecursionError):
        return None
    return (head, cut + 1, len(data) if end < 0 else end) if isinstance(head, dict) else None


def decode(data: bytes) -> list[Finding]:
    """The findings of a line `encode` wrote. Raises ValueError, TypeError, KeyError or RecursionError for
    what is no such line."""
    fast = _fast_for(len(data))
    if fast is not None:
        try:
            return fast.decode(data)
        except fast.error:
            pass  # what msgspec refuses (a lone surrogate, escaped) the standard library may read; or it fails too
    rows = json.loads(data)
    if not (isinstance(rows, list) and all(isinstance(row, dict) for row in rows)):
        raise ValueError("no list of findings")
    return [Finding.from_dict(row) for row in rows]
