"""A wiki page as the page-quality rules read it: its title, `##` sections and compiler blocks, each with its
line in the file, and the statements (sentences and list items) of any stretch of lines, each with whether an
anchor carries it.

A statement is one list item (a claim is one item, however many sentences its text has: its anchors cover
it), or one sentence of a paragraph (`wikic/text/sentences.py` says where sentences end; one on the line of
the sentence before does not start in lower case: "Acme Inc. is based in Oslo" is one). A sentence is
carried by the anchors written right after it, before the next sentence starts: in "A. B. ^[x]" only B is.
Code, comments (`<!-- -->`, `%% %%`), headings, table rows, rules and callout titles (`> [!quote]- Claims`)
are no statements; a quote's or callout's lines are read without their `>`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from functools import cached_property

from wikic.facts.timeline import HISTORY_KEY
from wikic.text.sentences import WORDY as _WORDY, sentence_count, sentence_spans
from wikic.vault.comments import replace_comments
from wikic.vault.formats.anchors import ANCHOR
from wikic.vault.formats.claims import CLAIMS_KEY, Claim, scan
from wikic.vault.formats.markers import BEGIN, MARKER_LINE, PREFIX, end_line
from wikic.vault.model import Note
from wikic.vault.page_layout import LEAD_BLOCK

# Blocks whose text is the compiler's statements under a page's sections: a layout section's block
# (`section:key-facts`, `section:key-facts:more`), History, and an earlier version's per-source blocks
# (`facts:<source>`, `section:<name>:<source>`).
_SECTION_BLOCKS = ("section:", "facts:")
_BEGIN_TEXT = PREFIX + "begin "
_END_TEXT = PREFIX + "end "
# Blocks only the compiler writes from a page's claims: a page holding one is a compiled page.
_COMPILED = (LEAD_BLOCK, HISTORY_KEY, CLAIMS_KEY)

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_QUOTE = re.compile(r"^ {0,3}>[ \t]?")
_CALLOUT_TITLE = re.compile(r"^\[![^\]\n]+\][+-]?")
_HEADING = re.compile(r"^#{1,6}(?:[ \t]|$)")
_RULE = re.compile(r"^([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_ITEM = re.compile(r"^(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[.\][ \t]+)?")
_BLOCK_ID = re.compile(r"(?<!\S)\^[A-Za-z0-9-]+[ \t]*$")


def _may_hide(text: str) -> bool:
    """The text holds what may open a stretch of hidden lines: a fence, an HTML or `%%` comment."""
    return "```" in text or "~~~" in text or "<!--" in text or "%%" in text


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
# in `PageText._kinds`: a paragraph (its lines all a quote's or all not) or a list item; a paragraph not a quote's
_RUN = re.compile(r"s+|q+|i")
_PARAGRAPH = re.compile(r"s+")
Paragraphed = tuple[int, int, str]  # a line of a paragraph: its number, the column of its text, its text


class PageText:
    """One page's lines (numbered as in the file, frontmatter included) and what the rules look for in them,
    each part worked out when first asked for (most pages of a big vault are only asked for their lead)."""

    def __init__(self, text: str, note: Note) -> None:
        self.text = text
        self.lines = text.split("\n")
        self.body_start = note.frontmatter_lines + 1
        self._headings = note.headings

    @cached_property
    def title(self) -> int | None:
        """The line of the page's title: a `#` heading before anything else of the body."""
        first = next(iter(self._headings), None)
        if first is None or first.level != 1:
            return None
        return None if any(self.lines[n - 1].strip() for n in range(self.body_start, first.line)) else first.line

    @cached_property
    def sections(self) -> list[Section]:
        headings = [h for h in self._headings if h.level <= 2]
        return [
            Section(h.text, h.line, (headings[i + 1].line - 1 if i + 1 < len(headings) else len(self.lines)))
            for i, h in enumerate(headings)
            if h.level == 2
        ]

    @cached_property
    def hidden(self) -> frozenset[int]:
        """Lines inside fenced code, or inside an HTML or `%%` comment that spans lines (the `claims` block)."""
        if not _may_hide(self.text):
            return frozenset()
        return _hidden_lines(self.lines, self.body_start, len(self.lines))

    @cached_property
    def blocks(self) -> list[Block]:
        return _blocks(self.lines, self.body_start) if _BEGIN_TEXT in self.text else []

    @property
    def compiled(self) -> bool:
        """Written by the compiler: it holds a lead, section, History or claims block."""
        return any(b.key in _COMPILED or b.holds_statements for b in self.blocks)

    @cached_property
    def claims(self) -> list[Claim]:
        """Every claim line of the page, with its line number (`wikic/vault/formats/claims.py`)."""
        return scan(self.text)

    def block_at(self, line: int) -> Block | None:
        blocks = self.blocks  # in order, none inside another: the last one beginning at or before `line`
        k = bisect.bisect_right(self._block_begins, line) - 1
        return blocks[k] if k >= 0 and line <= blocks[k].end else None

    @cached_property
    def _block_begins(self) -> list[int]:
        return [b.begin for b in self.blocks]

    def in_section(self, section: Section, line: int | None) -> bool:
        return line is not None and section.line < line <= section.end

    def lead_block(self) -> Block | None:
        return next((b for b in self.blocks if b.key == LEAD_BLOCK), None)

    def shown(self, line: int) -> bool:
        """Line `line` holds text a reader sees: not blank, a marker, code or only comments."""
        text = self.lines[line - 1]
        return (line not in self.hidden and not MARKER_LINE.match(text)
                and bool(replace_comments(text, _nothing).strip()))

    def has_text(self, first: int, last: int) -> bool:
        return any(self.shown(n) for n in range(first, last + 1))

    def has_paragraph(self, first: int, last: int) -> bool:
        """Lines `first` to `last` hold a paragraph outside the compiler's blocks (not a list, quote, table,
        heading, code or comment): what `statements` would read as sentences of the person's own."""
        last = min(last, len(self.lines))
        # a lead is near the top: what hides the lines down to it is all that is needed
        hidden = self.__dict__.get("hidden") or (_hidden_lines(self.lines, self.body_start, last)
                                                 if _may_hide(self.text) else frozenset())
        for n in range(max(first, self.body_start), last + 1):
            if n in hidden:
                continue
            read = self._read(n)
            if read is not None and read[0] == SENTENCE and _WORDY.search(ANCHOR.sub("", _visible(read[2]))) \
                    and self.block_at(n) is None:
                return True
        return False

    def _read(self, line: int) -> tuple[str, int, str] | None:
        """`_read_line` of line `line`, read once however many rules ask (each reads the lines it judges)."""
        reads = self._reads
        if line not in reads:
            reads[line] = _read_line(self.lines[line - 1])
        return reads[line]

    @cached_property
    def _reads(self) -> dict[int, tuple[str, int, str] | None]:
        return {}

    @cached_property
    def _body_reads(self) -> list[tuple[str, int, str] | None]:
        """`_read_line` of each line, by its number less one: None before the body and where it is hidden. Read
        at once where statements are read (`_runs`): they are read of the whole page, or of most of it."""
        start = self.body_start - 1
        reads: list[tuple[str, int, str] | None] = [None] * start
        reads += _read_lines(self.lines[start:])
        for n in self.hidden:
            reads[n - 1] = None
        return reads

    @cached_property
    def _kinds(self) -> str:
        """What each line of `_body_reads` holds, as the first letter of its kind ("." for nothing): the runs of
        lines that make paragraphs are found in it at once (`_RUN`)."""
        return "".join([read[0][0] if read is not None else "." for read in self._body_reads])

    def _lines_of(self, begin: int, end: int) -> list[Paragraphed]:
        """The lines of a paragraph, from line `begin + 1` to line `end`."""
        return [(n, read[1] + 1, read[2]) for n, read in enumerate(self._body_reads[begin:end], begin + 1)
                if read is not None]

    def statements(self, first: int, last: int) -> list[Statement]:
        """The statements of lines `first` to `last` (inclusive), in order."""
        out: list[Statement] = []
        for kind, run in self._runs(first, last, items=True):
            if isinstance(run, Statement):
                out.append(run)
            else:
                out.extend(_sentences(run, kind))
        return out

    def prose(self, first: int, last: int, keep: Collection[int] = ()) -> tuple[int, list[Statement]]:
        """(how many sentences the paragraphs of lines `first` to `last` hold, not counting list items, quotes
        and callouts; those of them an anchor carries, or on a line of `keep`). A paragraph with neither is
        only counted."""
        count = 0
        kept: list[Statement] = []
        reads = self._body_reads
        for run in _PARAGRAPH.finditer(self._kinds, max(first, self.body_start) - 1, min(last, len(self.lines))):
            begin, end = run.span()
            joined = "\n".join([read[2] for read in reads[begin:end] if read is not None])
            if "^[" in joined or (keep and any(n in keep for n in range(begin + 1, end + 1))):
                found = _sentences(self._lines_of(begin, end), SENTENCE)
                count += len(found)
                kept += [s for s in found if s.cited or s.line in keep]
                continue
            if "^" in joined or "<!--" in joined or "%%" in joined:  # what `_visible` may take out of a line
                joined = "\n".join([_visible(read[2]) for read in reads[begin:end] if read is not None])
            count += sentence_count(joined, cased=True)
        return count, kept

    def _runs(self, first: int, last: int, *, items: bool) -> Iterator[tuple[str, Statement | list[Paragraphed]]]:
        """In order, each list item's statement (when `items`) and each paragraph's lines, with its kind: a
        quote's or callout's (QUOTED) or not (SENTENCE)."""
        kinds = self._kinds
        for run in _RUN.finditer(kinds, max(first, self.body_start) - 1, min(last, len(self.lines))):
            begin, end = run.span()
            if kinds[begin] != ITEM[0]:
                yield (QUOTED if kinds[begin] == QUOTED[0] else SENTENCE), self._lines_of(begin, end)
                continue
            read = self._body_reads[begin]
            if items and read is not None:
                _, at, text = read
                text = _visible(text)
                if _WORDY.search(ANCHOR.sub("", text)):
                    yield ITEM, Statement(begin + 1, at + len(text) - len(text.lstrip()) + 1, text.strip(),
                                          ANCHOR.search(text) is not None, ITEM)


