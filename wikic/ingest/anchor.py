"""Find each fact's verbatim quote in the source and record where it is (`raw/articles/x.md:L12-L14`).

Matching is on word sequences, not characters: both the source and the quote are cut into words (letters
and digits; each Han or kana character is a word of its own), folded (NFKC, case) and compared as
sequences (`wikic.text.terms.words`). So whitespace and line breaks, case, curly vs straight quotes, dashes,
and Markdown emphasis (`**`, `_`, backticks) never prevent a match, while a changed word, number or name
always does. Markdown link targets are blanked first, so "[OpenAI](https://openai.com) released" matches
"OpenAI released". A quote that elides with "..." matches when its parts occur in order, close together.

The index is built once per source (one pass over the text); each lookup is a substring search in the
joined word string, so a 1 MB source with hundreds of quotes takes well under a second.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable

from wikic.ingest.plan_model import (
    Anchor,
    Axis,
    Cell,
    Comparison,
    Concept,
    Entity,
    Fact,
    Plan,
    Relation,
    Section,
)
from wikic.text.terms import words
# Link targets and autolinks are markup, not text a quote would contain.
_LINK_TARGET = re.compile(r"\]\([^)\n]*\)|<https?://[^>\s]*>")
_ELLIPSIS = re.compile(r"\[?(?:\.\s*\.\s*\.|…)\]?")

MIN_WORDS = 2  # a one-word "quote" would anchor almost anywhere and support nothing
MAX_GAP_WORDS = 250  # how far apart the parts of an elided quote may be


def quote_words(quote: str) -> list[list[str]]:
    """The quote as word lists, one per part between ellipses."""
    parts = []
    for part in _ELLIPSIS.split(quote):
        found = [word for word, _, _ in words(part)]
        if found:
            parts.append(found)
    return parts


class AnchorIndex:
    """One source text, ready for quote lookups. `text` must be the text of the file at `path`."""

    def __init__(self, text: str, path: str) -> None:
        self.path = path
        blanked = _LINK_TARGET.sub(lambda m: " " * len(m.group()), text)
        folded: list[str] = []
        self._starts: list[int] = []
        self._ends: list[int] = []
        for word, start, end in words(blanked):
            folded.append(word)
            self._starts.append(start)
            self._ends.append(end)
        # " w0 w1 w2 ": a quote matches at word boundaries as " q0 q1 ".
        self._joined = " " + " ".join(folded) + " "
        self._word_pos: list[int] = []
        pos = 0
        for word in folded:
            self._word_pos.append(pos)
            pos += len(word) + 1
        self._newlines = [m.start() for m in re.finditer("\n", text)]

    def locate(self, quote: str) -> Anchor | None:
        """The line range of `quote` in the text, or None if it is not there (verbatim, modulo folding)."""
        parts = quote_words(quote)
        if sum(len(p) for p in parts) < MIN_WORDS:
            return None
        first, rest = parts[0], parts[1:]
        needle = " " + " ".join(first) + " "
        at = self._joined.find(needle)
        while at != -1:
            start_word = bisect.bisect_left(self._word_pos, at)
            end_word = self._follow(start_word + len(first), rest)
            if end_word is not None:
                return self._anchor(start_word, end_word)
            at = self._joined.find(needle, at + 1)
        return None

    def _follow(self, after: int, rest: list[list[str]]) -> int | None:
        """Index of the last word once every remaining part is found in order, each within the gap limit."""
        last = after - 1
        for part in rest:
            needle = " " + " ".join(part) + " "
            lo = self._word_pos[after] if after < len(self._word_pos) else len(self._joined)
            limit = after + MAX_GAP_WORDS
            hi = self._word_pos[limit] if limit < len(self._word_pos) else len(self._joined)
            at = self._joined.find(needle, lo, hi + len(needle))
            if at == -1:
                return None
            found = bisect.bisect_left(self._word_pos, at)
            after = found + len(part)
            last = after - 1
        return last

    def _anchor(self, first_word: int, last_word: int) -> Anchor:
        start_line = bisect.bisect_left(self._newlines, self._starts[first_word]) + 1
        end_line = bisect.bisect_left(self._newlines, self._ends[last_word] - 1) + 1
        return Anchor(self.path, start_line, end_line)


def anchor_plan(plan: Plan, text: str) -> Plan:
    """`plan` with every fact's anchor looked up in `text` (the content of `plan.source_path`)."""
    index = AnchorIndex(text, plan.source_path)
    memo: dict[str, Anchor | None] = {}

    def fact(f: Fact) -> Fact:
        if f.quote not in memo:
            memo[f.quote] = index.locate(f.quote)
        return Fact(f.text, f.quote, memo[f.quote])

    def facts(items: Iterable[Fact]) -> tuple[Fact, ...]:
        return tuple(fact(f) for f in items)

    entities = tuple(Entity(e.name, e.kind, e.aliases, e.summary, facts(e.facts)) for e in plan.entities)
    concepts = tuple(
        Concept(c.name, c.summary, tuple(Section(s.heading, facts(s.facts)) for s in c.sections)) for c in plan.concepts
    )
    comparisons = tuple(
        Comparison(
            c.name,
            c.subjects,
            tuple(Axis(a.axis, tuple(Cell(cell.subject, fact(cell.fact)) for cell in a.values)) for a in c.axes),
        )
        for c in plan.comparisons
    )
    relations = tuple(Relation(r.source, r.relation, r.target, fact(r.fact)) for r in plan.relations)
    return Plan(plan.source_path, plan.summary, entities, concepts, comparisons, relations, plan.notes)
