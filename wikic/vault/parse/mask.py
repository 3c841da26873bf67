"""Masking: blank out what hides text but cannot make a link, so more pages take the fast scanner.

Top-level code (fences, indented blocks, one-line code spans), math (`$x$`, top-level `$$` blocks), HTML and
`%%` comments, autolinks, backslash escapes and character references are replaced by spaces or empty lines
exactly where markdown-it would hide them, keeping every offset, so line and column numbers of the links
around them do not move. Whatever is not plainly one of these returns None: markdown-it (`reference.py`)
decides. The property tests in tests/vault hold every accepted page to markdown-it's reading.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from wikic.vault.parse.fast import MDLINK_FIND, WIKI_FIND, WIKI_RE

# CommonMark's ASCII punctuation: a backslash before one of these makes it a literal character.
_ESCAPABLE = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
# Every alternative opens with a literal character, so the regex engine skips ahead by that set of characters
# in C ("``*" rather than "`+", which would hide the set and make each search 5x slower).
_INLINE_MARKUP = re.compile(r"\[\[|\\|&(?:#\d+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);|<|%%|``*|\$")
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


# What a line opening a block that hides lines starts with: indented code, `$$`, a fence, a comment.
_BLOCK_OPENERS = frozenset(" $`~<%")


def _blank(lines: list[str], first: int, last: int, hidden: set[int]) -> None:
    """Empty lines first..last (a block that hides them), keeping the line count."""
    for k in range(first, last + 1):
        lines[k] = ""
        hidden.add(k)


def mask_markup(body: str) -> tuple[str, str, set[int]] | None:
    """Blank out what hides text but cannot make a link, the way markdown-it reads it, so a page whose only
    tricky constructs are these can take the fast path: code, math, HTML comments, autolinks
    (`<https://...>`), backslash escapes (and other backslashes) and character references (`&lt;`), which
    the compiler writes when it makes model text safe. Returns (text for links, text for headings, hidden
    line indexes) with every offset kept, or None when markdown-it must decide.

    Blocks first, line by line from the top: a fence at the margin, a `$$` block after a blank line, indented
    code after a blank line on a page with no container that could claim it, and a line opening with `<!--`
    or `%%` (an HTML or Obsidian comment block) hide every line up to their end. Then the text is read left
    to right as markdown-it's inline rules do: at "[[" a wikilink comes first (an escape inside one is part
    of its target, `[[a\\|b]]`), a backslash takes the next punctuation character (`\\[[x]]` is no link,
    `\\\\[[x]]` is one), a backtick run opens a code span closed on its line, a `$` opens math closed on its
    line (or is text), `<` opens a comment or an autolink on its line, and a reference is text
    (`&#91;&#91;x]]` is no link). Anything of these inside a Markdown link (its text or destination change),
    or whose blanking would join a link out of pieces markdown-it never joins (`[[a\\]b]]`), is left to
    markdown-it. Headings come from the text with only the blocks blanked: `#\\# x` is no heading, though
    its masked form would be.
    """
    lines = body.split("\n")
    hidden: set[int] = set()
    if not _blank_blocks(body, lines, hidden):
        return None
    for_headings = "\n".join(lines) if hidden else body
    spans = _InlineReader(for_headings).spans()
    if spans is None:
        return None
    starts, ends = spans
    if not starts:
        return for_headings, for_headings, hidden
    masked_text = _blanked(for_headings, starts, ends)
    if _joins_a_link(masked_text, starts, ends):
        return None
    return masked_text, for_headings, hidden


_NO_BLOCK = -1  # `_block_end`: no block opens at the line


@dataclass
class _Blocks:
    """What a page holds that decides how its blocks read: indented code (`code`) that a list item or a quote
    might hold instead (`contained`); `answered`: `_after_top_level_paragraph`'s answers."""

    code: bool
    contained: bool
    answered: dict[int, bool] = field(default_factory=dict)


def _blank_blocks(body: str, lines: list[str], hidden: set[int]) -> bool:
    """Blank, in `lines`, the blocks that hide lines (their indexes into `hidden`), line by line from the
    top; False when markdown-it must decide."""
    fences = "```" in body or "~~~" in body
    if fences and _INDENTED_FENCE.search(body):
        return False  # an indented fence may belong to a list item: where it ends is markdown-it's call
    math = "$$" in body
    if math and _INDENTED_MATH.search(body):
        return False  # as an indented fence
    # Indented code only where nothing could hold the indented lines instead (a list item, a quote, a
    # footnote's continuation): then they are code exactly when a blank line comes before them. On a page
    # with lists or quotes, only after a paragraph that closed them all (`_after_top_level_paragraph`).
    code = "    " in body and "]:" not in body and _INDENTED_LINE.search(body) is not None
    if not ("<!--" in body or "%%" in body or fences or math or code):
        return True
    if _CONTAINED_COMMENT.search(body):
        return False
    page = _Blocks(code, code and _CONTAINER_LINE.search(body) is not None)
    k = 0  # the first line not hidden by a block already read
    # Only a line opening with one of these characters can open a block: the loop visits those alone.
    for opener in [number for number, text in enumerate(lines) if text[:1] in _BLOCK_OPENERS]:
        if opener < k:
            continue  # inside the block just read
        k = opener
        end = _block_end(lines, k, page)
        if end is None:
            return False
        if end == _NO_BLOCK:
            k += 1
            continue
        _blank(lines, k, end, hidden)
        k = end + 1
    return True


