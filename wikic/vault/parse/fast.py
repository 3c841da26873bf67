"""The fast scanner: a note's links and headings from a handful of regular expressions.

It applies to a page only when the page holds none of the constructs that can hide a link or change the
block structure (code, math, HTML, comments, escapes, setext headings, reference definitions, indented
blocks, containers holding headings, tables other than plain top-level ones), or when `mask.py` can blank
them out exactly as markdown-it reads them. Every other page goes to the reference parser
(`reference.py`). Property tests check that the two agree wherever this one accepts a page.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from wikic.vault.formats.markers import PREFIX as MARKER_PREFIX, marker_lines
from wikic.vault.model import EMBED, MDLINK, WIKILINK, Heading, Link, Problem

WIKI_RE = re.compile(r"(!?)\[\[([^\[\]\n|]*?)(?:\|([^\[\]\n]*))?\]\]")
SIMPLE_MDLINK = re.compile(r"(!?)\[([^\[\]\n]*)\]\((?:<([^<>\n]*)>|([^()\s<>]*))\)")
# The same two without the optional "!": a pattern that opens with a literal lets the regex engine jump from
# one "[" to the next instead of trying every offset (4-6x faster over a vault). An embed's "!" is read off
# the character before; it can never belong to the previous match, which ends in "]]" or ")".
WIKI_FIND = re.compile(r"\[\[([^\[\]\n|]*?)(?:\|([^\[\]\n]*))?\]\]")
MDLINK_FIND = re.compile(r"\[([^\[\]\n]*)\]\((?:<([^<>\n]*)>|([^()\s<>]*))\)")
ATX = re.compile(r"^ {0,3}(#{1,6})((?:[ \t].*)?)$", re.M)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")

# A table delimiter row, also in a container: only these characters, with a "|" and a "-" (possessive and
# lookaheads: a long line of dashes must not backtrack quadratically). Searched in "\n" + body, each match the
# newline before a row: opening with a literal, the pattern jumps from line to line, and a line's first
# character that cannot be in a row ends the try ("^" in MULTILINE mode is tried at every character: 7x slower).
_DELIMITER_ROW = re.compile(r"\n(?=[ >*+.)0-9|:\-]*+$)(?=[^\n|]*+\|)(?=[^\n-]*+-)", re.M)
_FOOTNOTE_DEF = re.compile(r"^\[\^[^\]\n]+\]:", re.M)
ANGLE_DEST = re.compile(r"\]\(<[^<>\n]*>\)")
# Anything that can hide a link or change block structure sends a page to markdown-it. One alternation of
# all of these costs ~7x more than these separate scans (the character class runs as a C loop, the line
# patterns only past a line start that could begin them).
_TRICKY_CHARACTER = re.compile(r"[`$<\\\t\x00-\x08\x0b-\x1f\x7f]")
_ENTITY = re.compile(r"&(?:#\d+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
# A reference or footnote definition, at any depth ("[[Page]]: text" stays fast): a "]:" not after a "]", the
# literal first and the look back after it (a pattern opening with a look-behind is tried at every offset).
_DEFINITION = re.compile(r"\]:(?<!\]\]:)")
# Searched in "\n" + body: a pattern that opens with a literal newline lets the regex engine jump from line
# to line, where "^" in MULTILINE mode is tried at every character (5x slower over a vault).
_TRICKY_LINE = re.compile(
    r"\n(?=[ >*+\-0-9.):=])(?:"
    r" {4,}[^ \n]"  # indented code or deep list continuation (even when the text starts with U+3000)
    r"|[ >*+\-0-9.)]*?(?:[-*+>]|\d{1,9}[.)]) {5,}[^ \n]"  # a list item or quote opening with indented code
    r"|[ >]*+(?:=++|-++)[ ]*+$"  # setext underline or thematic break, also inside a quote
    r"|[ >]*+(?::-++:?|-++:)[ ]*+$"  # a one-column table's delimiter row (":--"): no pipe needed
    r"| {0,3}(?:(?:>|[-*+]|\d{1,9}[.)])[ ]*)+#{1,6}(?:[ ]|$)"  # heading inside a quote or list
    r")",
    re.M,
)


def _needs_full_parser(body: str) -> bool:
    return bool(
        _TRICKY_CHARACTER.search(body)
        or "%%" in body
        or "~~~" in body
        or ("&" in body and _ENTITY.search(body))
        or ("]:" in body and _DEFINITION.search(body))
        or _TRICKY_LINE.search("\n" + body)
    )


def split_target(text: str) -> tuple[str, str]:
    path, _, sub = text.partition("#")
    return path.strip(), sub.strip()


def make_wikilink(embed: bool, target: str, alias: str | None, raw: str, line: int, column: int) -> Link | Problem:
    if alias is not None and target.endswith("\\"):  # "[[t\|x]]": the escaped pipe of a table cell
        target = target[:-1]
    path, sub = split_target(target)
    if not path and not sub:
        return Problem("malformed-link", line, "empty link '[[]]'", column)
    return Link(EMBED if embed else WIKILINK, path, sub, alias, line, column, raw)


def make_mdlink(href: str, raw: str, embed: bool, line: int, column: int) -> Link | None:
    """A Markdown link is a vault edge only when it points at a local file (no URL scheme, not `//host`)."""
    href = href.strip()
    if not href or SCHEME.match(href) or href.startswith("//"):
        return None
    path, _, sub = href.partition("#")
    return Link(EMBED if embed else MDLINK, unquote(path), unquote(sub), None, line, column, raw)


def _heading_text(after: str) -> str:
    """The text of an ATX heading from what follows its opening hashes, as markdown-it cuts it: trailing
    spaces, then a closing run of `#` only when a space or tab precedes it ("## Title ##" -> "Title")."""
    end = len(after.rstrip(" \t"))
    cut = end
    while cut > 0 and after[cut - 1] == "#":
        cut -= 1
    if cut > 0 and after[cut - 1] in " \t":
        end = cut
    return after[:end].strip()


# The compiler's block markers (wikic/vault/formats/markers.py): one-line HTML comments, each a block of its own
# that hides nothing else, so a compiled page need not go to markdown-it for them.
# A name holding "[[" or "](" would look like a link to the fast scanner only: such a page goes to markdown-it.
_OWNED_MARKER = marker_lines(r"(?:(?!\[\[|\]\()[^\s<>])+")


# The comment a compiled claim line carries before its block id (`wikic/vault/formats/claims.py`): closed on its
# line, holding no link, markup or comment opener, so it hides nothing else and the fast path may read past it.
_CLAIM_COMMENT = re.compile(r" %%claim [^%\n\[\]`<>\\$&|]*%%(?= \^c[0-9a-f]{8}[ \t]*$)", re.M)


# The body of a page's `claims` block (`wikic/vault/formats/claims.py`): an HTML comment of rows holding an id and
# words without link, markup or comment characters, so it hides nothing and holds no link.
_CLAIM_ROWS = re.compile(r"^<!--\n(?:c[0-9a-f]{8}(?: [^\s\[\]`<>\\$&|%#^]+=[^\s\[\]`<>\\$&|#^]*)*\n)*-->$", re.M)


def fast_eligible(body: str) -> bool:
    original = body
    if "<!--\nc" in body:
        body = _CLAIM_ROWS.sub("", body)
    if MARKER_PREFIX in body:
        body = _OWNED_MARKER.sub("", body)
    if "%%claim " in body:
        body = _CLAIM_COMMENT.sub("", body)
    # Constructs that look tricky but cannot change which links a page has: an escaped pipe (in a table
    # cell or elsewhere), an angle-bracket link destination, a footnote definition.
    if "\\|" in body:
        body = body.replace("\\|", "  ")
    if "](<" in body:
        body = ANGLE_DEST.sub(lambda m: "](" + "x" * (len(m.group(0)) - 3) + ")", body)
    if "]:" in body:
        body = _FOOTNOTE_DEF.sub("", body)
    if _needs_full_parser(body):
        return False
    if "|" in body and _DELIMITER_ROW.search("\n" + body):
        return plain_tables(original)
    return True


_DELIMITER_CELL = re.compile(r"^:?-+:?$")
# What markdown-it trims off a table row and its cells (CommonMark's whitespace, NBSP and the wide spaces).
_MD_TRIM = "\t\n\x0b\x0c\r \xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
_MAX_AUTOCOMPLETED_CELLS = 65536  # markdown-it ends a table early past this many missing cells


_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def _cells(row: str) -> list[str]:
    """A row's cells as GFM splits them: at pipes not escaped, one empty cell at each end dropped."""
    cells = _UNESCAPED_PIPE.split(row.strip(_MD_TRIM))
    if cells and cells[0] == "":
        cells.pop(0)
    if cells and cells[-1] == "":
        cells.pop()
    return cells