def _read_line(raw: str) -> tuple[str, int, str] | None:
    """What a line of a page holds, if it may hold statements: (ITEM, QUOTED or SENTENCE, the offset of its text,
    its text), the text of an item without its marker and of a quote without its `>`. None for a blank line, a
    marker, a heading, a table row, a rule or a callout's title."""
    return _read_lines([raw])[0]


def _read_lines(lines: list[str]) -> list[tuple[str, int, str] | None]:
    """`_read_line` of each of `lines`: prose at the margin, as most lines are, read at once (no marker, quote,
    heading, table or item opens with a letter), and blank lines, headings and table rows without the full
    reading."""
    return [(SENTENCE, 0, raw.rstrip()) if raw[:1].isalpha() else _read_unlettered(raw) if raw else None
            for raw in lines]


def _read_unlettered(raw: str) -> tuple[str, int, str] | None:
    first = raw[:1]
    if not first or raw.isspace() or (first == "#" and _HEADING.match(raw)) or first == "|":
        return None
    return read_marked_line(raw)


def read_marked_line(raw: str) -> tuple[str, int, str] | None:
    """`_read_line` of any line, each construct looked for in turn (`_read_line` answers most lines sooner)."""
    if MARKER_LINE.match(raw):
        return None
    at = len(raw) - len(raw.lstrip(" \t"))
    indent = at
    while (quote := _QUOTE.match(raw, at)) is not None:
        at = quote.end()
    rest = raw[at:].rstrip()
    if not rest.strip() or _CALLOUT_TITLE.match(rest) or _HEADING.match(rest) or rest.startswith("|") or \
            _RULE.match(rest):
        return None
    item = _ITEM.match(rest)
    if item is not None:
        return ITEM, at + item.end(), rest[item.end():]
    return (QUOTED if at > indent else SENTENCE), at, rest


