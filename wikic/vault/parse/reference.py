"""The reference parser: markdown-it-py plus Obsidian's own syntax (wikilinks, embeds, %% comments).

It decides what is and is not a link exactly as Obsidian does: nothing inside code, HTML comments or
blocks, %% comments, math, or behind a backslash escape. `scan_full` reads every page the fast scanner
(`fast.py`) declines, and is the oracle the fast scanner is tested against. markdown-it is imported when
the parser is first built, so a vault whose pages all take the fast path never loads it.
"""

from __future__ import annotations

import functools
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from wikic.vault.model import Heading, Link, Problem
from wikic.vault.parse.fast import WIKI_RE, make_mdlink, make_wikilink

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_block import StateBlock
    from markdown_it.rules_core import StateCore
    from markdown_it.rules_inline import StateInline

MAX_NESTING = 100  # block nesting (quotes, lists); Python's recursion limit is far away
INLINE_NESTING = 20  # markdown-it's default
UNCLOSED_KEY = "wikic_unclosed_wikilinks"  # env key: where the inline rule notes unclosed "[["

def _wikilink(state: StateInline, silent: bool) -> bool:
    ch = state.src[state.pos]
    if ch != "[" and ch != "!":
        return False
    m = WIKI_RE.match(state.src, state.pos)
    if not m:
        if (
            not silent
            and ch == "["
            and state.src.startswith("[[", state.pos)
            and not _closes_on_line(state, state.pos + 2)
        ):
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


# A run of characters at none of which any inline rule of these parsers starts a token: the text rule stops at
# most of these (markdown-it's terminators) to let a rule try, and then every rule is tried at each of them in
# turn, a dozen calls a character on a page of "]" or "-". Outside a lookahead (which must step one token at a
# time through a link's label, "]" included) such a run is text at once, as it would be a character at a time.
_PLAIN_RUN = re.compile(r"[^\n$\\`~*_%\[!<&]+")


def _plain_run(state: StateInline, silent: bool) -> bool:
    if silent:
        return False
    found = _PLAIN_RUN.match(state.src, state.pos, state.posMax)
    if found is None:
        return False
    state.append_pending(found.group())
    state.pos = found.end()
    return True


# The characters each inline rule can start a token at (its first test): every other rule is passed over at a
# character by `_by_first_character`. "text" and "plain_run" take the characters these leave.
_RULE_STARTS = {
    "newline": "\n", "math_inline": "$", "escape": "\\", "backticks": "`", "strikethrough": "~", "emphasis": "*_",
    "obsidian_comment": "%", "wikilink": "[!", "link": "[", "image": "!", "footnote_ref": "[", "autolink": "<",
    "html_inline": "<", "entity": "&",
}


def _remember_failures(rule: Any, name: str) -> Any:
    """The link or image rule, answering False at once where it failed before: what it reads is fixed once
    read (a label's end is found through markdown-it's cache of token ends, whatever the nesting it is read
    at), so it fails there again. Every "[" is tried in a lookahead before the tokenizer reaches it, so on a
    page of brackets this halves the reading."""

    @functools.wraps(rule)
    def remembering(state: StateInline, silent: bool) -> bool:
        failed: set[tuple[str, int, int]] = state.__dict__.setdefault("_wikic_failed", set())
        key = (name, state.pos, state.posMax)
        if key in failed:
            return False
        if rule(state, silent):
            return True
        failed.add(key)
        return False

    return remembering


_LABEL_END = re.compile(r"[ \n\]]")  # what ends a footnote reference's label


def _footnote_ref_in_bounds(rule: Any) -> Any:
    """The footnote reference rule, answering False at once where it would fail: it reads a label one character
    at a time to its "]", a space or a line's end, so a paragraph of "[^" that none of these follows (on a page
    with a footnote) was read to its end from each. Here the label's end is looked up (the last one found
    serves every "[^" before it), and a label of a length no footnote has, or none defines, is no reference."""

    @functools.wraps(rule)
    def bounded(state: StateInline, silent: bool) -> bool:
        start = state.pos
        src = state.src
        if not src.startswith("[^", start):
            return False
        footnotes = state.env.get("footnotes")
        refs = footnotes.get("refs") if isinstance(footnotes, dict) else None
        if not refs:
            return bool(rule(state, silent))  # it answers at once
        cached: tuple[int, int] | None = state.__dict__.get("_wikic_label_end")
        if cached is None or not cached[0] <= start + 2 <= (cached[1] if cached[1] >= 0 else len(src)):
            found = _LABEL_END.search(src, start + 2)
            cached = state._wikic_label_end = (start + 2, found.start() if found else -1)  # type: ignore[attr-defined]
        end = cached[1]
        if end < 0 or end >= state.posMax or src[end] != "]" or end == start + 2:
            return False
        lengths: set[int] = state.__dict__.get("_wikic_label_lengths") or set()
        if not lengths:
            lengths = state._wikic_label_lengths = {len(key) - 1 for key in refs}  # type: ignore[attr-defined]
        if end - start - 2 not in lengths or ":" + src[start + 2 : end] not in refs:
            return False
        return bool(rule(state, silent))

    return bounded


