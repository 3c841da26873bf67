"""Pages whose tricky constructs are backslash escapes and character references take the fast path through
`mask_markup`; whatever path `parse_note` takes, its links and headings must equal markdown-it's."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from wikic.vault.parse import fast_eligible, mask_markup, parse_note

from .equivalence import agrees_with_markdown_it
from .test_parse_equivalence import pages

PIECES = st.sampled_from([
    "\\[", "\\]", "\\[[x]]", "\\\\[[y]]", "[[a\\|b]]", "[[c\\]]", "[[d\\]e]]", "\\![[img.png]]", "!\\[[z]]",
    "[t](f.md)", "[t\\]](g.md)", "[t](h\\_i.md)", "\\(", "\\)", "\\#", "#\\#", "\\-", "\\>", "\\*", "\\|", "\\",
    "a\\sb", "\\t", "\\\\", "[[j]]", "[[k|K]]", "[", "]", "(", ")", "word", "数据", " ", "\\^", "^blk", "\\`",
    "&lt;", "&gt;", "&amp;", "&#91;", "&#x5B;", "&nbsp;", "&bogus;", "&", "\\&amp;", "[t](a&amp;b.md)", "[[e&amp;f]]",
    "\\$", "&#35; x", "<!-- [[hid]] -->", "<!-->", "<!--->", "<!-- a -- b -->", "<!--", "-->", "<https://e.com/[[u]]>",
    "<mailto:a@b.c>", "<a@b.co>", "<div>", "</span>", "\\<!-- c -->", "[t](<f g.md>)", "[<https://h.io>](i.md)",
    "%%", "%% [[o]] %%", "%%%", "\\%%", "[[p%%q]]", "%%c%% [[r]]",
])
LINE = st.lists(PIECES, min_size=1, max_size=6).map("".join)
PREFIX = st.sampled_from(
    ["", "", "# ", "## ", "- ", "> ", "1. ", "| ", "    ", "  ", "<!-- ", "<!--\n", "%%", "%%\n", " %% "]
)
PAGE = st.lists(st.tuples(PREFIX, LINE).map("".join) | st.just(""), min_size=1, max_size=6).map("\n".join)


# Pages found by the search once, or that sit on an edge: checked on every run.
ESCAPE_CASES = [
    "\\[[x]] and \\\\[[y]]",  # an escaped bracket is no link; an escaped backslash leaves one
    "[[a\\]b]]",  # blanking the escape would join a link markdown-it never sees
    "#\\# x\n[[h]]",  # no heading, though the masked text would hold one
    "[t\\]](g.md) [[k]]",  # an escape inside a Markdown link's text
    "\\![[img.png]]",  # the escape takes the "!": a link, not an embed
    "&#91;&#91;x]] [t](a&amp;b.md)",  # a reference is text: no link; in a destination it is decoded
    "<!-- [[a]]\n# b\n--> [[c]] ^id\n[[d]]",  # a comment block hides whole lines, heading and all
    "x <!-- [[a]] --> [[b]]",  # an inline comment hides only itself
    "> <!-- c --> [[a]]",  # in a quote the comment opens an HTML block: the line is hidden
    "- a\n  <!-- s\nend --> [[x]]",  # the list item ends before the comment does
    "%%\n[[a]]\n%%\n[[b]] %% [[c]] %% [[d]]",  # a %% block hides its lines, an inline one itself
    "%% c %% [[e]]\n%% f\ng %% [[h]]",  # text after a closing %% is Markdown again
]


@pytest.mark.parametrize("body", ESCAPE_CASES)
def test_known_escaped_pages_agree_with_markdown_it(body: str) -> None:
    agrees_with_markdown_it(body)


@pytest.mark.slow  # 1,500 generated pages
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PAGE)
def test_escaped_pages_agree_with_markdown_it(body: str) -> None:
    agrees_with_markdown_it(body)


@pytest.mark.slow  # 400 generated pages, each parsed every way
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pages())
def test_every_path_of_parse_note_agrees_with_markdown_it(body: str) -> None:
    agrees_with_markdown_it(body)


def test_escapes_take_the_fast_path() -> None:
    body = (
        "# Notes\n\nUse \\[\\[double brackets\\]\\] for links, like [[alpha]] or [[beta\\|Beta]].\nPaths: C:\\temp\\x\n"
    )
    masked = mask_markup(body)
    assert masked is not None and fast_eligible(masked[0])
    note = parse_note("p.md", body.encode("utf-8"))
    assert [(lk.target, lk.alias) for lk in note.links] == [("alpha", None), ("beta", "Beta")]
    agrees_with_markdown_it(body)
