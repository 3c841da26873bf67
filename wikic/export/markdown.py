"""A page's Markdown as HTML: markdown-it with the maintained plugins, and wikic's rules for what Obsidian adds.

The reference parser's Obsidian rules (`vault/parse/reference.py`: wikilinks and embeds, `%%` comments, `$$`
blocks bounded by their container) read the page, so a link is a link here exactly where lint sees one. On
top of them: a citation (`^[[[raw/x.md|x.md]] L10-L11]`, read by `vault/formats/anchors.py`) becomes a link to
the raw source's lines carrying the quoted text; a callout (`> [!note]- Title`) a `<details>` (folded with
`-`, open with `+`) or a box; a block id (`^abc123` ending a block) the block's `id`, not shown; `#tag` a tag
chip; a heading gets the id its `[[page#Heading]]` links reach. The site (`Pages`) says where a link lands,
what an embed shows and what a citation quotes.

No HTML written in a page reaches the site: a comment (wikic's block markers, the claims ledger) is dropped
and any other tag is shown as text, so a hostile page cannot put a script into the site; markdown-it's own
link check keeps `javascript:` and the like out of every href.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol, overload
from urllib.parse import unquote

from wikic.vault.formats.anchors import ANCHOR, Cited
from wikic.vault.parse.fast import SCHEME, split_target
from wikic.vault.parse.note import BLOCK_ID
from wikic.vault.parse.reference import MAX_NESTING, obsidian_plugin
from wikic.vault.resolve import heading_key

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_core import StateCore
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token
    from markdown_it.utils import OptionsDict

IMAGE_EXTENSIONS = frozenset({".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".bmp", ".avif"})
_CALLOUT = re.compile(r"\[!([A-Za-z0-9_-]+)\]([+-]?)[ \t]*(.*)")
_TAG = re.compile(r"#([\w/-]*[^\W\d][\w/-]*)")
_HTML_COMMENT = re.compile(r"\s*<!--.*?-->\s*", re.S)


class Quote(NamedTuple):
    """What a citation leads to: its href (None: the source is not in the vault), the lines it quotes as the
    source holds them now (None: not there), and whether the anchor drifted (the source changed since)."""

    href: str | None
    lines: str | None
    drifted: bool


class Pages(Protocol):
    """What the renderer asks the site: `host` is the page being written (hrefs are relative to it), `source`
    the note whose text is read (an embedded note's links resolve from it, as in Obsidian)."""

    def resolve(self, source: str, target: str) -> str | None: ...

    def href(self, host: str, path: str, subpath: str = "") -> str: ...

    def embed(self, host: str, path: str, subpath: str, depth: int) -> str: ...

    def quote(self, host: str, cited: Cited) -> Quote: ...


@overload
def heading_ids(texts: Sequence[str]) -> list[str]: ...


@overload
def heading_ids(texts: Sequence[str], *, keys: Literal[True]) -> list[tuple[str, str]]: ...


def heading_ids(texts: Sequence[str], *, keys: bool = False) -> list[str] | list[tuple[str, str]]:
    """The id of each heading of a page, in order: its words joined by "-" (as its `[[page#Heading]]` links
    match it: `resolve.heading_key`), a second heading of the same words numbered. With `keys`, each with its
    words (what a link's `#Heading` is matched by)."""
    seen: dict[str, int] = {}
    out = []
    for text in texts:
        key = heading_key(text)
        base = key.replace(" ", "-") or "section"
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.append((key, base if n == 0 else f"{base}-{n}"))
    return out if keys else [anchor for _, anchor in out]


def block_anchor(block_id: str) -> str:
    """The HTML id of block `^block_id`."""
    return f"block-{block_id}"


def display(path: str, subpath: str, alias: str | None) -> str:
    """A wikilink's text as Obsidian shows it: its alias, else its target ("page > Heading")."""
    if alias is not None and alias.strip():
        return alias
    shown = [part for part in (path, subpath.lstrip("^")) if part]
    return " > ".join(shown)


# -- inline rules --------------------------------------------------------------------------------------------


def _cite(state: StateInline, silent: bool) -> bool:
    if not state.src.startswith("^[", state.pos):
        return False
    m = ANCHOR.match(state.src, state.pos, state.posMax)
    if m is None:
        return False
    if not silent:
        linked = m.group("lpath") is not None
        path = m.group("lpath" if linked else "ppath").strip()
        start = int(m.group("lstart" if linked else "pstart"))
        end = m.group("lend" if linked else "pend")
        tok = state.push("wikic_cite", "", 0)
        label = m.group("label") if linked else None
        tok.meta = {"cited": Cited(path, start, int(end) if end else start),
                    "label": label if label and label.strip() else path.rsplit("/", 1)[-1]}
    state.pos = m.end()
    return True


def _tag(state: StateInline, silent: bool) -> bool:
    pos = state.pos
    if state.src[pos] != "#" or (pos > 0 and not state.src[pos - 1].isspace()):
        return False
    m = _TAG.match(state.src, pos, state.posMax)
    if m is None:
        return False
    if not silent:
        tok = state.push("wikic_tag", "", 0)
        tok.content = m.group(1)
    state.pos = m.end()
    return True


# -- core rules ------------------------------------------------------------------------------------------------


def _callouts(state: StateCore) -> None:
    """`> [!type]± Title` opening a quote: the quote becomes a callout (before inline parsing, so its first line
    is no paragraph text)."""
    tokens = state.tokens
    for i, tok in enumerate(tokens):
        if tok.type != "blockquote_open" or i + 2 >= len(tokens) or tokens[i + 2].type != "inline":
            continue
        inline = tokens[i + 2]
        first, _, rest = inline.content.partition("\n")
        m = _CALLOUT.fullmatch(first.strip())
        if m is None or tokens[i + 1].type != "paragraph_open":
            continue
        kind, fold, title = m.group(1).lower(), m.group(2), m.group(3).strip()
        tok.type = "callout_open"
        tok.meta = {"kind": kind, "fold": fold, "title": title or kind.capitalize()}
        inline.content = rest
        if not rest.strip():
            tokens[i + 1].type = tokens[i + 3].type = "callout_hidden"
        for close in tokens[i + 1 :]:
            if close.type == "blockquote_close" and close.level == tok.level:
                close.type = "callout_close"
                close.meta = {"fold": fold}
                break


def _anchors(state: StateCore) -> None:
    """Headings get their ids, and a block id ending a paragraph becomes the id of its block (the list item
    holding it, else the paragraph), its text dropped."""
    tokens = state.tokens
    headings = [i for i, tok in enumerate(tokens) if tok.type == "heading_open" and i + 1 < len(tokens)]
    for i, anchor in zip(headings, heading_ids([tokens[i + 1].content.strip() for i in headings]), strict=True):
        tokens[i].attrSet("id", anchor)
    for i, tok in enumerate(tokens):
        if tok.type != "inline" or not tok.children or tok.children[-1].type != "text":
            continue
        last = tok.children[-1]
        m = BLOCK_ID.search(last.content)
        if m is None:
            continue
        last.content = last.content[: m.start()]
        holder = i - 1
        if holder >= 1 and tokens[holder].type == "paragraph_open" and tokens[holder - 1].type == "list_item_open":
            holder -= 1
        if holder >= 0 and not tokens[holder].attrGet("id"):
            tokens[holder].attrSet("id", block_anchor(m.group(1)))


# -- renderers -------------------------------------------------------------------------------------------------


def _escape(text: str) -> str:
    return html.escape(text, quote=True)


def _pages(env: Any) -> tuple[Pages, str, str, int]:
    return env["pages"], env["host"], env["source"], env.get("depth", 0)


def _wikilink(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
    pages, host, source, depth = _pages(env)
    meta = tokens[idx].meta
    target, alias = meta["target"], meta["alias"]
    if alias is not None and target.endswith("\\"):  # "[[t\|x]]": a table cell's escaped pipe
        target = target[:-1]
    path, sub = split_target(target)
    shown = _escape(display(path, sub, alias))
    found = pages.resolve(source, path) if path else source
    if found is None:
        return f'<a class="broken" title="{_escape("no note or file named " + path)}">{shown}</a>'
    if meta["embed"]:
        if found.lower().endswith(tuple(IMAGE_EXTENSIONS)):
            alt = _escape(alias if alias and not alias.strip().isdigit() else path.rsplit("/", 1)[-1])
            return f'<img class="embed-image" src="{_escape(pages.href(host, found))}" alt="{alt}">'
        if found.endswith(".md"):
            return pages.embed(host, found, sub, depth + 1)
    return f'<a class="internal" href="{_escape(pages.href(host, found, sub))}">{shown}</a>'


def _cite_html(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
    pages, host, _, _ = _pages(env)
    cited: Cited = tokens[idx].meta["cited"]
    text = _escape(f"{tokens[idx].meta['label']} {cited.lines}")
    lines = f"{cited.start}" if cited.start == cited.end else f"{cited.start}-{cited.end}"
    found = pages.quote(host, cited)
    data = f'data-source="{_escape(cited.path)}" data-lines="{lines}"'
    if found.href is None:
        return f'<a class="cite broken" {data} title="this source is not in the vault">{text}</a>'
    if found.lines is not None:
        data += f' data-quote="{_escape(found.lines)}"'
    if found.drifted:
        mark = '<span class="drift-mark" title="the source changed since this was written">drifted</span>'
        return f'<a class="cite drifted" href="{_escape(found.href)}" {data}>{text} {mark}</a>'
    return f'<a class="cite" href="{_escape(found.href)}" {data}>{text}</a>'


def _tag_html(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
    return f'<span class="tag">#{_escape(tokens[idx].content)}</span>'


# The checkboxes the tasklists plugin writes as HTML tokens: these exact texts, and no other HTML, pass.
_TASK_BOXES = frozenset({
    '<input class="task-list-item-checkbox" disabled="disabled" type="checkbox">',
    '<input class="task-list-item-checkbox" checked="checked" disabled="disabled" type="checkbox">',
})


def _html_as_text(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
    if tokens[idx].content in _TASK_BOXES:
        return tokens[idx].content
    text = _HTML_COMMENT.sub("", tokens[idx].content)
    if not text:
        return ""
    return f"<p>{_escape(text)}</p>\n" if tokens[idx].block else _escape(text)


def _math(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
    tok = tokens[idx]
    if tok.block:
        return f'<pre class="math">{_escape(tok.content)}</pre>\n'
    return f'<code class="math">{_escape(tok.content)}</code>'


def _nothing(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
    return ""


def _callout_open(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
    meta = tokens[idx].meta
    kind, title = _escape(meta["kind"]), _escape(meta["title"])
    if meta["fold"]:
        opened = " open" if meta["fold"] == "+" else ""
        return (f'<details class="callout callout-{kind}"{opened}><summary class="callout-title">{title}</summary>'
                '<div class="callout-body">\n')
    return f'<div class="callout callout-{kind}"><div class="callout-title">{title}</div><div class="callout-body">\n'


def _callout_close(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
    return "</div></details>\n" if tokens[idx].meta["fold"] else "</div></div>\n"


def _local(href: str) -> tuple[str, str] | None:
    """A Markdown link's destination as (vault path, subpath) when it names a file of the vault."""
    if not href or href.startswith(("#", "//")) or SCHEME.match(href):
        return None
    path, _, sub = unquote(href).partition("#")
    return path, sub


def _link_open(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
    tok = tokens[idx]
    local = _local(str(tok.attrGet("href") or ""))
    if local is not None:
        pages, host, source, _ = _pages(env)
        found = pages.resolve(source, local[0]) if local[0] else source
        if found is None:
            tok.attrs.pop("href", None)
            tok.attrSet("class", "broken")
        else:
            tok.attrSet("href", pages.href(host, found, local[1]))
            tok.attrSet("class", "internal")
    elif not str(tok.attrGet("href") or "").startswith("#"):
        tok.attrSet("rel", "noopener noreferrer")
    return str(self.renderToken(tokens, idx, options, env))


def _image(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
    tok = tokens[idx]
    local = _local(str(tok.attrGet("src") or ""))
    if local is not None:
        pages, host, source, _ = _pages(env)
        found = pages.resolve(source, local[0])
        if found is None:
            return f'<a class="broken" title="{_escape("no file named " + local[0])}">{_escape(tok.content)}</a>'
        tok.attrSet("src", pages.href(host, found))
    return str(self.image(tokens, idx, options, env))


@lru_cache(maxsize=1)
def renderer() -> MarkdownIt:
    """The one markdown-it of the site, built on first use."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin
    from mdit_py_plugins.footnote import footnote_plugin
    from mdit_py_plugins.front_matter import front_matter_plugin
    from mdit_py_plugins.tasklists import tasklists_plugin

    # html=True only to read HTML where Obsidian reads it (a comment hides what it holds); every HTML token is
    # rendered as text or dropped (`_html_as_text`)
    md = (
        MarkdownIt("commonmark", {"html": True, "maxNesting": MAX_NESTING})
        .enable(["table", "strikethrough"])
        .use(front_matter_plugin)
        .use(dollarmath_plugin, double_inline=True, allow_space=False)
        .use(footnote_plugin)
        .use(tasklists_plugin)
        .use(obsidian_plugin)
    )
    md.inline.ruler.before("footnote_inline", "wikic_cite", _cite)
    md.inline.ruler.after("newline", "wikic_tag", _tag)
    md.core.ruler.after("block", "wikic_callouts", _callouts)
    md.core.ruler.after("inline", "wikic_anchors", _anchors)
    rules = md.add_render_rule
    rules("wikilink", _wikilink)
    rules("wikic_cite", _cite_html)
    rules("wikic_tag", _tag_html)
    rules("callout_open", _callout_open)
    rules("callout_close", _callout_close)
    rules("link_open", _link_open)
    rules("image", _image)
    for name in ("html_block", "html_inline"):
        rules(name, _html_as_text)
    for name in ("math_inline", "math_inline_double", "math_block", "math_block_label"):
        rules(name, _math)
    for name in ("front_matter", "obsidian_comment", "obsidian_comment_block", "callout_hidden"):
        rules(name, _nothing)
    return md


def render(text: str, pages: Pages, *, host: str, source: str, depth: int = 0) -> str:
    """The HTML of `text`, the Markdown of note `source` shown on page `host`."""
    return renderer().render(text, {"pages": pages, "host": host, "source": source, "depth": depth})


def render_inline(text: str, pages: Pages, *, host: str, source: str) -> str:
    """The HTML of one line of Markdown (a property's value)."""
    return renderer().renderInline(text, {"pages": pages, "host": host, "source": source, "depth": 0})
