"""Inline code spans, as CommonMark reads them: a run of backticks closed by the next run of the same length on
the same line (``` ``a`b`` ``` holds "a`b"). What is inside one is shown as written: no link, emphasis or
sentence end is read there."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator

_TICKS = re.compile(r"`+")


def code_spans(text: str) -> Iterator[tuple[int, int]]:
    """The (start, end) offsets of each code span of `text`, backticks included, in order."""
    if "`" not in text:
        return
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(text)]
    i = 0
    while i < len(runs):
        start, after = runs[i]
        width = after - start
        line_end = text.find("\n", after)
        line_end = len(text) if line_end < 0 else line_end
        j = i + 1
        while j < len(runs) and runs[j][0] < line_end and runs[j][1] - runs[j][0] != width:
            j += 1
        if j < len(runs) and runs[j][0] < line_end:
            yield start, runs[j][1]
            i = j + 1
        else:
            i += 1  # no closer on its line: the backticks are text


def outside_code(text: str, change: Callable[[str], str]) -> str:
    """`text` with `change` applied to each stretch between its code spans; the spans kept as written."""
    return _rebuilt(text, change, lambda code: code)


def blank_code(text: str) -> str:
    """`text` with each code span blanked to spaces of its width (offsets kept)."""
    return _rebuilt(text, lambda part: part, lambda code: " " * len(code))


def _rebuilt(text: str, outside: Callable[[str], str], inside: Callable[[str], str]) -> str:
    out, last = [], 0
    for start, end in code_spans(text):
        out += [outside(text[last:start]), inside(text[start:end])]
        last = end
    out.append(outside(text[last:]))
    return "".join(out)


class CodeSpans:
    """The code spans of one text, asked where an offset falls."""

    def __init__(self, text: str) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []
        for start, end in code_spans(text):
            self._starts.append(start)
            self._ends.append(end)

    def around(self, offset: int) -> tuple[int, int] | None:
        """The span holding `offset` (after its opening backticks, before its closing ones' end), or None."""
        at = bisect.bisect_right(self._starts, offset) - 1
        if at >= 0 and self._starts[at] < offset < self._ends[at]:
            return self._starts[at], self._ends[at]
        return None
