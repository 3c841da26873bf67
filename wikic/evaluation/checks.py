"""Each figure of a page, worked out by one small function: from the page alone (its prose sentences and the
anchors after them, its claims, its sections against the layout), then against `raw/` as it is now (each
anchor's lines, and the specifics its quotes state).

A page is read as lint's page rules read it (`lint/page_text.py`): what a sentence is, which anchors carry
it, and what code, comments and the Claims callout hide are theirs.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from wikic.lint.page_text import PageText, Statement
from wikic.text.support import unsupported
from wikic.vault.formats.anchors import ANCHOR, Cited, find_anchors, parse_spec
from wikic.vault.formats.claims import plain_text
from wikic.vault.page_layout import Layout

# a raw source as it is now, and what capture recorded of each: kept here under their names for eval's modules
from wikic.vault.raw_source import RawFile as RawFile, expected_sha256 as expected_sha256

# the anchors written right after a sentence, before the next one starts
_ANCHORS_AFTER = re.compile(rf"(?:[ \t]*\n?[ \t]*(?:{ANCHOR.pattern}))+")
# the compiler blocks of a layout's sections: a section holding another of wikic's blocks (memories, the
# pages it was asked about, relations, a comparison's table) is one wikic writes beside the layout
_LAYOUT_BLOCKS = ("section:", "facts:")


@dataclass(frozen=True)
class Said:
    """A claim or a cited sentence: its words (anchors, links and block id aside) and the anchors it cites."""

    text: str
    cited: tuple[str, ...]  # each anchor as `raw/x.md:L3-L5`
    claim: bool


def prose(page: PageText, keep: Collection[int] = ()) -> tuple[int, list[Statement]]:
    """How many prose sentences the page's body holds (paragraphs' sentences, not list items, quotes and
    callouts (the Claims callout is one), headings, tables, code or comments), and those of them an anchor
    carries or on a line of `keep`."""
    return page.prose(page.body_start, len(page.lines), keep)


def anchors_after(page: PageText, sentence: Statement) -> list[Cited]:
    """The anchors that carry `sentence`: those written right after it."""
    if not sentence.cited:
        return []
    starts = _line_starts(page)
    begin = starts[sentence.line - 1] + sentence.column - 1
    last = sentence.text.rsplit("\n", 1)[-1]
    at = page.text.find(last, begin)
    if at < 0:
        return []
    found = _ANCHORS_AFTER.match(page.text, at + len(last))
    return [cited for _, cited in find_anchors(found.group())] if found else []


def _line_starts(page: PageText) -> list[int]:
    starts: list[int] | None = page.__dict__.get("_eval_line_starts")
    if starts is None:
        starts = [0]
        for line in page.lines[:-1]:
            starts.append(starts[-1] + len(line) + 1)
        page.__dict__["_eval_line_starts"] = starts
    return starts


def said(page: PageText) -> tuple[int, int, int, int, list[Said]]:
    """(prose sentences, of them cited, claims, of them anchored, and the claims and cited sentences with
    their anchors): what the anchors and specifics are checked on."""
    out: list[Said] = []
    claims = page.claims
    claim_lines = {claim.line for claim in claims if claim.line is not None}
    count, sentences = prose(page, claim_lines)
    cited = 0
    for sentence in sentences:
        if sentence.line in claim_lines:
            # a claim written as a paragraph (a lead that is a claim): its anchors cover each of its sentences,
            # and it is checked once, as the claim it is
            cited += 1
        elif sentence.cited:
            cited += 1
            after = anchors_after(page, sentence)
            if after:
                out.append(Said(plain_text(sentence.text), tuple(a.spec for a in after), claim=False))
    anchored = 0
    for claim in claims:
        anchors = tuple(cited.spec for _, cited in find_anchors(claim.anchor))
        if anchors:
            anchored += 1
            out.append(Said(plain_text(claim.text), anchors, claim=True))
    return count, cited, len(claims), anchored, out


def sections_in_layout(page: PageText, layout: Layout) -> tuple[int, int]:
    """(`##` sections, those meeting the layout): a section of the layout, after the layout's sections before
    it, or a section holding one of wikic's own blocks beside the layout (memories, "Asked about")."""
    meeting, reached = 0, -1
    begins = [b.begin for b in page.blocks]
    for section in page.sections:
        named = _named(layout, section.heading)
        if named is not None:
            at = layout.sections.index(named)
            if at > reached:
                meeting += 1
                reached = at
            continue
        first = bisect.bisect_right(begins, section.line)
        block = page.blocks[first] if first < len(page.blocks) else None
        if block is not None and block.begin <= section.end and not block.key.startswith(_LAYOUT_BLOCKS):
            meeting += 1
    return len(page.sections), meeting


# the same few headings open most pages' sections
_named = lru_cache(maxsize=1024)(Layout.named)


def cited_paths(statements: Iterable[Said]) -> list[str]:
    """The raw files `statements` cite, each once, in order."""
    paths = (cited.path for s in statements for spec in s.cited if (cited := parse_spec(spec)) is not None)
    return sorted(set(paths))


def anchors_holding(statements: Iterable[Said], raw: dict[str, RawFile]) -> tuple[int, int]:
    """(anchors, those holding): an anchor holds when its source is still what was captured and its lines
    are still there."""
    anchors = holding = 0
    for statement in statements:
        for spec in statement.cited:
            anchors += 1
            cited, source = _source(spec, raw)
            if cited is not None and source is not None and source.holds(cited):
                holding += 1
    return anchors, holding


def specifics_stated(statements: Iterable[Said], raw: dict[str, RawFile], names: Sequence[str]) -> tuple[int, int]:
    """(statements checked, those whose numbers, dates, versions and names their quotes state): the check
    ingest makes of a claim at write time (`text/support.py`), made again against `raw/` as it is now. A
    statement none of whose quotes is there is checked and not stated."""
    checked = stated = 0
    for statement in statements:
        quotes: list[str] = []
        lexicon: str | None = None
        for spec in statement.cited:
            cited, source = _source(spec, raw)
            quote = source.quote(cited) if cited is not None and source is not None else None
            if quote is not None and source is not None:
                quotes.append(quote)
                lexicon = lexicon or source.text
        checked += 1
        if quotes and not unsupported(statement.text, "\n".join(quotes), subject_names=names, source=lexicon):
            stated += 1
    return checked, stated


def _source(spec: str, raw: dict[str, RawFile]) -> tuple[Cited | None, RawFile | None]:
    cited = parse_spec(spec)
    return cited, (raw.get(cited.path) if cited is not None else None)
