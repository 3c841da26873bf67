"""A wiki page as the page-quality rules read it: its title, `##` sections and compiler blocks, each with its
line in the file, and the statements (sentences and list items) of any stretch of lines, each with whether an
anchor carries it.

A statement is one list item (a claim is one item, however many sentences its text has: its anchors cover
it), or one sentence of a paragraph (`wikic/text/sentences.py` says where sentences end). A sentence is
carried by the anchors written right after it, before the next sentence starts: in "A. B. ^[x]" only B is.
Code, comments (`<!-- -->`, `%% %%`), headings, table rows, rules and callout titles (`> [!quote]- Claims`)
are no statements; a quote's or callout's lines are read without their `>`.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import cached_property

from wikic.facts.claims import CLAIMS_KEY, Claim, scan
from wikic.facts.timeline import HISTORY_KEY
from wikic.text.sentences import sentence_spans
from wikic.vault.anchors import ANCHOR
from wikic.vault.markers import BEGIN, MARKER_LINE, end_line
from wikic.vault.model import Note
from wikic.vault.page_layout import LEAD_BLOCK

# Blocks whose text is the compiler's statements under a page's sections: a layout section's block
# (`section:key-facts`, `section:key-facts:more`), History, and an earlier version's per-source blocks
# (`facts:<source>`, `section:<name>:<source>`).
_SECTION_BLOCKS = ("section:", "facts:")
# Blocks only the compiler writes from a page's claims: a page holding one is a compiled page.
_COMPILED = (LEAD_BLOCK, HISTORY_KEY, CLAIMS_KEY)

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_QUOTE = re.compile(r"^ {0,3}>[ \t]?")
_CALLOUT_TITLE = re.compile(r"^\[![^\]\n]+\][+-]?")
_HEADING = re.compile(r"^#{1,6}(?:[ \t]|$)")
_RULE = re.compile(r"^([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_ITEM = re.compile(r"^(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[.\][ \t]+)?")
_INLINE_HIDDEN = re.compile(r"<!--.*?-->|%%.*?%%")
_BLOCK_ID = re.compile(r"(?<!\S)\^[A-Za-z0-9-]+[ \t]*$")
_WORDY = re.compile(r"[^\W_]")


@dataclass(frozen=True)
class Section:
    heading: str
    line: int  # its `##` heading
    end: int  # its last line: the line before the next `#` or `##` heading, or the page's last


@dataclass(frozen=True)
class Block:
    key: str
    begin: int  # its begin marker's line
    end: int  # its end marker's line

    @property
    def holds_statements(self) -> bool:
        """A block of the text the compiler writes under a section (not a lead, relations, tables, memories)."""
        return self.key == HISTORY_KEY or self.key.startswith(_SECTION_BLOCKS)


@dataclass(frozen=True)
class Statement:
    line: int
    column: int
    text: str
    cited: bool
    kind: str  # ITEM, QUOTED (a sentence of a quote or callout) or SENTENCE (of a paragraph)


ITEM, QUOTED, SENTENCE = "item", "quoted", "sentence"


class PageText:
    """One page's lines (numbered as in the file, frontmatter included) and what the rules look for in them."""

    def __init__(self, text: str, note: Note) -> None:
        self.lines = text.split("\n")
        self.body_start = note.frontmatter_lines + 1
        self.hidden = _hidden_lines(self.lines, self.body_start)
        self.blocks = _blocks(self.lines, self.body_start)
        headings = [h for h in note.headings if h.level <= 2]
        first = next(iter(note.headings), None)
        # the title: a `#` heading before anything else of the body
        self.title = (
            first.line
            if first is not None and first.level == 1
            and not any(self.lines[n - 1].strip() for n in range(self.body_start, first.line))
            else None
        )
        self.sections = [
            Section(h.text, h.line, (headings[i + 1].line - 1 if i + 1 < len(headings) else len(self.lines)))
            for i, h in enumerate(headings)
            if h.level == 2
        ]

    @property
    def compiled(self) -> bool:
        """Written by the compiler: it holds a lead, section, History or claims block."""
        return any(b.key in _COMPILED or b.holds_statements for b in self.blocks)

    @cached_property
    def claims(self) -> list[Claim]:
        """Every claim line of the page, with its line number (`wikic/facts/claims.py`)."""
        return scan("\n".join(self.lines))

    def block_at(self, line: int) -> Block | None:
        return next((b for b in self.blocks if b.begin <= line <= b.end), None)

    def in_section(self, section: Section, line: int | None) -> bool:
        return line is not None and section.line < line <= section.end

    def lead_block(self) -> Block | None:
        return next((b for b in self.blocks if b.key == LEAD_BLOCK), None)

    def shown(self, line: int) -> bool:
        """Line `line` holds text a reader sees: not blank, a marker, code or only comments."""
        text = self.lines[line - 1]
        return line not in self.hidden and not MARKER_LINE.match(text) and bool(_INLINE_HIDDEN.sub("", text).strip())

    def has_text(self, first: int, last: int) -> bool:
        return any(self.shown(n) for n in range(first, last + 1))

    def statements(self, first: int, last: int) -> list[Statement]:
        """The statements of lines `first` to `last` (inclusive), in order."""
        out: list[Statement] = []
        paragraph: list[tuple[int, int, str]] = []  # (line, column of its text, text)
        quoted = False  # the paragraph is a quote's

        def flush() -> None:
            if paragraph:
                out.extend(_sentences(paragraph, QUOTED if quoted else SENTENCE))
                paragraph.clear()

        for n in range(max(first, self.body_start), min(last, len(self.lines)) + 1):
            raw = self.lines[n - 1]
            if n in self.hidden or MARKER_LINE.match(raw):
                flush()
                continue
            at = len(raw) - len(raw.lstrip(" \t"))
            indent = at
            while (quote := _QUOTE.match(raw, at)) is not None:
                at = quote.end()
            if (at > indent) != quoted:
                flush()
                quoted = at > indent
            rest = raw[at:].rstrip()
            if not rest.strip() or _CALLOUT_TITLE.match(rest) or _HEADING.match(rest) or rest.startswith("|") or \
                    _RULE.match(rest):
                flush()
                continue
            item = _ITEM.match(rest)
            if item is not None:
                flush()
                text = _visible(rest[item.end():])
                if _WORDY.search(ANCHOR.sub("", text)):
                    out.append(Statement(n, at + item.end() + 1 + len(text) - len(text.lstrip()), text.strip(),
                                         ANCHOR.search(text) is not None, ITEM))
                continue
            paragraph.append((n, at + 1, rest))
        flush()
        return out


