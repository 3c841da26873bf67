"""Masking: blank out what hides text but cannot make a link, so more pages take the fast scanner.

Top-level code (fences, one-line code spans), HTML and `%%` comments, autolinks, backslash escapes and
character references are replaced by spaces or empty lines exactly where markdown-it would hide them, keeping
every offset, so line and column numbers of the links around them do not move. Whatever is not plainly one
of these returns None: markdown-it (`reference.py`) decides.
"""

from __future__ import annotations

import bisect
import re

from wikic.vault.parse.fast import ANGLE_DEST, SIMPLE_MDLINK, WIKI_RE

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
            m = _INLINE_COMMENT.match(text, i) or (
                _AUTOLINK.match(text, i) if text[max(0, i - 2) : i] != "](" else None
            )
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
    if "\\" in body.replace("\\|", "") or "<" in ANGLE_DEST.sub("", body) or _INDENTED_FENCE.search(body):
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