def _nothing(width: int) -> str:
    return ""


def _spaces(width: int) -> str:
    return " " * width


def _visible(text: str) -> str:
    """`text` without inline comments and a trailing block id, each replaced by spaces (columns stay)."""
    if "<!--" in text or "%%" in text:
        text = replace_comments(text, _spaces)
    return _BLOCK_ID.sub(_blanked, text) if "^" in text else text


def _blanked(match: re.Match[str]) -> str:
    return " " * len(match.group())


def _sentences(paragraph: list[Paragraphed], kind: str) -> list[Statement]:
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
    anchors = list(ANCHOR.finditer(joined)) if "^[" in joined else []
    # the text before each anchor, carried by it, then the text after the last one, carried by none
    ends = [0, *(a.end() for a in anchors)]
    stretches = [(ends[i], a.start(), True) for i, a in enumerate(anchors)] + [(ends[-1], len(joined), False)]
    out: list[Statement] = []
    wordy = _WORDY.search
    for begin, end, anchored in stretches:
        stretch = joined[begin:end] if begin or end < len(joined) else joined
        spans = [(a, b) for a, b in sentence_spans(stretch, cased=True) if wordy(stretch, a, b)]
        for i, (a, b) in enumerate(spans):
            offset = begin + a
            row = bisect.bisect_right(starts, offset) - 1 if len(starts) > 1 else 0
            line, column, _ = paragraph[row]
            out.append(Statement(line, column + offset - starts[row], stretch[a:b],
                                 anchored and i == len(spans) - 1, kind))
    return out


