"""A source cut into windows the model reads whole: overlapping chunks of whole lines, cut at a blank line
or a heading where possible, by the one token estimate. A window whose reply is cut off is split in two."""

from __future__ import annotations

import re
from dataclasses import dataclass

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
    """Overlapping chunks of whole lines, cut at a blank line or heading where possible."""
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
    parts: list[str] = []
    current: list[str] = []
    used = 0
    for word in re.split(r"(?<=\s)", line):
        cost = estimate_tokens(word)
        if used + cost > max_tokens and current:
            parts.append("".join(current) + "\n")
            current, used = [], 0
        current.append(word)
        used += cost
    if current:
        parts.append("".join(current) + "\n")
    return parts


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
