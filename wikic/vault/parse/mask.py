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
    fences = "```" in body or "~~~" in body
    if fences and _INDENTED_FENCE.search(body):
        return None  # an indented fence may belong to a list item: where it ends is markdown-it's call
    math = "$$" in body
    if math and _INDENTED_MATH.search(body):
        return None  # as an indented fence
    # Indented code only where nothing could hold the indented lines instead (a list item, a quote, a
    # footnote's continuation): then they are code exactly when a blank line comes before them. On a page
    # with lists or quotes, only after a paragraph that closed them all (`_after_top_level_paragraph`).
    code = "    " in body and "]:" not in body and _INDENTED_LINE.search(body) is not None
    contained = code and _CONTAINER_LINE.search(body) is not None
    if "<!--" in body or "%%" in body or fences or math or code:
        if _CONTAINED_COMMENT.search(body):
            return None
        n = len(lines)
        k = 0  # the first line not hidden by a block already read
        answered: dict[int, bool] = {}  # `_after_top_level_paragraph`'s answers
        # Only a line opening with one of these characters can open a block: the loop visits those alone.
        for opener in [number for number, text in enumerate(lines) if text[:1] in _BLOCK_OPENERS]:
            if opener < k:
                continue  # inside the block just read
            k = opener
            line = lines[k]
            if (code and line.startswith("    ") and line.strip(" ") and (k == 0 or not lines[k - 1].strip(" "))
                    and (not contained or _after_top_level_paragraph(lines, k, answered))):
                last = k
                while last + 1 < n and (lines[last + 1].startswith("    ") or not lines[last + 1].strip(" ")):
                    last += 1
                while not lines[last].strip(" "):
                    last -= 1  # trailing blank lines end the block
                _blank(lines, k, last, hidden)
                k = last + 1
                continue
            if line.startswith("$$"):
                if k > 0 and lines[k - 1].strip(" \t"):
                    return None  # "$$" cannot interrupt a paragraph: it is inline math, markdown-it's call
                math_end = _math_end(lines, k)
                if math_end is None:
                    return None  # unclosed, or closed mid-line: markdown-it decides (and reports)
                _blank(lines, k, math_end, hidden)
                k = math_end + 1
                continue
            if line[:3] in ("```", "~~~"):
                fence_end = _fence_end(lines, k)
                if fence_end is None:
                    return None
                _blank(lines, k, fence_end, hidden)
                k = fence_end + 1
                continue
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
    starts: list[int] = []  # the blanked spans, in order: [starts[k], ends[k])
    ends: list[int] = []
    text = for_headings
    n = len(text)
    tick_runs: dict[int, list[int]] | None = None
    leading_dollar: bool | None = None
    line_end = -1  # the end of the line of the last code span or comment read
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
        elif ch == "`":
            width = found.end() - i
            if tick_runs is None:
                tick_runs = {}
                for m in _TICKS.finditer(text):
                    tick_runs.setdefault(m.end() - m.start(), []).append(m.start())
            if i > line_end:  # found once a line: a line of many code spans is read once
                line_end = (text.find("\n", i) + 1 or n + 1) - 1
            ticks = _closing_ticks(tick_runs, found.end(), width, line_end)
            if ticks is None:
                return None  # it may close on a later line of its paragraph: markdown-it decides
            if ticks < 0:
                after = found.end()  # no run of its width follows: literal backticks
            else:
                after = ticks + width
                if "|" in text[i:after]:
                    return None  # a table row splits at a pipe even inside code
                blank = after - i
        elif ch == "$":
            if leading_dollar is None:
                leading_dollar = "\\" in text and _LEADING_DOLLAR.search(text) is not None
            if leading_dollar:
                # dollarmath looks for backslashes before a "$" that opens its text (a paragraph's, a heading's,
                # a cell's) at that text's end instead: markdown-it decides
                return None
            math_end = _inline_math_end(text, i)
            if math_end is None:
                return None
            after = math_end
            if "|" in text[i:after]:
                return None  # a table row splits at a pipe even inside math
            blank = after - i  # math, or a dollar that is only text: neither makes a link
        elif ch == "%":  # an Obsidian comment inside a paragraph, closed on its line
            if i > line_end:
                line_end = (text.find("\n", i) + 1 or n + 1) - 1
            close = text.find("%%", i + 2, line_end)
            if close < 0:
                return None  # it runs on to the paragraph's end or a later line: markdown-it decides
            after = close + 2
            blank = after - i
        else:  # "<": a comment or an autolink is blanked; anything else stays for markdown-it to judge
            m = _INLINE_COMMENT.match(text, i) or (
                _AUTOLINK.match(text, i) if text[max(0, i - 2) : i] != "](" else None
            )
            if m is None and text.startswith("<!--", i):
                return None  # a comment running past its line (or malformed): markdown-it decides
            after = m.end() if m is not None else i + 1
            blank = after - i if m is not None else 0
        if blank:
            starts.append(i)
            ends.append(i + blank)
        found = _INLINE_MARKUP.search(text, after)
    if not starts:
        return text, for_headings, hidden
    pieces: list[str] = []
    done = 0
    for start, end in zip(starts, ends, strict=True):
        pieces += (text[done:start], " " * (end - start))
        done = end
    pieces.append(text[done:])
    masked_text = "".join(pieces)
    # A blanked span sits on one line, and a link never crosses a line end: only the lines holding one are
    # searched for a link that blanking joined out of pieces markdown-it never joins.
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
                return None
    return masked_text, for_headings, hidden


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
