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
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin

MAX_NESTING = 100  # block nesting (quotes, lists); Python's recursion limit is far away
INLINE_NESTING = 20  # markdown-it's default
UNCLOSED_KEY = "wikic_unclosed_wikilinks"  # env key: where the inline rule notes unclosed "[["

WIKI_RE = re.compile(r"(!?)\[\[([^\[\]\n|]*?)(?:\|([^\[\]\n]*))?\]\]")


def _wikilink(state: StateInline, silent: bool) -> bool:
    ch = state.src[state.pos]
    if ch != "[" and ch != "!":
        return False
    m = WIKI_RE.match(state.src, state.pos)
    if not m:
        if not silent and ch == "[" and state.src.startswith("[[", state.pos) and not _closes_on_line(state, state.pos + 2):
            # An unclosed "[[": note where, for a problem report, and let the other rules read it as usual.
            unclosed = state.env.get(UNCLOSED_KEY)
            if unclosed is not None:
                unclosed.append(state.pos)
        return False
    if not silent:  # lookahead (silent) mode must not push tokens
        tok = state.push("wikilink", "", 0)
        tok.content = m.group(0)
        tok.meta = {"embed": m.group(1) == "!", "target": m.group(2), "alias": m.group(3), "offset": state.pos}
    state.pos = m.end()
    return True


def _closes_on_line(state: StateInline, pos: int) -> bool:
    """Is there a "]]" after `pos` on its line? Each line's last "]]" is looked up once, so a line of ten
    thousand "[" stays linear."""
    line: tuple[int, int, int] | None = getattr(state, "_wikic_line", None)  # (start, end, last "]]")
    if line is None or not line[0] <= pos <= line[1]:
        src = state.src
        start = src.rfind("\n", 0, pos) + 1
        end = src.find("\n", pos)
        if end < 0:
            end = len(src)
        line = (start, end, src.rfind("]]", start, end))
        state._wikic_line = line  # type: ignore[attr-defined]
    return line[2] >= pos


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


def _container_end(state: StateBlock, start_line: int, end_line: int) -> int:
    """Where the list item holding `start_line` ends: the first non-blank line indented less than it, as
    for a fence. (A list item is tokenized with the end of the whole list as its end line.)"""
    if state.blkIndent == 0:
        return end_line
    line = start_line + 1
    while line < end_line and (state.isEmpty(line) or state.sCount[line] >= state.blkIndent):
        line += 1
    return line


def _math_block_in_container(rule: Any) -> Any:
    """dollarmath's block rule looks for the closing `$$` past the end of a list item (closing the block
    in a later item and hiding what lies between, and taking quadratic time on long lists): bound it."""

    def wrapped(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
        pos = state.bMarks[start_line] + state.tShift[start_line]
        if not state.src.startswith("$$", pos):
            return False
        return bool(rule(state, start_line, _container_end(state, start_line, end_line), silent))

    return wrapped


def _unclosed_math_block(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """A `$$` block that never closes runs to the end of its container, as a fence does (runs after the
    dollarmath rule, which only takes closed blocks)."""
    pos = state.bMarks[start_line] + state.tShift[start_line]
    if state.sCount[start_line] - state.blkIndent >= 4 or not state.src.startswith("$$", pos):
        return False
    end_line = _container_end(state, start_line, end_line)
    if state.src.find("$$", pos + 2, state.eMarks[end_line - 1]) >= 0:
        return False  # closed further on, just not at a line end ("$$a$$ text"): inline math in a paragraph
    if silent:
        return True
    tok = state.push("math_block", "math", 0)
    tok.block = True
    tok.map = [start_line, end_line]
    tok.markup = "$$"
    tok.meta = {"closed": False}
    state.line = end_line
    return True


def _record_offset(rule: Any) -> Any:
    """Wrap markdown-it's link/image rules so their tokens remember where they started (for line numbers)."""

    def wrapped(state: StateInline, silent: bool) -> bool:
        start = state.pos
        # No "]" ahead: no link can form. Saying so at once keeps "[[a [[a [[a ..." from scanning the rest
        # of the paragraph at every "[" (quadratic time in markdown-it's label search).
        last = getattr(state, "_wikic_last_bracket", None)
        if last is None:
            last = state._wikic_last_bracket = state.src.rfind("]")  # type: ignore[attr-defined]
        if last < start:
            return False
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
    if "math_block" in [r.name for r in md.block.ruler.__rules__]:
        rule = md.block.ruler.__rules__[md.block.ruler.__find__("math_block")]
        md.block.ruler.at("math_block", _math_block_in_container(rule.fn))
        md.block.ruler.after("math_block", "math_block_unclosed", _unclosed_math_block)
    for name in ("link", "image"):
        rule = md.inline.ruler.__rules__[md.inline.ruler.__find__(name)]
        md.inline.ruler.at(name, _record_offset(rule.fn))


def _build(max_nesting: int) -> MarkdownIt:
    return (
        # html=True: comments and HTML blocks hide their contents.
        MarkdownIt("commonmark", {"html": True, "maxNesting": max_nesting})
        .enable(["table", "strikethrough"])
        # Like Obsidian (and pandoc), "$" opens or closes inline math only with no space inside it: in
        # "costs $5 and [[A]] for $6" the dollars are money and [[A]] is a link.
        .use(dollarmath_plugin, double_inline=True, allow_space=False)
        .use(footnote_plugin, inline=False, move_to_end=False)  # keep every definition, in place
        .use(obsidian_plugin)
    )


@lru_cache(maxsize=1)
def markdown() -> MarkdownIt:
    """The parser. Blocks may nest MAX_NESTING deep (the preset's 20 would drop the links of a quote or
    list nested deeper, which Obsidian shows); inline content keeps the preset's 20, because markdown-it's
    bracket matching costs grow with it on pages full of unmatched "[" (a separate instance parses it)."""
    md = _build(MAX_NESTING)
    inline_md = _build(INLINE_NESTING)

    def inline(state: StateCore) -> None:
        env = state.env
        for token in state.tokens:
            if token.type == "inline":
                if token.children is None:
                    token.children = []
                env[UNCLOSED_KEY] = unclosed = []
                inline_md.inline.parse(token.content, inline_md, env, token.children)
                if unclosed:  # offsets of "[[" never closed on their line
                    token.meta = {**(token.meta or {}), "unclosed_wikilinks": unclosed}
        env.pop(UNCLOSED_KEY, None)

    md.core.ruler.at("inline", inline)
    return md
