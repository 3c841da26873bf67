"""Where sentences end, in English and in CJK text: the one sentence splitter.

A sentence ends after `.`, `!` or `?` followed by white space (a closing quote or bracket may come between),
after a full-width `。！？；` (CJK writes no space after them), at a blank line, and before a line that opens
a list item, a heading, a quote or a table row (Markdown lines that are statements of their own). A period
after a common abbreviation ("e.g.", "Dr.") or a list item's number ("1.") ends nothing, nor does one inside
a number or a version ("40.5", "v2.1"): no white space follows it. A parenthesis right after a sentence, on
its line, belongs to that sentence ("... in 2021. (as of 2024-05)").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_BREAK = re.compile(
    r"(?<=[.!?])\s+"
    r"|(?<=[.!?][\"'”’)\]])\s+"
    r"|(?<=[。！？；])[ \t]*"
    r"|\n[ \t]*\n\s*"
    r"|\n(?=[ \t]*(?:[-*+#>|]|\d{1,3}[.)][ \t]))"
)
# Abbreviations whose period is not a sentence's end (folded, without their last period).
_ABBREVIATIONS = frozenset("e.g i.e cf vs dr mr mrs prof fig approx".split())
_LAST_WORD = re.compile(r"([^\W\d_][\w.]*)\.[\"'”’)\]]?$")
_LIST_NUMBER = re.compile(r"(?:^|\n)[ \t]*\d{1,3}\.$")  # "1. first": the number of a list item


def sentence_breaks(text: str) -> Iterator[tuple[int, int]]:
    """(end of one sentence, start of the next) for each break in `text`, in order."""
    for match in _BREAK.finditer(text):
        if match.end() == len(text):
            continue
        before = _LAST_WORD.search(text, max(0, match.start() - 12), match.start())
        if before is not None and before.group(1).casefold() in _ABBREVIATIONS:
            continue
        if _LIST_NUMBER.search(text, max(0, match.start() - 8), match.start()):
            continue
        if text.startswith("(", match.end()) and "\n" not in text[match.start() : match.end()]:
            continue  # "... in 2021. (as of 2024-05)": a parenthesis after a sentence belongs to it
        yield match.start(), match.end()


def sentence_spans(text: str, *, cased: bool = False) -> list[tuple[int, int]]:
    """(start, end) of each sentence of `text`, white space around it left out; empty ones dropped. `cased`:
    a sentence on the same line as the one before starts with no lower-case letter, so a period no list of
    abbreviations knows ends nothing before one ("Acme Inc. is based in Oslo", "a U.S. company")."""
    spans: list[tuple[int, int]] = []
    start = 0
    for end, following in [*sentence_breaks(text), (len(text), len(text))]:
        if cased and text[following : following + 1].islower() and "\n" not in text[end:following]:
            continue
        piece = text[start:end]
        lead = len(piece) - len(piece.lstrip())
        trail = len(piece.rstrip())
        if trail > lead:
            spans.append((start + lead, start + trail))
        start = following
    return spans


def sentences(text: str) -> list[str]:
    """The sentences of `text`, in order."""
    return [text[a:b] for a, b in sentence_spans(text)]