def _row_links_intact(row: str) -> bool:
    """No link in a table row straddles a cell boundary or depends on the row's unescaping: a wikilink
    may hold one `\\|` (its target|alias separator, written escaped in tables), nothing else may."""
    if "[" not in row:
        return True
    for m in WIKI_FIND.finditer(row):
        raw = m.group(0)
        if _UNESCAPED_PIPE.search(raw) or raw.count("\\|") > 1 or (m.group(2) or "").count("|"):
            return False
    return not any("|" in m.group(0) or "\\" in m.group(0) for m in MDLINK_FIND.finditer(row))


def plain_tables(body: str) -> bool:
    """Whether every GFM table of `body` is one the fast scanner reads as markdown-it does.

    Only plain tables qualify: at the top level (every line starts with `|`), with a blank line (or the page's
    edge) before and after, as many header cells as delimiter cells, no row with more cells than the header
    (GFM drops those, links and all), and no link that a cell boundary or the row's unescaping would change.
    Inside such a table every link sits whole in one cell, so scanning the rows as text finds exactly the
    links markdown-it finds in the cells. Anything else (a table in a list or quote, one that interrupts a
    paragraph, a delimiter row without its header) is left to markdown-it.
    """
    lines = body.split("\n")
    n = len(lines)
    i = 0  # the first line no table has read yet
    row, at = 0, 0  # the line of offset `at`
    for m in _DELIMITER_ROW.finditer("\n" + body):
        row += body.count("\n", at, m.start())  # the row starts at m.start() of `body`
        at = m.start()
        if row < i:
            continue  # a row of the table just read
        i = row
        header = i - 1
        if header < 0 or not lines[header].startswith("|") or not lines[i].startswith("|"):
            return False
        if header > 0 and lines[header - 1].strip(" \t"):
            return False  # the table interrupts a paragraph or continues a container
        aligns = lines[i].split("|")
        inner = [c.strip(_MD_TRIM) for c in aligns[1:-1]] + [
            c.strip(_MD_TRIM) for c in aligns[-1:] if c.strip(_MD_TRIM)
        ]
        if not inner or not all(_DELIMITER_CELL.match(c) for c in inner):
            return False
        columns = len(_cells(lines[header]))
        if columns != len(inner) or not _row_links_intact(lines[header]):
            return False
        end = i + 1
        missing = 0
        while end < n and lines[end].startswith("|"):
            cells = _cells(lines[end])
            missing += columns - len(cells)
            if len(cells) > columns or missing > _MAX_AUTOCOMPLETED_CELLS or not _row_links_intact(lines[end]):
                return False
            end += 1
        if end < n and lines[end].strip(" \t"):
            return False  # a line that continues the table without a leading pipe
        i = end
    return True


