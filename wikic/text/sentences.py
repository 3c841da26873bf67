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

# The pattern opens with one set of the characters a sentence may break after (its punctuation, a newline),
# so the regex engine jumps between them instead of trying every offset; the alternatives then look behind
# at which one it was. The break is the group of the first two alternatives, the whole match of the others.
_BREAK = re.compile(
    r"[.!?。！？；\n]"
    r"(?:(?<=[.!?])[\"'”’)\]]?(\s+)"
    r"|(?<=[。！？；])([ \t]*)"
    r"|(?<=\n)([ \t]*\n\s*)"
    r"|(?<=\n)()(?=[ \t]*(?:[-*+#>|]|\d{1,3}[.)][ \t])))"
)
# Abbreviations whose period is not a sentence's end (folded, without their last period).
_ABBREVIATIONS = frozenset("e.g i.e cf vs dr mr mrs prof fig approx".split())
_LAST_WORD = re.compile(r"([^\W\d_][\w.]*)\.[\"'”’)\]]?$")
_LIST_NUMBER = re.compile(r"(?:^|\n)[ \t]*\d{1,3}\.$")  # "1. first": the number of a list item
_CLOSERS = frozenset("\"'”’)]")  # what may stand between a sentence's period and the white space after it
_ABBREVIATION_ENDS = frozenset(word[-1] for word in _ABBREVIATIONS)
WORDY = re.compile(r"[^\W_]")  # what a sentence holds to be one: a letter or a digit
# ASCII prose whose every break is a period after a letter (no abbreviation's) and white space before what is
# neither a lower-case letter nor a parenthesis; whose other `.!?` are inside a word, a number or a path (or an
# embed's `![[`), before a parenthesis on their line, or at its end; and whose other newlines open no list item,
# heading, quote or table row and no blank line. What most paragraphs are, told by one pattern.
_PLAIN_PROSE = re.compile(
    r"(?:[^.!?\n]++"
    r"|(?:(?<=[A-Za-z])(?<![" + "".join(sorted(_ABBREVIATION_ENDS | {e.upper() for e in _ABBREVIATION_ENDS})) + "])"
    r"|(?<=[" + "".join(sorted(_ABBREVIATION_ENDS | {e.upper() for e in _ABBREVIATION_ENDS})) + "])"
    + "".join("(?<!" + "".join(f"[{c}{c.upper()}]" if c.isalpha() else re.escape(c) for c in word) + ")"
              for word in sorted(_ABBREVIATIONS))
    + r")\.\s++(?=[^\sa-z(])"
    r"|[.!?](?![\s\"')\]])"
    r"|\.[ \t]++(?=\()"
    r"|\.\s*+\Z"
    r"|\n(?![ \t]*(?:\n|[-*+#>|]|\d{1,3}[.)][ \t])))*+"
)
_PLAIN_BREAK = re.compile(r"\.\s+(?=[^\sa-z(])")  # in such prose, where each sentence but its first starts
_LAST_HOLDS_NONE = re.compile(r"\.\s+[^\s(A-Za-z0-9][^A-Za-z0-9]*\Z")  # and the last sentence holds no letter or digit


def sentence_breaks(text: str) -> Iterator[tuple[int, int]]:
    """(end of one sentence, start of the next) for each break in `text`, in order."""
    return iter(_breaks(text))


def _breaks(text: str) -> list[tuple[int, int]]:
    # Each check below first looks at the characters before the break, which decide whether its pattern can
    # match at all: most breaks follow a word no abbreviation ends with, and no digit.
    out: list[tuple[int, int]] = []
    size = len(text)
    for match in _BREAK.finditer(text):
        group = match.lastindex or 0
        start, end = match.span(group) if group <= 2 else match.span()
        if end == size:
            continue
        period = start - 1 if text[start - 1 : start] == "." else \
            start - 2 if text[start - 1 : start] in _CLOSERS and text[start - 2 : start - 1] == "." else -1
        if period > 0:
            last = text[period - 1].casefold()[-1:]
            if last in _ABBREVIATION_ENDS:
                before = _LAST_WORD.search(text, max(0, start - 12), start)
                if before is not None and before.group(1).casefold() in _ABBREVIATIONS:
                    continue
            elif period == start - 1 and last.isdecimal() and \
                    _LIST_NUMBER.search(text, max(0, start - 8), start):
                continue
        if text.startswith("(", end) and "\n" not in text[start:end]:
            continue  # "... in 2021. (as of 2024-05)": a parenthesis after a sentence belongs to it
        out.append((start, end))
    return out


def sentence_spans(text: str, *, cased: bool = False) -> list[tuple[int, int]]:
    """(start, end) of each sentence of `text`, white space around it left out; empty ones dropped. `cased`:
    a sentence on the same line as the one before starts with no lower-case letter, so a period no list of
    abbreviations knows ends nothing before one ("Acme Inc. is based in Oslo", "a U.S. company")."""
    spans: list[tuple[int, int]] = []
    start = 0
    breaks = _breaks(text)
    breaks.append((len(text), len(text)))
    for end, following in breaks:
        if cased and text[following : following + 1].islower() and "\n" not in text[end:following]:
            continue
        first, last = start, end
        while first < last and text[first].isspace():
            first += 1
        while last > first and text[last - 1].isspace():
            last -= 1
        if last > first:
            spans.append((first, last))
        start = following
    return spans


def sentence_count(text: str, *, cased: bool = False) -> int:
    """How many sentences `sentence_spans` finds in `text` that hold a letter or a digit, without making them:
    a page's sentences are mostly only counted."""
    if text.isascii() and _PLAIN_PROSE.fullmatch(text) is not None:
        # each sentence before a break ends in a letter: the last, after them all, may hold none
        plain = len(_PLAIN_BREAK.findall(text))
        if not plain:
            return int(WORDY.search(text) is not None)
        return plain + (_LAST_HOLDS_NONE.search(text) is None)
    count = start = 0
    breaks = _breaks(text)
    breaks.append((len(text), len(text)))
    for end, following in breaks:
        if cased and text[following : following + 1].islower() and "\n" not in text[end:following]:
            continue
        if WORDY.search(text, start, end) is not None:  # none in the white space around a sentence
            count += 1
        start = following
    return count


def sentences(text: str) -> list[str]:
    """The sentences of `text`, in order."""
    return [text[a:b] for a, b in sentence_spans(text)]
