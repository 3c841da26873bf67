"""The reference parser: markdown-it-py plus Obsidian's own syntax (wikilinks, embeds, %% comments).

It decides what is and is not a link exactly as contract §5 says: nothing inside code, HTML comments or
blocks, %% comments, math, or behind a backslash escape. Used for every page the fast scanner
(`parse.scan_fast`) declines, and as the oracle the fast scanner is tested against.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin

MAX_NESTING = 100

WIKI_RE = re.compile(r"(!?)\[\[([^\[\]\n|]*?)(?:\|([^\[\]\n]*))?\]\]")


def _wikilink(state: StateInline, silent: bool) -> bool:
    ch = state.src[state.pos]
    if ch != "[" and ch != "!":
        return False
    m = WIKI_RE.match(state.src, state.pos)
    if not m:
        if ch == "[" and state.src.startswith("[[", state.pos) and not _closes_on_line(state.src, state.pos + 2):
            # An unclosed "[[": mark its first "[" (consumed like text, so link parsing is unchanged) so the
            # caller can report it at its exact place.
            if not silent:
                tok = state.push("wikilink_unclosed", "", 0)
                tok.content = "["
                tok.meta = {"offset": state.pos}
            state.pos += 1
            return True
        return False
    if not silent:  # lookahead (silent) mode must not push tokens
        tok = state.push("wikilink", "", 0)
        tok.content = m.group(0)
        tok.meta = {"embed": m.group(1) == "!", "target": m.group(2), "alias": m.group(3), "offset": state.pos}
    state.pos = m.end()
    return True


def _closes_on_line(src: str, pos: int) -> bool:
    eol = src.find("\n", pos)
    return src.find("]]", pos, eol if eol >= 0 else len(src)) >= 0


def _inline_comment(state: StateInline, silent: bool) -> bool:
    """`%%...%%` inside a paragraph: hidden by Obsidian, so nothing in it is a link."""
    if not state.src.startswith("%%", state.pos):
        return False
    end = state.src.find("%%", state.pos + 2)
    if not silent:
        tok = state.push("obsidian_comment", "", 0)
        tok.meta = {"closed": end >= 0, "offset": state.pos}
    state.pos = state.posMax if end < 0 else end + 2
    return True


def _block_comment(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """A `%%` comment that opens a block runs to the line holding the closing `%%` (or the end of the
    container). Text after the closing `%%` on that line is ordinary Markdown again."""
    pos = state.bMarks[start_line] + state.tShift[start_line]
    if state.sCount[start_line] - state.blkIndent >= 4 or not state.src.startswith("%%", pos):
        return False
    src = state.src
    close = src.find("%%", pos + 2)
    last = end_line - 1
    if close >= 0:
        last = start_line
        while last < end_line - 1 and state.eMarks[last] < close:
            last += 1
        if state.eMarks[last] < close:
            close = -1  # the closing "%%" lies outside this container: closed by the container's end
    after = close + 2
    trailing = close >= 0 and src[after : state.eMarks[last]].strip() != ""
    if trailing and last == start_line:
        return False  # "%% c %% text": an inline comment at the start of a paragraph
    if silent:
        return True
    tok = state.push("obsidian_comment_block", "", 0)
    tok.meta = {"closed": close >= 0}
    if trailing:
        # Hide the lines before the closing one and let the rest of that line be parsed on its own.
        tok.map = [start_line, last]
        first = after
        while first < state.eMarks[last] and src[first] in " \t":
            first += 1
        state.bMarks[last] = after
        state.tShift[last] = first - after
        state.sCount[last] = state.blkIndent
        state.line = last
    else:
        tok.map = [start_line, last + 1]
        state.line = last + 1
    return True


def _record_offset(rule: Any) -> Any:
    """Wrap markdown-it's link/image rules so their tokens remember where they started (for line numbers)."""

    def wrapped(state: StateInline, silent: bool) -> bool:
        start = state.pos
        count = len(state.tokens)
        ok = bool(rule(state, silent))
        if ok and not silent:
            for tok in state.tokens[count:]:
                if tok.type in ("link_open", "image"):
                    tok.meta = {**(tok.meta or {}), "offset": start, "end": state.pos}
                    break
        return ok

    return wrapped


def obsidian_plugin(md: MarkdownIt) -> None:
    md.inline.ruler.before("link", "wikilink", _wikilink)
    md.inline.ruler.before("wikilink", "obsidian_comment", _inline_comment)
    md.block.ruler.before(
        "paragraph", "obsidian_comment_block", _block_comment, {"alt": ["paragraph", "reference", "blockquote", "list"]}
    )
    for name in ("link", "image"):
        rule = md.inline.ruler.__rules__[md.inline.ruler.__find__(name)]
        md.inline.ruler.at(name, _record_offset(rule.fn))


@lru_cache(maxsize=1)
def markdown() -> MarkdownIt:
    return (
        # html=True: comments and HTML blocks hide their contents. maxNesting (20 in the preset) would drop
        # the links of a quote or list nested deeper; Obsidian shows them. Recursion stays far below Python's limit.
        MarkdownIt("commonmark", {"html": True, "maxNesting": MAX_NESTING})
        .enable(["table", "strikethrough"])
        # Like Obsidian (and pandoc), "$" opens or closes inline math only with no space inside it: in
        # "costs $5 and [[A]] for $6" the dollars are money and [[A]] is a link.
        .use(dollarmath_plugin, double_inline=True, allow_space=False)
        .use(footnote_plugin, inline=False, move_to_end=False)  # keep every definition, in place
        .use(obsidian_plugin)
    )