def scan_fast(
    body: str, first_line: int, headings_text: str | None = None
) -> tuple[list[Link], list[Heading], list[Problem]] | None:
    """Links and headings of a page with no tricky constructs, or None to ask for markdown-it. Headings are
    read from `headings_text` when given (the same text, with less of it masked)."""
    links: list[Link] = []
    problems: list[Problem] = []
    spans: list[tuple[int, int]] = []
    # Offsets arrive in increasing order within each pass, so line numbers are counted incrementally.
    cursor = [0, first_line, 0]  # offset, line at that offset, start of that line
    count, rfind = body.count, body.rfind

    def position(offset: int) -> tuple[int, int]:
        if offset < cursor[0]:
            cursor[0], cursor[1], cursor[2] = 0, first_line, 0
        rows = count("\n", cursor[0], offset)
        if rows:  # searching back only to the previous offset keeps a long line linear
            cursor[1] += rows
            cursor[2] = rfind("\n", cursor[0], offset) + 1
        cursor[0] = offset
        return cursor[1], offset - cursor[2] + 1

    if "[[" in body:
        for m in WIKI_FIND.finditer(body):
            start, end = m.span()
            embed = start > 0 and body[start - 1] == "!"
            if embed:
                start -= 1
            line, col = position(start)
            item = make_wikilink(embed, m.group(1), m.group(2), body[start:end], line, col)
            (links if isinstance(item, Link) else problems).append(item)  # type: ignore[arg-type]
            spans.append((start, end))
    unclosed: list[int] = []
    if "[[" in body and count("[[") != len(spans):  # a match holds no "[" but its opening pair
        found = _unclosed(body, spans, body if headings_text is None else headings_text)
        if found is None:
            return None  # a nested "[[": let markdown-it decide what it is
        unclosed = found
    if "](" in body:
        md_matches = list(MDLINK_FIND.finditer(body))
        if count("](") != len(md_matches):
            return None
        cursor[0], cursor[1], cursor[2] = 0, first_line, 0
        si, n_spans = 0, len(spans)
        ui, n_unclosed = 0, len(unclosed)
        for m in md_matches:
            s, e = m.span()
            embed = s > 0 and body[s - 1] == "!"
            if embed:
                s -= 1
            while si < n_spans and spans[si][1] <= s:  # all these lists are in source order: merge, not nest
                si += 1
            if si < n_spans and spans[si][0] < e:
                return None  # a Markdown link overlapping a wikilink: markdown-it decides
            while ui < n_unclosed and unclosed[ui] < s:
                ui += 1
            if ui < n_unclosed and unclosed[ui] < e:
                return None  # "[[" inside a destination is no link to close: markdown-it decides
            line, col = position(s)
            href = m.group(2) if m.group(2) is not None else m.group(3)
            if "\\" in href:
                return None  # markdown-it unescapes a destination ("x\\|y.md" is "x|y.md"): let it
            link = make_mdlink(href, body[s:e], embed, line, col)
            if link is not None:
                links.append(link)
        links.sort(key=lambda lk: (lk.line, lk.column))
    if unclosed:
        cursor[0], cursor[1], cursor[2] = 0, first_line, 0
        for at in unclosed:
            line, col = position(at)
            problems.append(Problem("malformed-link", line, "'[[' is never closed by ']]' on the same line", col))
        problems.sort(key=lambda p: (p.line or 0, p.column))
    return links, atx_headings(body if headings_text is None else headings_text, first_line), problems


