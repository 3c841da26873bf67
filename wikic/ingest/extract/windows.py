"""A source cut into windows the model reads whole: overlapping chunks of whole lines, cut at a blank line
or a heading where possible, by the one token estimate. A line too long for a window is cut inside: after a
sentence, else at a space, else between characters. No window is over the budget, by that estimate. Data
URLs are left out first (`text.data_urls`: a pasted screenshot is megabytes of base64 on one line), each in
its place on its line, so the windows' line numbers are the source's. A window whose reply is cut off is
split in two."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from wikic.text.data_urls import without_data_urls
from wikic.text.tokens import estimate_tokens

MIN_SPLIT_TOKENS = 300  # below this a truncated chunk is not split again: the output cap is simply too low


@dataclass(frozen=True)
class Chunk:
    text: str
    start_line: int  # 1-based, inclusive, in the source text
    end_line: int
    index: int = 0  # 0-based position among the source's chunks
    count: int = 1


def split_chunks(text: str, *, max_tokens: int, overlap_tokens: int = 0) -> list[Chunk]:
    """Overlapping chunks of whole lines, cut at a blank line or heading where possible; a line longer than
    a chunk is cut into chunks of its own."""
    text = without_data_urls(text)
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    costs = [estimate_tokens(line) + 1 for line in lines]
    if sum(costs) <= max_tokens:
        return [Chunk(text, 1, max(1, len(lines)))]
    pieces: list[tuple[int, int, str]] = []  # (start line idx, end line idx exclusive, text)
    start = 0
    while start < len(lines):
        if costs[start] > max_tokens:
            # One enormous line (minified text, a table row): split it by characters.
            pieces.extend((start, start + 1, part) for part in _split_line(lines[start], max_tokens))
            start += 1
            continue
        end, used = start, 0
        while end < len(lines) and used + costs[end] <= max_tokens:
            used += costs[end]
            end += 1
        if end < len(lines):
            end = _good_cut(lines, start, end)
        pieces.append((start, end, "\n".join(lines[start:end]) + "\n"))
        if end >= len(lines):
            break
        back, overlap = end, 0
        while back > start + 1 and overlap + costs[back - 1] <= overlap_tokens:
            back -= 1
            overlap += costs[back]
        start = back
    count = len(pieces)
    return [Chunk(body, s + 1, e, i, count) for i, (s, e, body) in enumerate(pieces)]


def _good_cut(lines: list[str], start: int, end: int) -> int:
    """Move the cut back to just before a heading or after a blank line in the chunk's second half."""
    floor = start + max(1, (end - start) // 2)
    for i in range(end, floor, -1):
        if lines[i - 1].strip() == "" or (i < len(lines) and lines[i].lstrip().startswith("#")):
            return i
    return end


def _split_line(line: str, max_tokens: int) -> list[str]:
    """`line` in parts that each fit `max_tokens` with their newline: as many sentences as fit, a sentence
    too long by its words, a word too long (a CJK paragraph without punctuation, a minified blob) by slices."""
    budget = max_tokens - 1
    parts: list[str] = []
    current: list[str] = []
    used = 0

    def cut() -> None:
        nonlocal used
        if current:
            parts.extend(part + "\n" for part in _fitting("".join(current), budget))
            current.clear()
            used = 0

    def pack(text: str, cost: int, level: int) -> None:
        """Pack the units of `text`, whose estimate `cost` is over the budget, cut at `level` or finer."""
        nonlocal used
        units = list(_UNITS[level](text, cost, budget))
        if len(units) == 1 and level + 1 < len(_UNITS):
            pack(text, cost, level + 1)  # nothing to cut at here (one sentence, one word): finer
            return
        for unit in units:
            unit_cost = estimate_tokens(unit)
            if unit_cost > budget and level + 1 < len(_UNITS):
                cut()
                pack(unit, unit_cost, level + 1)
                continue
            if used + unit_cost > budget:
                cut()
            current.append(unit)
            used += unit_cost

    pack(line, estimate_tokens(line), 0)
    cut()
    return parts


def _fitting(text: str, budget: int) -> list[str]:
    """`text` whole when it fits, else in halves made to fit the same way. Parts cut at a sentence or a space
    fit as packed; slices of one word may not, as a word's estimate grows faster than its length."""
    if estimate_tokens(text) <= budget or len(text) < 2:
        return [text]
    middle = len(text) // 2
    return _fitting(text[:middle], budget) + _fitting(text[middle:], budget)


# A sentence's end with the space after it (which stays with the sentence), or a CJK full stop.
_SENTENCE_MARKS = ".!?…。！？"
_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]?\s+|[。！？]+")
SLICES_PER_WINDOW = 16  # a word longer than a window is cut in slices of about this share of it


def _sentences(text: str, cost: int, budget: int) -> Iterator[str]:
    if not any(mark in text for mark in _SENTENCE_MARKS):  # a plain search, much faster than the pattern's
        yield text
        return
    start = 0
    for match in _SENTENCE_END.finditer(text):
        yield text[start : match.end()]
        start = match.end()
    if start < len(text):
        yield text[start:]


def _words(text: str, cost: int, budget: int) -> Iterator[str]:
    """Runs of whole words (with the spaces after them) of at most half the budget in characters, which is at
    most 2/3 of it in tokens, or else one word; estimating them word by word cost more than the packing."""
    run = re.compile(rf".{{1,{max(1, budget // 2)}}}(?:\s+|$)|\S+\s*|\s+")
    return (match.group() for match in run.finditer(text))


def _slices(text: str, cost: int, budget: int) -> Iterator[str]:
    """Slices of a word longer than the budget, each about 1/SLICES_PER_WINDOW of it by the word's own
    density of tokens."""
    step = max(1, len(text) * budget // (SLICES_PER_WINDOW * max(1, cost)))
    return (text[i : i + step] for i in range(0, len(text), step))


def _characters(text: str, cost: int, budget: int) -> Iterator[str]:
    return iter(text)


_UNITS = (_sentences, _words, _slices, _characters)


def halves(chunk: Chunk) -> tuple[Chunk, Chunk] | None:
    if estimate_tokens(chunk.text) < MIN_SPLIT_TOKENS:
        return None
    lines = chunk.text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) < 2:
        return None
    mid = _good_cut(lines, len(lines) // 4, len(lines) // 2 + len(lines) // 4) if len(lines) > 3 else len(lines) // 2
    first = Chunk("\n".join(lines[:mid]) + "\n", chunk.start_line, chunk.start_line + mid - 1, chunk.index, chunk.count)
    second = Chunk("\n".join(lines[mid:]) + "\n", chunk.start_line + mid, chunk.end_line, chunk.index, chunk.count)
    return first, second
