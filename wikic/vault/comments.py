"""The comments of a piece of text that hide what they hold: `<!-- ... -->` and Obsidian's `%% ... %%`.

What the readers of a page's plain text take them out with (lint's page rules, a page's lead): each comment
runs from its opener to the first closer after it, as the lazy pattern `<!--.*?-->|%%.*?%%` finds them from
left to right, and an opener with no closer is text. Found in one pass: that pattern looks for a closer to
the end of the line from every opener it tries, so a line of 50,000 unclosed `<!--` takes minutes.
"""

from __future__ import annotations

from collections.abc import Callable

_KINDS = (("<!--", "-->"), ("%%", "%%"))


def comment_spans(text: str, *, across_lines: bool = False) -> list[tuple[int, int]]:
    """(start, end) of each comment of `text`, in order: closed on its opener's line, or anywhere after it when
    `across_lines`."""
    if "<!--" not in text and "%%" not in text:
        return []
    spans: list[tuple[int, int]] = []
    size = len(text)
    openers = [text.find(opener) for opener, _ in _KINDS]  # the next opener of each kind at or after `pos`
    dead = [-1, -1]  # an opener of that kind before this offset has no closer: neither has a later one
    line_end = -1  # the end of the line `pos` is on (the text's end when `across_lines`)
    pos = 0
    while True:
        for kind, (opener, _) in enumerate(_KINDS):
            if 0 <= openers[kind] < max(pos, dead[kind]):
                openers[kind] = text.find(opener, max(pos, dead[kind]))
        live = [at for at in openers if at >= 0]
        if not live:
            return spans
        at = min(live)
        kind = openers.index(at)
        opener, closer = _KINDS[kind]
        if at > line_end:
            line_end = size if across_lines else (text.find("\n", at) + 1 or size + 1) - 1
        close = text.find(closer, at + len(opener), line_end)
        if close < 0:
            dead[kind] = line_end  # the closer is looked for once a line, however many openers it holds
            continue
        spans.append((at, close + len(closer)))
        pos = close + len(closer)


def replace_comments(text: str, fill: Callable[[int], str], *, across_lines: bool = False) -> str:
    """`text` with each comment (`comment_spans`) replaced by `fill` of its width."""
    spans = comment_spans(text, across_lines=across_lines)
    if not spans:
        return text
    pieces: list[str] = []
    done = 0
    for start, end in spans:
        pieces += (text[done:start], fill(end - start))
        done = end
    pieces.append(text[done:])
    return "".join(pieces)