def _unclosed(body: str, spans: list[tuple[int, int]], unmasked: str) -> list[int] | None:
    """Where each line's first "[[" that no wikilink took stands, when no such "[[" has a "]]" after it on
    its line: markdown-it's wikilink rule reports exactly those (once a line) and reads them as text. None
    when one has a "]]" after it ("[[a [[b]]"), or sits in a table row (whose cells markdown-it places on
    its own): markdown-it decides. The "]]" are looked for in `unmasked`, the same text with its code spans,
    math and escapes as written (as markdown-it's rule sees the line), when `body` has them blanked."""
    out: list[int] = []
    si, n_spans = 0, len(spans)
    at = body.find("[[")
    while at >= 0:
        while si < n_spans and spans[si][1] <= at:
            si += 1
        if si < n_spans and spans[si][0] <= at:
            at = body.find("[[", spans[si][1])  # inside a wikilink
            continue
        line_start = body.rfind("\n", 0, at) + 1
        line_end = body.find("\n", at)
        if line_end < 0:
            line_end = len(body)
        if unmasked.find("]]", at + 2, line_end) >= 0 or unmasked.startswith("|", line_start):
            return None
        out.append(at)
        # Every later "[[" of this line has no "]]" after it either (it would be after this one), and the line
        # is reported once: the next line is where to look on, so a line of "[[[[..." is read once, not once
        # per opener to its end.
        at = body.find("[[", line_end)
    return out


# ATX in "\n" + body, each match opening with the newline before its line (see `_TRICKY_LINE`).
_ATX_LINE = re.compile(r"\n {0,3}(#{1,6})((?:[ \t].*)?)$", re.M)


def atx_headings(body: str, first_line: int) -> list[Heading]:
    headings = []
    if "#" in body:
        line, at = first_line, 0
        for m in _ATX_LINE.finditer("\n" + body):
            line += body.count("\n", at, m.start())  # the heading's line starts at m.start() of `body`
            at = m.start()
            headings.append(Heading(_heading_text(m.group(2)), len(m.group(1)), line))
    return headings
