"""The reference parser: markdown-it-py plus Obsidian's own syntax (wikilinks, embeds, %% comments).

It decides what is and is not a link exactly as contract §5 says: nothing inside code, HTML comments or
blocks, %% comments, math, or behind a backslash escape. Used for every page the fast scanner
(`scan.py`) declines, and as the oracle the fast scanner is tested against.
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

WIKI_RE = re.compile(r"(!?)\[\[([^\[\]\n|]*?)(?:\|([^\[\]\n]*))?\]\]")


def _wikilink(state: StateInline, silent: bool) -> bool:
    ch = state.src[state.pos]
    if ch != "[" and ch != "!":
        return False
    m = WIKI_RE.match(state.src, state.pos)
    if not m:
        return False
    if not silent:  # lookahead (silent) mode must not push tokens
        tok = state.push("wikilink", "", 0)
        tok.content = m.group(0)
        tok.meta = {"embed": m.group(1) == "!", "target": m.group(2), "alias": m.group(3), "offset": state.pos}
    state.pos = m.end()
    return True


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
    """A `%%` comment that opens a block runs to the line holding the closing `%%` (or the end of the note)."""
    pos = state.bMarks[start_line] + state.tShift[start_line]
    if state.sCount[start_line] - state.blkIndent >= 4 or not state.src.startswith("%%", pos):
        return False
    close = state.src.find("%%", pos + 2)
    if silent:
        return True
    line = start_line
    if close < 0:
        line = end_line - 1
    else:
        while line < end_line - 1 and state.eMarks[line] < close:
            line += 1
    tok = state.push("obsidian_comment_block", "", 0)
    tok.map = [start_line, line + 1]
    tok.meta = {"closed": close >= 0}
    state.line = line + 1
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
                    tok.meta = {**(tok.meta or {}), "offset": start}
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
        MarkdownIt("commonmark", {"html": True})  # html=True: comments and HTML blocks hide their contents
        .enable(["table", "strikethrough"])
        .use(dollarmath_plugin, double_inline=True)
        .use(footnote_plugin)
        .use(obsidian_plugin)
    )
