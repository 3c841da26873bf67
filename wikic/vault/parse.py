"""Parse one note: frontmatter, links (with exact line and column), headings, block ids, problems.

Two scanners produce the same result. The fast one is a handful of regular expressions and applies to a
page only when the page holds none of the constructs that can hide a link or change the block
structure (code, math, HTML, comments, escapes, setext headings, reference definitions, indented
blocks, containers holding headings, tables other than plain top-level ones). Every other page goes
through markdown-it (`markdown.py`). Property tests check that the two agree wherever the fast one
accepts a page.
"""

from __future__ import annotations

import bisect
import re
from typing import Any
from urllib.parse import unquote

from wikic.vault import frontmatter as fm
from wikic.vault.markers import PREFIX as MARKER_PREFIX
from wikic.vault.markers import marker_lines
from wikic.vault.model import (
    EMBED,
    FRONTMATTER,
    MDLINK,
    WIKILINK,
    Block,
    Heading,
    Link,
    Note,
    Problem,
    empty_note,
)

MAX_PAGE_BYTES = 8 * 1024 * 1024  # markdown-it reads ~0.5 MB/s of ordinary prose: 8 MB is ~20 s, not a hang
MAX_FRONTMATTER_CHARS = 256 * 1024  # PyYAML on a huge block (or one with 100,000 duplicate keys) takes seconds

WIKI_RE = re.compile(r"(!?)\[\[([^\[\]\n|]*?)(?:\|([^\[\]\n]*))?\]\]")
SIMPLE_MDLINK = re.compile(r"(!?)\[([^\[\]\n]*)\]\((?:<([^<>\n]*)>|([^()\s<>]*))\)")
ATX = re.compile(r"^ {0,3}(#{1,6})((?:[ \t].*)?)$", re.M)
BLOCK_ID = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9-]+)[ \t]*$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
FM_WIKI = re.compile(r"\[\[([^\[\]\n|]*?)(?:\|([^\[\]\n]*))?\]\]")