def _block_end(lines: list[str], k: int, page: _Blocks) -> int | None:
    """The last line of the block that line `k` opens, `_NO_BLOCK` when it opens none, or None when
    markdown-it must decide."""
    line = lines[k]
    if (page.code and line.startswith("    ") and line.strip(" ") and (k == 0 or not lines[k - 1].strip(" "))
            and (not page.contained or _after_top_level_paragraph(lines, k, page.answered))):
        return _code_end(lines, k)
    if line.startswith("$$"):
        if k > 0 and lines[k - 1].strip(" \t"):
            return None  # "$$" cannot interrupt a paragraph: it is inline math, markdown-it's call
        return _math_end(lines, k)  # None: unclosed, or closed mid-line: markdown-it decides (and reports)
    if line[:3] in ("```", "~~~"):
        return _fence_end(lines, k)
    if _COMMENT_BLOCK_START.match(line):
        return _comment_end(lines, k)
    if _OBSIDIAN_BLOCK_START.match(line):
        return _obsidian_comment_end(lines, k)
    return _NO_BLOCK


def _code_end(lines: list[str], k: int) -> int:
    """The last line of the indented code block opening at `k`: trailing blank lines end the block."""
    last = k
    while last + 1 < len(lines) and (lines[last + 1].startswith("    ") or not lines[last + 1].strip(" ")):
        last += 1
    while not lines[last].strip(" "):
        last -= 1
    return last


def _comment_end(lines: list[str], k: int) -> int | None:
    """The last line of the HTML comment block opening at `k`, or None when markdown-it must decide."""
    end = next((e for e in range(k, len(lines)) if "-->" in lines[e]), None)  # "<!-->" ends at once
    if end is None:
        return None  # an unclosed comment hides the rest of the page: markdown-it reports it
    if end > k and lines[k][0] == " ":
        return None  # may sit in a list item, which can end before the comment does
    return end


def _obsidian_comment_end(lines: list[str], k: int) -> int | None:
    """The last line of the `%%` comment block opening at `k`; `_NO_BLOCK` for "%% c %% text", which opens a
    paragraph (an inline comment, blanked with the inline markup); None when markdown-it must decide."""
    line = lines[k]
    opened = line.index("%%") + 2
    end, close = k, line.find("%%", opened)
    while close < 0 and end + 1 < len(lines):
        end += 1
        close = lines[end].find("%%")
    if close < 0:
        return None  # an unclosed %% hides the rest of the page: markdown-it reports it
    trailing = lines[end][close + 2 :].strip()
    if trailing and end == k:
        return _NO_BLOCK
    if trailing or (end > k and line[0] == " "):
        return None  # text after a closing %% is a block of its own; a list item may end first
    return end