def _by_first_character(md: MarkdownIt) -> None:
    """Run only the inline rules that can start at the character at hand, in their order: markdown-it tries
    every rule at every character its text rule stops at (a dozen calls for each "[" of a page of brackets),
    and each but these returns False at once. The same rules in the same order, so the same tokens; a chain
    holding a rule this does not know is left as it is."""
    ruler = md.inline.ruler
    chain = [(rule.name, rule.fn) for rule in ruler.__rules__ if rule.enabled]
    if any(name not in _RULE_STARTS and name not in ("text", "plain_run") for name, _ in chain):
        return
    terminator = md.inline.terminator_re
    table: dict[str, tuple[Any, ...]] = {}

    def starts_at(name: str, char: str) -> bool:
        if name == "text":
            return terminator.match(char) is None
        if name == "plain_run":
            return _PLAIN_RUN.match(char) is not None
        return char in _RULE_STARTS[name]

    def by_first_character(state: StateInline, silent: bool) -> bool:
        char = state.src[state.pos]
        rules = table.get(char)
        if rules is None:
            rules = table[char] = tuple(fn for name, fn in chain if starts_at(name, char))
        for rule in rules:  # noqa: SIM110 - any() over a generator costs a tenth more at every character
            if rule(state, silent):
                return True
        return False

    ruler.disable([name for name, _ in chain])
    ruler.push("by_first_character", by_first_character)


def obsidian_plugin(md: MarkdownIt) -> None:
    md.inline.ruler.before("link", "wikilink", _wikilink)
    md.inline.ruler.before("wikilink", "obsidian_comment", _inline_comment)
    md.block.ruler.before(
        "paragraph", "obsidian_comment_block", _block_comment, {"alt": ["paragraph", "reference", "blockquote", "list"]}
    )
    if "math_block" in [r.name for r in md.block.ruler.__rules__]:
        math = md.block.ruler.__rules__[md.block.ruler.__find__("math_block")]
        md.block.ruler.at("math_block", _math_block_in_container(math.fn))
        md.block.ruler.after("math_block", "math_block_unclosed", _unclosed_math_block)
    for name in ("link", "image"):
        rule = md.inline.ruler.__rules__[md.inline.ruler.__find__(name)]
        md.inline.ruler.at(name, _record_offset(rule.fn))


def _build(max_nesting: int) -> MarkdownIt:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin
    from mdit_py_plugins.footnote import footnote_plugin

    from wikic.vault.parse.link_helpers import helpers

    md = (
        # html=True: comments and HTML blocks hide their contents.
        MarkdownIt("commonmark", {"html": True, "maxNesting": max_nesting})
        .enable(["table", "strikethrough"])
        # Like Obsidian (and pandoc), "$" opens or closes inline math only with no space inside it: in
        # "costs $5 and [[A]] for $6" the dollars are money and [[A]] is a link.
        .use(dollarmath_plugin, double_inline=True, allow_space=False)
        .use(footnote_plugin, inline=False, move_to_end=False)  # keep every definition, in place
        .use(obsidian_plugin)
    )
    md.helpers = helpers()  # the same link label and destination readers, faster on text full of brackets
    md.inline.ruler.before("text", "plain_run", _plain_run)
    for name in ("link", "image"):
        rule = md.inline.ruler.__rules__[md.inline.ruler.__find__(name)]
        md.inline.ruler.at(name, _remember_failures(rule.fn, name))
    rule = md.inline.ruler.__rules__[md.inline.ruler.__find__("footnote_ref")]
    md.inline.ruler.at("footnote_ref", _footnote_ref_in_bounds(rule.fn))
    _by_first_character(md)
    return md


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
                content = token.content
                if "[" not in content and "%%" not in content:
                    continue  # every link, and every problem reported from inline text, needs one of these
                unclosed: list[int] = []
                env[UNCLOSED_KEY] = unclosed
                inline_md.inline.parse(content, inline_md, env, token.children)
                if unclosed:  # offsets of "[[" never closed on their line
                    token.meta = {**(token.meta or {}), "unclosed_wikilinks": unclosed}
        env.pop(UNCLOSED_KEY, None)

    md.core.ruler.at("inline", inline)
    return md


_HIDING_BLOCKS = frozenset(
    {"fence", "code_block", "html_block", "math_block", "math_block_label", "obsidian_comment_block"}
)


def scan_full(
    text: str, first_line: int, lines: list[str]
) -> tuple[list[Link], list[Heading], list[Problem], set[int]]:
    """markdown-it pass over the whole text (frontmatter blanked so line numbers stay absolute)."""
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
                    Problem(
                        "malformed-link",
                        tok.map[0] + 1,
                        "code fence is never closed: it hides the rest of the page (or of its list item or quote)",
                    )
                )
            if ttype == "math_block" and not tok.meta.get("closed", True):
                problems.append(
                    Problem(
                        "malformed-link",
                        tok.map[0] + 1,
                        "'$$' math block is never closed: it hides the rest of the page (or of its list item or quote)",
                    )
                )
            if ttype == "obsidian_comment_block" and not tok.meta.get("closed", True):
                problems.append(
                    Problem(
                        "malformed-link", tok.map[0] + 1, "'%%' comment is never closed: it hides the rest of the page"
                    )
                )
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
            item = make_wikilink(m.group(1) == "!", m.group(2), m.group(3), m.group(0), line, col)
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
            link = make_mdlink(str(href), raw, ctype == "image", line, col)
            if link is not None:
                links.append(link)
        elif ctype == "obsidian_comment" and not child.meta.get("closed", True):
            line, col = where(child.meta["offset"])
            problems.append(Problem("malformed-link", line, "'%%' comment is never closed", col))
    if unclosed:
        report_unclosed(len(content) + 1)
