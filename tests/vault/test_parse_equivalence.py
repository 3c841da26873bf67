"""The fast regex scanner must agree with the markdown-it scanner wherever it accepts a page.

Pages are generated from a grammar of fragments chosen to sit on the fast path's edges: every link form,
the characters that start Markdown constructs (`[`, `](`, backticks, `$`, `%%`, `<`, `\\`, `|`, `#`, `^`),
containers (quotes, lists, callouts), indentation, tables and blank lines.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from wikic.vault.parse import fast_eligible, scan_fast, scan_full

TARGETS = st.sampled_from(
    ["Page", "page.md", "My Note", "Projects/Page", "a/b/c", "日本語", "Ünïcode", "x y", "Price $5", "C#", "", " p "]
)
SUBPATHS = st.sampled_from(["", "#Heading", "#H1#H2", "#^block-id", "#page=3", "#", "#^", "#Ü ber"])
ALIASES = st.sampled_from(["", "|alias", "|100", "|100x145", "|a b", "|", "|日本"])


@st.composite
def wikilinks(draw: st.DrawFn) -> str:
    bang = draw(st.sampled_from(["", "", "!"]))
    return f"{bang}[[{draw(TARGETS)}{draw(SUBPATHS)}{draw(ALIASES)}]]"


MDLINKS = st.sampled_from(
    [
        "[t](Page.md)", "[t](Three%20laws.md)", "[t](Page.md#Heading)", "[t](../x/Note.md)", "[t](./a.md)", "[](x.md)",
        "[t]()", "![img](pic.png)", "![alt|100](pic.png)", "[t](https://example.com/a#b)", "[t](mailto:a@b.c)",
        "[t](obsidian://open?vault=x)", "[t](//host/x)", "[t](<My Note.md>)", '[t](Page.md "title")',
        "[a [b](c.md)](d.md)", "[see [[X]]](u.md)", "[t] (x.md)", "[t](a(b).md)", "[t](a b.md)", "[x][ref]", "[^1]",
        "[t](#local)",
        # claim anchors, as the compiler writes them (also in a table cell), and the earlier plain form
        "^[[[raw/articles/x.md|x.md]] L24-L27]",
        "^[[[raw/x.md\\|x.md]] L3]",
        "^[[[raw/a b/my_notes.md]] L1]",
        "^[raw/articles/x.md:L3-L5]",
    ]
)

WORDS = st.sampled_from(
    ["word", "Word", "two words", "日本語", "中文字", "émigré", "x", "1.", "2)", "-", "+", "*", "_", "a_b", "**b**",
     "*i*", "~~s~~", "==h==", "#tag", "#", "a#b", "^id", "^block-1", "http://x.y", "www.x.y", "!", "?", "&", ":"]
)
SYMBOLS = st.sampled_from(
    [
        "[", "]", "[[", "]]", "](", "(", ")", "`", "``", "$", "$$", "%%", "%", "<", ">", "<b>", "<!--", "-->", "\\",
        "\\[", "|", "\\|", "~", "~~~", "```", "&amp;", "&#91;", "\t", "  ", " ", "{", "}", "\u00a0", "\u3000", "^[",
        "^", "\u2003", "\x01",
    ]
)

INLINE = st.one_of(wikilinks(), MDLINKS, WORDS, WORDS, SYMBOLS)


@st.composite
def inline_text(draw: st.DrawFn) -> str:
    parts = draw(st.lists(INLINE, min_size=0, max_size=6))
    seps = draw(st.lists(st.sampled_from([" ", "", " ", "  "]), min_size=len(parts), max_size=len(parts)))
    return "".join(p + s for p, s in zip(parts, seps, strict=True))


PREFIXES = st.sampled_from(
    ["", "", "", " ", "  ", "   ", "    ", "> ", ">", "> > ", "- ", "* ", "+ ", "1. ", "2) ", "- [ ] ", "  - ",
     "> - ", "- > ", "> [!note] ", "> [!faq]- ", "\t"]
)


@st.composite
def lines(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 9))
    prefix = draw(PREFIXES)
    if kind == 0:
        return ""
    if kind == 1:
        hashes = "#" * draw(st.integers(1, 7))
        closing = draw(st.sampled_from(["", " #", " ##", "#", " # "]))
        return f"{prefix}{hashes}{draw(st.sampled_from([' ', '', '  ', chr(9)]))}{draw(inline_text())}{closing}"
    if kind == 2:
        return prefix + draw(st.sampled_from(["---", "===", "***", "- - -", "___", "```", "~~~", "$$", "%%",
                                              "|---|---|", "| --- | :-: |", "--- | ---", "^id", "[ref]: x.md",
                                              "[^1]: note [[F]]", "[ref]: Page.md", "<div>", "</div>",
                                              # the compiler's block markers keep a page on the fast path
                                              "<!-- wikic:begin facts:raw/a.md sha=1a2b3c4d -->",
                                              "<!-- wikic:end facts:raw/a.md -->",
                                              "<!-- wikic:begin x[[a]] sha=1a2b3c4d -->",
                                              "<!-- wikic:end [t](x.md) -->"]))
    if kind == 3:
        cells = draw(st.lists(inline_text(), min_size=1, max_size=3))
        return prefix + "| " + " | ".join(cells) + " |"
    return prefix + draw(inline_text())


@st.composite
def pages(draw: st.DrawFn) -> str:
    return "\n".join(draw(st.lists(lines(), min_size=1, max_size=8)))


def check(body: str) -> None:
    if not fast_eligible(body):
        return
    fast = scan_fast(body, 1)
    if fast is None:
        return
    full = scan_full(body, 1, body.split("\n"))
    assert fast[0] == full[0], "links differ"
    assert fast[1] == full[1], "headings differ"
    assert fast[2] == full[2], "problems differ"  # empty links, and each line's first unclosed "[["


# Pages found by the search once, or that sit on an edge: checked on every run.
EDGE_CASES = [
    "# A ##",
    "#  ",
    "> [^1]: note [[F]]",  # an unreferenced footnote definition inside a container
    "    \u3000 [t](x.md)",  # indented code whose text starts with a Unicode space
    "> [ref]: Page.md\n\n[x][ref]",  # a reference definition inside a quote makes [x][ref] a link
    "> | a |\n> |---|\n> | [[T|x]] |",  # a table inside a quote splits [[T|x]]
    "> a [[x]]\n> ===",  # a setext heading inside a quote
    "# x #\u00a0",  # no closing sequence: the NBSP is not a space to markdown-it
    "[t](a\x01b.md)",  # a control character ends a link destination
    "a\n<!-- wikic:end x[[a]] -->\n[[b]]",  # a marker whose name looks like a link
    "<!-- wikic:begin k sha=1a2b3c4d -->\n- [[a]]\n<!-- wikic:end k -->",
    "[[[a]]]",
    "see [t](x\\|y.md)",  # markdown-it unescapes a link destination
    "1. a\n1.     [[P]]",  # five spaces after a list marker open indented code
    ">     [[Page]]",  # and after a quote marker
    "[[a|b]] [t](x.md) ![[c#d|e]]",
    "> [[a]]\n> b [[c]]\n- [[d]]\n  - [[e]]",
    # an unclosed "[[": reported once a line, read as text; where a "]]" follows it, markdown-it decides
    "a [[b\nc]] [[d]]",
    "[[a](b.md) [x [[y](z.md)",  # the second "[" of each opens a Markdown link
    "[t](a[[b.md) [[c",  # "[[" inside a destination is no wikilink
    "[[[x [[]] and ![[y",
    "[[a [[b]]",
    "| a | b |\n|---|---|\n| [[c | d |",  # in a table cell
    "# T [[x ##\n> q [[r\n- [[s\n  [[t",
]


@pytest.mark.parametrize("body", EDGE_CASES)
def test_fast_scanner_agrees_with_markdown_it_on_known_pages(body: str) -> None:
    check(body)


@pytest.mark.slow  # 300 generated pages
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pages())
def test_fast_scanner_agrees_with_markdown_it(body: str) -> None:
    check(body)


def test_an_unclosed_wikilink_takes_the_fast_path_reported_where_markdown_it_reports_it() -> None:
    body = "# T\n\nA link cannot span lines: [[not-a-link\nsee [[Page]] and [[[x then [[y\n- item [[z"
    fast = scan_fast(body, 1)
    assert fast is not None
    assert [(p.line, p.column, p.message) for p in fast[2]] == [
        (3, 27, "'[[' is never closed by ']]' on the same line"),
        (4, 18, "'[[' is never closed by ']]' on the same line"),  # once a line
        (5, 8, "'[[' is never closed by ']]' on the same line"),
    ]
    assert [lk.target for lk in fast[0]] == ["Page"]
    check(body)


def test_fast_path_is_taken_for_plain_pages() -> None:
    """The fast path must actually be used for ordinary pages, or the property above proves nothing."""
    body = "# Title\n\nSee [[Page|alias]] and [t](Other%20Note.md).\n\n- [[List item]]\n> quote [[Q]]\n"
    assert fast_eligible(body)
    fast = scan_fast(body, 1)
    assert fast is not None
    assert [lk.target for lk in fast[0]] == ["Page", "Other Note.md", "List item", "Q"]
    check(body)