# A table delimiter row, also in a container: only these characters, with a "|" and a "-" (possessive and
# lookaheads: a long line of dashes must not backtrack quadratically).
_TABLE_DELIMITER = re.compile(r"^(?=[^\n|]*+\|)(?=[^\n-]*+-)[ >*+.)0-9|:\-]++$", re.M)
_FOOTNOTE_DEF = re.compile(r"^\[\^[^\]\n]+\]:", re.M)
_ANGLE_DEST = re.compile(r"\]\(<[^<>\n]*>\)")
# Anything that can hide a link or change block structure sends a page to markdown-it. One alternation of
# all of these costs ~7x more than these separate scans (the character class runs as a C loop, the line
# patterns only past a line start that could begin them).
_TRICKY_CHARACTER = re.compile(r"[`$<\\\t\x00-\x08\x0b-\x1f\x7f]")
_ENTITY = re.compile(r"&(?:#\d+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
_DEFINITION = re.compile(r"(?<!\])\]:")  # reference or footnote definition, at any depth ("[[Page]]: text" stays fast)
_TRICKY_LINE = re.compile(
    r"^(?=[ >*+\-0-9.):=])(?:"
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
        or _TRICKY_LINE.search(body)
    )


def split_target(text: str) -> tuple[str, str]:
    path, _, sub = text.partition("#")
    return path.strip(), sub.strip()


def _wikilink(match: re.Match[str], line: int, column: int) -> Link | Problem:
    target, alias = match.group(2), match.group(3)
    if alias is not None and target.endswith("\\"):  # "[[t\|x]]": the escaped pipe of a table cell
        target = target[:-1]
    path, sub = split_target(target)
    if not path and not sub:
        return Problem("malformed-link", line, "empty link '[[]]'", column)
    kind = EMBED if match.group(1) else WIKILINK
    return Link(kind, path, sub, alias, line, column, match.group(0))


def _mdlink(href: str, raw: str, embed: bool, line: int, column: int) -> Link | None:
    """A Markdown link is a vault edge only when it points at a local file (contract §5)."""
    href = href.strip()
    if not href or SCHEME.match(href) or href.startswith("//"):
        return None
    path, _, sub = href.partition("#")
    return Link(EMBED if embed else MDLINK, unquote(path), unquote(sub), None, line, column, raw)


def _blocks(lines: list[str], skip: set[int] | frozenset[int], first: int) -> list[Block]:
    out = []
    for i in range(first - 1, len(lines)):
        text = lines[i]
        if "^" in text and i not in skip:
            m = BLOCK_ID.search(text)
            if m:
                out.append(Block(m.group(1), i + 1))
    return out


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


# The compiler's block markers (wikic/vault/markers.py): one-line HTML comments, each a block of its own
# that hides nothing else, so a compiled page need not go to markdown-it for them.
# A name holding "[[" or "](" would look like a link to the fast scanner only: such a page goes to markdown-it.
_OWNED_MARKER = marker_lines(r"(?:(?!\[\[|\]\()[^\s<>])+")


def fast_eligible(body: str) -> bool:
    original = body
    if MARKER_PREFIX in body:
        body = _OWNED_MARKER.sub("", body)
    # Constructs that look tricky but cannot change which links a page has: an escaped pipe (in a table
    # cell or elsewhere), an angle-bracket link destination, a footnote definition.
    if "\\|" in body:
        body = body.replace("\\|", "  ")
    if "](<" in body:
        body = _ANGLE_DEST.sub(lambda m: "](" + "x" * (len(m.group(0)) - 3) + ")", body)
    if "]:" in body:
        body = _FOOTNOTE_DEF.sub("", body)
    if _needs_full_parser(body):
        return False
    if "|" in body and _TABLE_DELIMITER.search(body):
        return plain_tables(original)
    return True


_DELIMITER_CELL = re.compile(r"^:?-+:?$")
# What markdown-it trims off a table row and its cells (CommonMark's whitespace, NBSP and the wide spaces).
_MD_TRIM = "\t\n\x0b\x0c\r \xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
_MAX_AUTOCOMPLETED_CELLS = 65536  # markdown-it ends a table early past this many missing cells


def _cells(row: str) -> list[str]:
    """A row's cells as GFM splits them: at pipes not escaped, one empty cell at each end dropped."""
    cells = re.split(r"(?<!\\)\|", row.strip(_MD_TRIM))
    if cells and cells[0] == "":
        cells.pop(0)
    if cells and cells[-1] == "":
        cells.pop()
    return cells


def _row_links_intact(row: str) -> bool:
    """No link in a table row straddles a cell boundary or depends on the row's unescaping: a wikilink
    may hold one `\\|` (its target|alias separator, written escaped in tables), nothing else may."""
    for m in WIKI_RE.finditer(row):
        raw = m.group(0)
        if re.search(r"(?<!\\)\|", raw) or raw.count("\\|") > 1 or (m.group(3) or "").count("|"):
            return False
    return not any("|" in m.group(0) or "\\" in m.group(0) for m in SIMPLE_MDLINK.finditer(row))


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
    i = 0
    while i < n:
        if not _TABLE_DELIMITER.fullmatch(lines[i]):
            i += 1
            continue
        header = i - 1
        if header < 0 or not lines[header].startswith("|") or not lines[i].startswith("|"):
            return False
        if header > 0 and lines[header - 1].strip(" \t"):
            return False  # the table interrupts a paragraph or continues a container
        aligns = lines[i].split("|")
        inner = [c.strip(_MD_TRIM) for c in aligns[1:-1]] + [c.strip(_MD_TRIM) for c in aligns[-1:] if c.strip(_MD_TRIM)]
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


def scan_fast(body: str, first_line: int) -> tuple[list[Link], list[Heading], list[Problem]] | None:
    """Links and headings of a page with no tricky constructs, or None to ask for markdown-it."""
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
        nested = 0
        for m in WIKI_RE.finditer(body):
            line, col = position(m.start())
            item = _wikilink(m, line, col)
            (links if isinstance(item, Link) else problems).append(item)  # type: ignore[arg-type]
            spans.append((m.start(), m.end()))
            nested += m.group(0).count("[[") - 1
        if count("[[") != len(spans) + nested:
            return None  # an unclosed or nested "[[": let markdown-it decide what it is
    if "](" in body:
        md_matches = list(SIMPLE_MDLINK.finditer(body))
        if count("](") != len(md_matches):
            return None
        cursor[0], cursor[1], cursor[2] = 0, first_line, 0
        si, n_spans = 0, len(spans)
        for m in md_matches:
            s, e = m.start(), m.end()
            while si < n_spans and spans[si][1] <= s:  # both lists are in source order: merge, not nest
                si += 1
            if si < n_spans and spans[si][0] < e:
                return None  # a Markdown link overlapping a wikilink: markdown-it decides
            line, col = position(s)
            href = m.group(3) if m.group(3) is not None else m.group(4)
            if "\\" in href:
                return None  # markdown-it unescapes a destination ("x\\|y.md" is "x|y.md"): let it
            link = _mdlink(href, m.group(0), bool(m.group(1)), line, col)
            if link is not None:
                links.append(link)
        links.sort(key=lambda lk: (lk.line, lk.column))
    return links, atx_headings(body, first_line), problems


def atx_headings(body: str, first_line: int) -> list[Heading]:
    headings = []
    if "#" in body:
        line, at = first_line, 0
        for m in ATX.finditer(body):
            line += body.count("\n", at, m.start())
            at = m.start()
            headings.append(Heading(_heading_text(m.group(2)), len(m.group(1)), line))
    return headings


# CommonMark's ASCII punctuation: a backslash before one of these makes it a literal character.
_ESCAPABLE = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_INLINE_MARKUP = re.compile(r"\[\[|\\|&(?:#\d+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);|<|%%")
_OBSIDIAN_BLOCK_START = re.compile(r" {0,3}%%")
_COMMENT_BLOCK_START = re.compile(r" {0,3}<!--")
# a line whose first block, inside a quote or list item, is a comment: an HTML block there, not inline
_CONTAINED_COMMENT = re.compile(r"^ {0,3}(?:(?:>|[-*+]|\d{1,9}[.)])[ ]*)+(?:<!--|%%)", re.M)
# markdown-it's inline comment (CommonMark 0.31), kept to one line here
_INLINE_COMMENT = re.compile(r"<!---?>|<!--(?:[^-\n]|-[^-\n]|--[^>\n])*-->")
_AUTOLINK = re.compile(
    r"<[A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>\x00-\x1f\x7f]*>"
    r"|<[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*>"
)


def _blank(lines: list[str], first: int, last: int, hidden: set[int]) -> None:
    """Empty lines first..last (a block that hides them), keeping the line count."""
    for k in range(first, last + 1):
        lines[k] = ""
        hidden.add(k)


def mask_markup(body: str) -> tuple[str, str, set[int]] | None:
    """Blank out what hides text but cannot make a link, the way markdown-it reads it, so a page whose only
    tricky constructs are these can take the fast path: HTML comments, autolinks (`<https://...>`),
    backslash escapes (and other backslashes) and character references (`&lt;`), which the compiler
    writes when it makes model text safe. Returns (text for links, text for headings, hidden line
    indexes) with every offset kept, or None when markdown-it must decide.

    A line opening with `<!--` starts an HTML block: every line up to the one holding `-->` is hidden, all
    of it. Elsewhere the text is read left to right as markdown-it's inline rules do: at "[[" a wikilink
    comes first (an escape inside one is part of its target, `[[a\\|b]]`), a backslash takes the next
    punctuation character (`\\[[x]]` is no link, `\\\\[[x]]` is one), `<` opens a comment or an autolink
    on its line, and a reference is text (`&#91;&#91;x]]` is no link). Anything of these inside a
    Markdown link (its text or destination change), or whose blanking would join a link out of pieces
    markdown-it never joins (`[[a\\]b]]`), is left to markdown-it. Headings come from the text with only
    the comment blocks blanked: `#\\# x` is no heading, though its masked form would be.
    """
    lines = body.split("\n")
    hidden: set[int] = set()
    if "<!--" in body or "%%" in body:
        if _CONTAINED_COMMENT.search(body):
            return None
        k, n = 0, len(lines)
        while k < n:
            line = lines[k]
            if _COMMENT_BLOCK_START.match(line):
                end = next((e for e in range(k, n) if "-->" in lines[e]), None)  # "<!-->" ends at once
                if end is None:
                    return None  # an unclosed comment hides the rest of the page: markdown-it reports it
                if end > k and line[0] == " ":
                    return None  # may sit in a list item, which can end before the comment does
                _blank(lines, k, end, hidden)
                k = end + 1
                continue
            if _OBSIDIAN_BLOCK_START.match(line):
                opened = line.index("%%") + 2
                end, close = k, line.find("%%", opened)
                while close < 0 and end + 1 < n:
                    end += 1
                    close = lines[end].find("%%")
                if close < 0:
                    return None  # an unclosed %% hides the rest of the page: markdown-it reports it
                trailing = lines[end][close + 2 :].strip()
                if trailing and end == k:
                    k += 1  # "%% c %% text" opens a paragraph: an inline comment, blanked below
                    continue
                if trailing or (end > k and line[0] == " "):
                    return None  # text after a closing %% is a block of its own; a list item may end first
                _blank(lines, k, end, hidden)
                k = end + 1
                continue
            k += 1
    for_headings = "\n".join(lines) if hidden else body
    out = list(for_headings)
    masked: list[int] = []
    text = for_headings
    n = len(text)
    found = _INLINE_MARKUP.search(text)
    while found is not None:
        i = found.start()
        ch = text[i]
        blank = 0
        if ch == "[":
            m = WIKI_RE.match(text, i)
            after = m.end() if m is not None else i + 1
        elif ch == "\\":
            after = i + 2 if i + 1 < n and text[i + 1] in _ESCAPABLE else i + 1
            blank = after - i
        elif ch == "&":
            after = found.end()
            blank = after - i
        elif ch == "%":  # an Obsidian comment inside a paragraph, closed on its line
            close = text.find("%%", i + 2, (text.find("\n", i) + 1 or n + 1) - 1)
            if close < 0:
                return None  # it runs on to the paragraph's end or a later line: markdown-it decides
            after = close + 2
            blank = after - i
        else:  # "<": a comment or an autolink is blanked; anything else stays for markdown-it to judge
            m = _INLINE_COMMENT.match(text, i) or (_AUTOLINK.match(text, i) if text[max(0, i - 2) : i] != "](" else None)
            if m is None and text.startswith("<!--", i):
                return None  # a comment running past its line (or malformed): markdown-it decides
            after = m.end() if m is not None else i + 1
            blank = after - i if m is not None else 0
        for k in range(i, i + blank):
            out[k] = " "
            masked.append(k)
        found = _INLINE_MARKUP.search(text, after)
    masked_text = "".join(out)
    for m in (*WIKI_RE.finditer(masked_text), *SIMPLE_MDLINK.finditer(masked_text)):
        k = bisect.bisect_left(masked, m.start())  # `masked` grows in order
        if k < len(masked) and masked[k] < m.end():
            return None
    return masked_text, for_headings, hidden


_FENCE_OPEN = re.compile(r"(`{3,}|~{3,})(.*)")
_INDENTED_FENCE = re.compile(r"^ {1,3}(?:`{3}|~{3})", re.M)
_TICKS = re.compile(r"`+")


def mask_code(body: str) -> tuple[str, str, set[int]] | None:
    """Hide top-level fenced code and one-line code spans, so a page whose only tricky construct is code
    can still take the fast path. Returns (text for links, text for headings, hidden line indexes), or
    None when the code is anything but plain: then markdown-it decides.

    Masks keep every offset: fence lines become empty and code spans become spaces, so line and column
    numbers of the links around them do not move.
    """
    if "\\" in body.replace("\\|", "") or "<" in _ANGLE_DEST.sub("", body) or _INDENTED_FENCE.search(body):
        return None  # escapes and HTML outrank code spans; indented fences belong to containers
    lines = body.split("\n")
    hidden: set[int] = set()
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if line[:3] in ("```", "~~~"):
            m = _FENCE_OPEN.fullmatch(line)
            if m is None or (m.group(1)[0] == "`" and "`" in m.group(2)):
                return None
            char, size = m.group(1)[0], len(m.group(1))
            close = re.compile(r" {0,3}" + re.escape(char) + "{" + str(size) + r",}[ \t]*")
            j = next((k for k in range(i + 1, n) if close.fullmatch(lines[k])), None)
            if j is None:
                return None  # an unclosed fence: markdown-it reports it
            _blank(lines, i, j, hidden)
            i = j + 1
            continue
        i += 1
    for_headings = "\n".join(lines)
    if "`" not in for_headings:
        return for_headings, for_headings, hidden
    for k, line in enumerate(lines):
        if "`" not in line:
            continue
        runs = [(m.start(), m.end()) for m in _TICKS.finditer(line)]
        spans = []
        a = 0
        while a < len(runs):
            width = runs[a][1] - runs[a][0]
            b = next((c for c in range(a + 1, len(runs)) if runs[c][1] - runs[c][0] == width), None)
            if b is None:
                return None  # may close on a later line of the paragraph: leave it to markdown-it
            spans.append((runs[a][0], runs[b][1]))
            if "|" in line[runs[a][0] : runs[b][1]]:
                return None  # a table row splits at a pipe even inside code
            a = b + 1
        for lm in (*WIKI_RE.finditer(line), *SIMPLE_MDLINK.finditer(line)):
            for start, end in spans:
                overlaps = lm.start() < end and start < lm.end()
                inside = start < lm.start() and lm.end() <= end
                if overlaps and not inside:
                    return None  # a link and a code span compete: precedence is markdown-it's call
        chars = list(line)
        for start, end in spans:
            chars[start:end] = " " * (end - start)
        lines[k] = "".join(chars)
        # masking can make a link appear where a code span sat (`[[``te[``te]]`): markdown-it decides
        for lm in (*WIKI_RE.finditer(lines[k]), *SIMPLE_MDLINK.finditer(lines[k])):
            if any(lm.start() < end and start < lm.end() for start, end in spans):
                return None
    return "\n".join(lines), for_headings, hidden


_HIDING_BLOCKS = frozenset(
    {"fence", "code_block", "html_block", "math_block", "math_block_label", "obsidian_comment_block"}
)


def scan_full(text: str, first_line: int, lines: list[str]) -> tuple[list[Link], list[Heading], list[Problem], set[int]]:
    """markdown-it pass over the whole text (frontmatter blanked so line numbers stay absolute)."""
    from wikic.vault.markdown import markdown

    tokens = markdown().parse(text)
    links: list[Link] = []
    headings: list[Heading] = []
    problems: list[Problem] = []
    hidden: set[int] = set()
    cell_cursor: dict[int, int] = {}  # line -> where the previous table cell on it ended (0-based)

    n = len(tokens)
    for i, tok in enumerate(tokens):
        ttype = tok.type
        if ttype in _HIDING_BLOCKS and tok.map:
            hidden.update(range(tok.map[0], tok.map[1]))
            if ttype == "fence" and not _fence_closed(tok, lines):
                problems.append(
                    Problem("malformed-link", tok.map[0] + 1, "code fence is never closed: it hides the rest of the page (or of its list item or quote)")
                )
            if ttype == "math_block" and not tok.meta.get("closed", True):
                problems.append(Problem("malformed-link", tok.map[0] + 1, "'$$' math block is never closed: it hides the rest of the page (or of its list item or quote)"))
            if ttype == "obsidian_comment_block" and not tok.meta.get("closed", True):
                problems.append(Problem("malformed-link", tok.map[0] + 1, "'%%' comment is never closed: it hides the rest of the page"))
        elif ttype == "heading_open" and tok.map and i + 1 < n:
            headings.append(Heading(tokens[i + 1].content.strip(), int(tok.tag[1]), tok.map[0] + 1))
        elif ttype == "inline" and tok.map:
            cell = i > 0 and tokens[i - 1].type in ("td_open", "th_open")
            _inline_links(tok, lines, cell, cell_cursor, links, problems)
    return links, headings, problems, hidden


_CONTAINER_PREFIX = re.compile(r"^(?:[ \t]*>)+")


def _fence_closed(tok: Any, lines: list[str]) -> bool:
    end = tok.map[1] - 1
    if end <= tok.map[0] or end >= len(lines):
        return False
    last = _CONTAINER_PREFIX.sub("", lines[end]).strip()  # a fence in a quote or callout closes with "> ```"
    marker = tok.markup
    return last.startswith(marker[0] * len(marker)) and last.strip(marker[0]) == ""


def _inline_links(
    tok: Any, lines: list[str], cell: bool, cell_cursor: dict[int, int], links: list[Link], problems: list[Problem]
) -> None:
    """Links of one inline token, placed exactly in the file.

    The token's content is its source text with container prefixes (`>`, list indentation) removed, so
    each of its lines is the end of a file line; a heading's content sits inside its line (closing `#`s);
    a table cell's content sits inside its row, with every `\\|` unescaped by markdown-it.
    """
    content: str = tok.content
    base = tok.map[0] + 1
    cell_start = -1  # where this table cell's content starts in its row
    escaped = False  # the cell's content was found in the file with "|" written as "\\|"
    if cell:
        src = lines[base - 1] if 0 < base <= len(lines) else ""
        start = cell_cursor.get(base, 0)
        text = content.rstrip()
        cell_start = src.find(text, start) if text else -1
        if cell_start < 0 and "|" in text:
            text = text.replace("|", "\\|")
            cell_start = src.find(text, start)
            escaped = cell_start >= 0
        if cell_start >= 0:
            cell_cursor[base] = cell_start + len(text)
    if not tok.children:
        return
    if not cell and tok.map[1] - tok.map[0] > 1 and content:
        # A paragraph's content is stripped of Unicode spaces too: a leading line holding only a NBSP is
        # gone from it, so its first content line may be a later file line.
        first = content.split("\n", 1)[0].rstrip()
        for number in range(tok.map[0], min(tok.map[1], len(lines))):
            if lines[number].rstrip().endswith(first):
                base = number + 1
                break

    # Children come in source order, so the line is found by counting newlines from the previous child
    # (linear in the paragraph, not quadratic), and each content line is placed in its file line once.
    cursor = [0, 0, 0]  # offset, row, start of that row in content
    placed: dict[int, int] = {}  # start of a content line -> its 0-based column in the file line

    def where(offset: int) -> tuple[int, int]:
        """File line and 1-based column of `content[offset]`."""
        if offset >= cursor[0]:
            rows = content.count("\n", cursor[0], offset)
            if rows:
                cursor[1] += rows
                cursor[2] = content.rfind("\n", cursor[0], offset) + 1
        else:  # not expected; stay correct anyway
            cursor[1] = content.count("\n", 0, offset)
            cursor[2] = content.rfind("\n", 0, offset) + 1
        cursor[0] = offset
        line = base + cursor[1]
        ls = cursor[2]
        rel = offset - ls
        if cell:
            if cell_start < 0:
                return line, rel + 1
            if escaped:
                rel = len(content[ls:offset].replace("|", "\\|"))
            return line, cell_start + rel + 1
        start = placed.get(ls)
        if start is None:
            le = content.find("\n", ls)
            piece = content[ls : le if le >= 0 else len(content)].rstrip()
            src = (lines[line - 1] if 0 < line <= len(lines) else "").rstrip()
            bare = piece.lstrip(" ")  # markdown-it turns a tab of a list continuation into spaces
            if src.endswith(piece) or (bare and src.endswith(bare)):
                start = len(src) - len(piece)
            else:
                idx = src.find(piece)  # a heading with a closing sequence
                start = idx if idx >= 0 else 0
            placed[ls] = start
        return line, start + rel + 1

    unclosed: list[int] = tok.meta.get("unclosed_wikilinks", []) if tok.meta else []
    pending = [0, 0]  # next unclosed "[[" to report, last line reported (one report a line: "[[[[" is one mistake)

    def report_unclosed(before: int) -> None:
        while pending[0] < len(unclosed) and unclosed[pending[0]] < before:
            line, col = where(unclosed[pending[0]])
            pending[0] += 1
            if line != pending[1]:
                pending[1] = line
                problems.append(Problem("malformed-link", line, "'[[' is never closed by ']]' on the same line", col))

    for child in tok.children:
        ctype = child.type
        if unclosed and child.meta and "offset" in child.meta:
            report_unclosed(child.meta["offset"])
        if ctype == "wikilink":
            line, col = where(child.meta["offset"])
            m = WIKI_RE.match(child.content)
            assert m is not None
            item = _wikilink(m, line, col)
            if escaped and isinstance(item, Link):
                item = item._replace(raw=item.raw.replace("|", "\\|"))  # as written in the file
            (links if isinstance(item, Link) else problems).append(item)  # type: ignore[arg-type]
        elif ctype in ("link_open", "image") and child.meta and "offset" in child.meta:
            href = child.attrs.get("href" if ctype == "link_open" else "src", "")
            start = child.meta["offset"]
            line, col = where(start)
            raw = content[start : child.meta["end"]]
            if escaped:
                raw = raw.replace("|", "\\|")  # as written in the file
            link = _mdlink(str(href), raw, ctype == "image", line, col)
            if link is not None:
                links.append(link)
        elif ctype == "obsidian_comment" and not child.meta.get("closed", True):
            line, col = where(child.meta["offset"])
            problems.append(Problem("malformed-link", line, "'%%' comment is never closed", col))
    if unclosed:
        report_unclosed(len(content) + 1)


def _frontmatter_links(yaml_text: str, data: dict[str, Any], problems: list[Problem]) -> list[Link]:
    """Quoted wikilinks in property values are links (Obsidian ≥1.4); unquoted ones are YAML lists, not links."""
    links: list[Link] = []
    if "[[" not in yaml_text:
        return links
    lines = yaml_text.split("\n")
    cursor = (0, 0)  # line, column where the search for the next link starts

    def values(v: Any) -> Any:
        if isinstance(v, str):
            yield v
        elif isinstance(v, list):
            for item in v:
                yield from values(item)
        elif isinstance(v, dict):
            for item in v.values():
                yield from values(item)

    for key, value in data.items():
        if isinstance(value, list) and any(isinstance(x, list) for x in value):
            line = next((i + 2 for i, text in enumerate(lines) if text.startswith(f"{key}:")), 2)
            problems.append(Problem("frontmatter", line, f"'{key}' holds an unquoted wikilink: quote it (\"[[...]]\") or Obsidian ignores it"))
        for text in values(value):
            for m in FM_WIKI.finditer(text):
                raw = m.group(0)
                line, col = 2, 1
                for j in range(cursor[0], len(lines)):  # the next occurrence after the previous link
                    idx = lines[j].find(raw, cursor[1] if j == cursor[0] else 0)
                    if idx >= 0:
                        line, col = j + 2, idx + 1
                        cursor = (j, idx + len(raw))
                        break
                path, sub = split_target(m.group(1))
                links.append(Link(FRONTMATTER, path, sub, m.group(2), line, col, raw))
    return links


def decode(path: str, data: bytes) -> tuple[str | None, list[Problem]]:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None, [Problem("encoding", None, "UTF-16 text: Markdown pages must be UTF-8")]
    if b"\x00" in data[:8192]:
        return None, [Problem("encoding", None, "binary file where a Markdown page is expected")]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, [Problem("encoding", line, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at line {line})")]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:  # past the first 8 KB: markdown-it reads each NUL as U+FFFD, so the lines must too
        text = text.replace("\x00", "\ufffd")
    return text, []


def parse_note(path: str, data: bytes, max_bytes: int = MAX_PAGE_BYTES) -> Note:
    text, problems = decode(path, data)
    if text is None:
        return empty_note(path, problems)
    split = fm.split(text)
    problems.extend(split.problems)
    data_fm: dict[str, Any] | None = None
    key_lines: dict[str, int] = {}
    links: list[Link] = []
    if split.yaml_text is not None and len(split.yaml_text) > MAX_FRONTMATTER_CHARS:
        problems.append(
            Problem("frontmatter", 1, f"frontmatter is {len(split.yaml_text) // 1024} KB, over the {MAX_FRONTMATTER_CHARS // 1024} KB limit: not read")
        )
    elif split.yaml_text is not None:
        parsed = fm.parse(split.yaml_text)
        problems.extend(parsed.problems)
        data_fm = parsed.data
        key_lines = fm.key_lines(split.yaml_text)
        if data_fm:
            links.extend(_frontmatter_links(split.yaml_text, data_fm, problems))
    lines = text.split("\n")
    line_count = len(lines) - (1 if text.endswith("\n") else 0)
    body_start = split.block_lines + 1
    if len(data) > max_bytes:
        problems.append(
            Problem("page-too-long", None, f"page is {len(data) / (1024 * 1024):.1f} MB, over the {max_bytes / (1024 * 1024):g} MB parse limit: its links were not read")
        )
        return Note(path, data_fm, split.block_lines, key_lines, links, [], [], problems, line_count, body_start)
    body = "\n".join(lines[split.block_lines :]) if split.block_lines else text
    fast = scan_fast(body, body_start) if fast_eligible(body) else None
    hidden: set[int] | frozenset[int] = frozenset()
    if fast is None and ("`" in body or "~~~" in body):
        masked = mask_code(body)
        if masked is not None and fast_eligible(masked[0]):
            fast = scan_fast(masked[0], body_start)
            if fast is not None:
                headings_only = scan_fast(masked[1], body_start) if masked[1] != masked[0] else fast
                fast = (fast[0], headings_only[1] if headings_only else fast[1], fast[2])
                hidden = {body_start - 1 + k for k in masked[2]}
    if fast is None and ("\\" in body or "&" in body or "<" in body) and "`" not in body:
        marked = mask_markup(body)
        if marked is not None and fast_eligible(marked[0]):
            found = scan_fast(marked[0], body_start)
            if found is not None:
                fast = (found[0], atx_headings(marked[1], body_start), found[2])
                hidden = {body_start - 1 + k for k in marked[2]}
    if fast is not None:
        body_links, headings, body_problems = fast
    else:
        blanked = "\n" * split.block_lines + body if split.block_lines else text
        body_links, headings, body_problems, hidden = scan_full(blanked, body_start, lines)
    links.extend(body_links)
    problems.extend(body_problems)
    blocks = _blocks(lines, hidden, body_start)
    return Note(path, data_fm, split.block_lines, key_lines, links, headings, blocks, problems, line_count, body_start)