class _InlineReader:
    """A page's text read left to right as markdown-it's inline rules do. Each `_read_*` takes the markup
    found at `i` and returns (where reading goes on, how many characters from `i` are blanked), or None when
    markdown-it must decide."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._tick_runs: dict[int, list[int]] | None = None  # the starts of the backtick runs, by width
        self._leading_dollar: bool | None = None
        self._line_end = -1  # the end of the line of the last code span or comment read

    def spans(self) -> tuple[list[int], list[int]] | None:
        """The spans to blank, in order ([starts[k], ends[k])), or None when markdown-it must decide."""
        starts: list[int] = []
        ends: list[int] = []
        found = _INLINE_MARKUP.search(self.text)
        while found is not None:
            read = self._read(found)
            if read is None:
                return None
            after, blank = read
            if blank:
                starts.append(found.start())
                ends.append(found.start() + blank)
            found = _INLINE_MARKUP.search(self.text, after)
        return starts, ends

    def _read(self, found: re.Match[str]) -> tuple[int, int] | None:
        i = found.start()
        ch = self.text[i]
        if ch == "[":
            m = WIKI_RE.match(self.text, i)
            return (m.end() if m is not None else i + 1), 0
        if ch == "\\":
            after = i + 2 if i + 1 < len(self.text) and self.text[i + 1] in _ESCAPABLE else i + 1
            return after, after - i
        if ch == "&":
            return found.end(), found.end() - i
        if ch == "`":
            return self._read_code(i, found.end())
        if ch == "$":
            return self._read_math(i)
        if ch == "%":
            return self._read_comment(i)
        return self._read_angle(i)

    def _line_end_after(self, i: int) -> int:
        """The end of the line holding `i`, found once a line: a line of many code spans is read once."""
        if i > self._line_end:
            self._line_end = (self.text.find("\n", i) + 1 or len(self.text) + 1) - 1
        return self._line_end

    def _read_code(self, i: int, opened: int) -> tuple[int, int] | None:
        """A backtick run: a code span closed on its line, or literal backticks."""
        width = opened - i
        if self._tick_runs is None:
            self._tick_runs = {}
            for m in _TICKS.finditer(self.text):
                self._tick_runs.setdefault(m.end() - m.start(), []).append(m.start())
        ticks = _closing_ticks(self._tick_runs, opened, width, self._line_end_after(i))
        if ticks is None:
            return None  # it may close on a later line of its paragraph: markdown-it decides
        if ticks < 0:
            return opened, 0  # no run of its width follows: literal backticks
        after = ticks + width
        if "|" in self.text[i:after]:
            return None  # a table row splits at a pipe even inside code
        return after, after - i

    def _read_math(self, i: int) -> tuple[int, int] | None:
        """A `$`: math, or a dollar that is only text; neither makes a link."""
        if self._leading_dollar is None:
            self._leading_dollar = "\\" in self.text and _LEADING_DOLLAR.search(self.text) is not None
        if self._leading_dollar:
            # dollarmath looks for backslashes before a "$" that opens its text (a paragraph's, a heading's,
            # a cell's) at that text's end instead: markdown-it decides
            return None
        after = _inline_math_end(self.text, i)
        if after is None or "|" in self.text[i:after]:
            return None  # a table row splits at a pipe even inside math
        return after, after - i

    def _read_comment(self, i: int) -> tuple[int, int] | None:
        """An Obsidian comment inside a paragraph, closed on its line."""
        close = self.text.find("%%", i + 2, self._line_end_after(i))
        if close < 0:
            return None  # it runs on to the paragraph's end or a later line: markdown-it decides
        return close + 2, close + 2 - i

    def _read_angle(self, i: int) -> tuple[int, int] | None:
        """A `<`: a comment or an autolink is blanked; anything else stays for markdown-it to judge."""
        text = self.text
        m = _INLINE_COMMENT.match(text, i) or (_AUTOLINK.match(text, i) if text[max(0, i - 2) : i] != "](" else None)
        if m is None and text.startswith("<!--", i):
            return None  # a comment running past its line (or malformed): markdown-it decides
        return (m.end(), m.end() - i) if m is not None else (i + 1, 0)


def _blanked(text: str, starts: list[int], ends: list[int]) -> str:
    """`text` with each span [starts[k], ends[k]) replaced by spaces."""
    pieces: list[str] = []
    done = 0
    for start, end in zip(starts, ends, strict=True):
        pieces += (text[done:start], " " * (end - start))
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


def _joins_a_link(masked_text: str, starts: list[int], ends: list[int]) -> bool:
    """Blanking the spans joined a link out of pieces markdown-it never joins. A blanked span sits on one line,
    and a link never crosses a line end: only the lines holding one are searched."""
    line_end = -1
    for span_start in starts:
        if span_start < line_end:
            continue  # that line was searched already
        line_start = masked_text.rfind("\n", 0, span_start) + 1
        line_end = masked_text.find("\n", span_start)
        if line_end < 0:
            line_end = len(masked_text)
        for m in (*WIKI_FIND.finditer(masked_text, line_start, line_end),
                  *MDLINK_FIND.finditer(masked_text, line_start, line_end)):
            k = bisect.bisect_right(ends, m.start())  # the first blanked span ending past the link's start
            if k < len(starts) and starts[k] < m.end():
                return True
    return False


_FENCE_OPEN = re.compile(r"(`{3,}|~{3,})(.*)")
_INDENTED_FENCE = re.compile(r"^ {1,3}(?:`{3}|~{3})", re.M)
_TICKS = re.compile(r"`+")


_INDENTED_MATH = re.compile(r"^ {1,3}\$\$", re.M)
# A "$" that may open the text of a paragraph, heading or table cell: only markers, spaces and pipes before it
# on its line (a "$" there opens inline math unless that text ends in a backslash, dollarmath's quirk).
_LEADING_DOLLAR = re.compile(r"^[ >*+\-0-9.)#|]*\$|\|[^\n|]*?\$", re.M)
_INDENTED_LINE = re.compile(r"^ {4,}[^ \n]", re.M)
_CONTAINER_LINE = re.compile(r"^ {0,3}(?:[-*+>]|\d{1,9}[.)])(?:[ ]|$)", re.M)
# dollarmath's closing "$$" with an equation label after it ("$$ (eq1)"), read on the reversed line
_EQUATION_LABEL_REVERSED = re.compile(r"^\s*\)([^)$\r\n]+?)\(\s*\${2}")
# markdown-it's whitespace (isWhiteSpace): after an opening "$" or before a closing one, it makes no math
_MD_SPACE = frozenset("\t\n\x0b\x0c\r \xa0\u1680\u202f\u205f\u3000" + "".join(map(chr, range(0x2000, 0x200B))))


def _after_top_level_paragraph(lines: list[str], k: int, answered: dict[int, bool]) -> bool:
    """Whether no list item or quote can hold line `k`, which follows a blank line: the lines before it, past
    blank ones, are the top of the page or a paragraph whose every line starts at the margin with no list or
    quote marker, and whose first line follows a blank line (or a block already blanked, which no paragraph
    is). That first line is no lazy continuation then, and being at the margin it closed every list item and
    quote open before it. `lines`: the page's lines, the blocks read so far blanked. `answered`: the answer
    of each earlier call, by the blank line before its `k`; a call reading back to such a line has the same
    paragraph before it (only lines after it were blanked since), so a page of code blocks reads back over
    each once, not over all of them from each."""
    j = k - 1
    while j >= 0 and not lines[j].strip(" "):
        if j in answered:
            answered[k - 1] = answered[j]
            return answered[j]
        j -= 1
    after = True
    while j >= 0 and lines[j].strip(" "):
        line = lines[j]
        if line[0] in " \t" or _CONTAINER_LINE.match(line):
            after = False
            break
        j -= 1
    if k > 0:
        answered[k - 1] = after
    return after


def _math_end(lines: list[str], start: int) -> int | None:
    """The last line of the top-level `$$` block opening at `start`, as dollarmath finds it (a line ending in
    `$$` or `$$ (label)`, blank lines allowed), or None when it is not plainly such a block."""
    first = lines[start]
    if len(first.strip()) > 3:
        if first.strip().endswith("$$") or _EQUATION_LABEL_REVERSED.match(first[::-1]):
            return start
        if "$$" in first[2:]:
            return None
    for k in range(start + 1, len(lines)):
        if lines[k].strip().endswith("$$") or _EQUATION_LABEL_REVERSED.match(lines[k][::-1]):
            return k
    return None


def _inline_math_end(text: str, start: int) -> int | None:
    """Where what the `$` at `start` opens ends, as dollarmath reads it: past the closing `$` of inline math,
    or just past the `$` itself when it opens none (it is text). None when only markdown-it can tell: `$$`
    inside a paragraph, a closing `$` on a later line of the paragraph, or a backslash before the first `$`
    after it (dollarmath counts backslashes in the text as written, escaped or not, to judge a closing `$`).
    A backslash before the opening `$` is the caller's: it was read as an escape before this `$`."""
    if text.startswith("$$", start):
        return None
    if start + 1 >= len(text) or text[start + 1] in _MD_SPACE:
        return start + 1
    close = text.find("$", start + 1)
    if close < 0:
        return start + 1
    if "\n" in text[start:close] or "\\" in text[start:close]:
        return None
    if text[close - 1] in _MD_SPACE:
        return start + 1  # dollarmath gives up at the first closing candidate
    return close + 1


def _fence_end(lines: list[str], start: int) -> int | None:
    """The closing line of the top-level fence opening at `start`, or None when it is unclosed or its
    opening line is not plainly a fence (a backtick in the info string)."""
    m = _FENCE_OPEN.fullmatch(lines[start])
    if m is None or (m.group(1)[0] == "`" and "`" in m.group(2)):
        return None
    char, size = m.group(1)[0], len(m.group(1))
    close = re.compile(r" {0,3}" + re.escape(char) + "{" + str(size) + r",}[ \t]*")
    return next((k for k in range(start + 1, len(lines)) if close.fullmatch(lines[k])), None)


def _closing_ticks(runs: dict[int, list[int]], start: int, width: int, line_end: int) -> int | None:
    """Where the run of exactly `width` backticks that closes a code span opened before `start` begins: on
    the same line, which ends at `line_end`; -1 when no such run follows anywhere (the opener is literal text);
    None when the only candidates lie on later lines (a code span may run on inside its paragraph). `runs`:
    the starts of every backtick run of the text, by width."""
    starts = runs.get(width, [])
    k = bisect.bisect_left(starts, start)
    if k == len(starts):
        return -1
    return starts[k] if starts[k] < line_end else None