def _visible(text: str) -> str:
    """`text` without inline comments and a trailing block id, each replaced by spaces (columns stay)."""
    text = _INLINE_HIDDEN.sub(lambda m: " " * len(m.group()), text)
    return _BLOCK_ID.sub(lambda m: " " * len(m.group()), text)


def _sentences(paragraph: list[tuple[int, int, str]], kind: str) -> list[Statement]:
    """The sentences of a paragraph (its lines joined), each carried or not by the anchors right after it."""
    starts: list[int] = []
    parts: list[str] = []
    at = 0
    for _, _, text in paragraph:
        starts.append(at)
        visible = _visible(text)
        parts.append(visible)
        at += len(visible) + 1
    joined = "\n".join(parts)
    anchors = list(ANCHOR.finditer(joined))
    # the text before each anchor, carried by it, then the text after the last one, carried by none
    ends = [0, *(a.end() for a in anchors)]
    stretches = [(ends[i], a.start(), True) for i, a in enumerate(anchors)] + [(ends[-1], len(joined), False)]
    out: list[Statement] = []
    for begin, end, anchored in stretches:
        spans = [(a, b) for a, b in sentence_spans(joined[begin:end]) if _WORDY.search(joined[begin + a : begin + b])]
        for i, (a, b) in enumerate(spans):
            offset = begin + a
            row = bisect.bisect_right(starts, offset) - 1
            line, column, _ = paragraph[row]
            out.append(Statement(line, column + offset - starts[row], joined[offset : begin + b],
                                 anchored and i == len(spans) - 1, kind))
    return out


def _hidden_lines(lines: list[str], body_start: int) -> frozenset[int]:
    """Lines inside fenced code, or inside an HTML or `%%` comment that spans lines (the `claims` block)."""
    hidden: set[int] = set()
    fence: str | None = None
    closing: str | None = None  # the end of the comment a line opened
    for n in range(body_start, len(lines) + 1):
        line = lines[n - 1]
        if fence is not None:
            hidden.add(n)
            m = _FENCE.match(line)
            if m is not None and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and \
                    not line.strip()[len(m.group(1)):].strip():
                fence = None
            continue
        if closing is not None:
            hidden.add(n)
            if closing in line:
                closing = None
            continue
        m = _FENCE.match(line)
        if m is not None:
            fence = m.group(1)
            hidden.add(n)
            continue
        rest = _INLINE_HIDDEN.sub("", line)
        for opener, closer in (("<!--", "-->"), ("%%", "%%")):
            if opener in rest:
                hidden.add(n)
                closing = closer
                break
    return frozenset(hidden)


def _blocks(lines: list[str], body_start: int) -> list[Block]:
    """The compiler blocks of the page: each begin marker with the end marker of its key after it (a block
    with no end is a person's text, as the compiler reads it)."""
    out: list[Block] = []
    n = body_start
    while n <= len(lines):
        m = BEGIN.match(lines[n - 1])
        if m is not None:
            close = end_line(m.group(1))
            end = next((k for k in range(n + 1, len(lines) + 1) if lines[k - 1] == close), None)
            if end is not None:
                out.append(Block(m.group(1), n, end))
                n = end + 1
                continue
        n += 1
    return out