def _hidden_lines(lines: list[str], body_start: int, last: int) -> frozenset[int]:
    """Lines down to `last` inside fenced code, or inside an HTML or `%%` comment that spans lines."""
    hidden: set[int] = set()
    n = body_start  # the first line not read yet
    # only a line holding a fence or a comment's opener may begin to hide lines: the others are passed over
    for opening in [k for k, line in enumerate(lines[body_start - 1 : last], body_start) if _may_hide(line)]:
        if opening < n:
            continue  # hidden by the fence or comment before it
        line = lines[opening - 1]
        n = opening + 1
        m = _FENCE.match(line)
        if m is not None:
            fence = m.group(1)
            hidden.add(opening)
            while n <= last:  # down to the fence that closes it
                line = lines[n - 1]
                hidden.add(n)
                n += 1
                m = _FENCE.match(line)
                if m is not None and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and \
                        not line.strip()[len(m.group(1)):].strip():
                    break
            continue
        rest = replace_comments(line, _nothing)
        for opener, closer in (("<!--", "-->"), ("%%", "%%")):
            if opener in rest:
                hidden.add(opening)
                while n <= last:  # down to the line holding its closer
                    hidden.add(n)
                    n += 1
                    if closer in lines[n - 2]:
                        break
                break
    return frozenset(hidden)


def _blocks(lines: list[str], body_start: int) -> list[Block]:
    """The compiler blocks of the page: each begin marker with the end marker of its key after it (a block
    with no end is a person's text, as the compiler reads it)."""
    out: list[Block] = []
    # the lines of each end marker, in order: a begin line finds its end without reading on to the page's end,
    # which a page of begin lines with no end would make quadratic
    ends: dict[str, list[int]] = {}
    for number, line in enumerate(lines, start=1):
        if line.startswith(_END_TEXT):
            ends.setdefault(line, []).append(number)
    n = body_start
    while n <= len(lines):
        m = BEGIN.match(lines[n - 1])
        if m is not None:
            after = ends.get(end_line(m.group(1)), [])
            k = bisect.bisect_right(after, n)
            if k < len(after):
                out.append(Block(m.group(1), n, after[k]))
                n = after[k] + 1
                continue
        n += 1
    return out
