"""Pages with math (`$x$`, `$$` blocks), indented code, or code and markup together take the fast path through
`mask_markup`; whatever path `parse_note` takes, its links, headings and block ids must equal markdown-it's."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from wikic.vault.parse import fast_eligible, mask_markup, parse_note

from .equivalence import agrees_with_markdown_it

PIECES = st.sampled_from([
    "$x$", "$[[a]]$", "$ [[b]] $", "$5", "costs $5 and $6", "$x $", "$ x$", "$$", "$$y$$", "$a$b$", "$", "x$y",
    "[[c]]", "[[d|D]]", "![[e.png]]", "[t](f.md)", "[t $g$](h.md)", "[[i$j$]]", "`$k$`", "$`l`$", "word", "数据",
    "^blk", "#", "|", "\\$", "\\", "\\\\", "&lt;", "<!-- m -->", "%% n %%", " ", "$[[o", "p]]$", "\u3000$q$",
    "$\u00a0r$",
])
LINE = st.lists(PIECES, min_size=1, max_size=6).map("".join)
PREFIX = st.sampled_from(["", "", "", "# ", "- ", "> ", "1. ", "| ", "    ", "  ", "   ", "\t"])


@st.composite
def block(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["line", "line", "math", "indented", "fence", "blank", "blank"]))
    if kind == "line":
        return draw(PREFIX) + draw(LINE)
    if kind == "math":
        opener = draw(st.sampled_from(["$$", "$$", "$$ x", "$$x$$", "$$ a $$ (eq1)", " $$", "$$$", "$$ a $$ b"]))
        inner = draw(st.lists(st.sampled_from(["[[hid]]", "# no", "", "a = b", "x $$ y", "^blk2"]), max_size=3))
        closer = draw(st.sampled_from(["$$", "$$", "x $$", "$$ (eq2)", "", "$$ tail"]))
        return "\n".join([opener, *inner, closer])
    if kind == "indented":
        lines = draw(st.lists(st.sampled_from(["    [[hid]]", "    # no", "     x", "", "    `y`", "  z"]), min_size=1))
        return "\n".join(lines)
    if kind == "fence":
        return "\n".join(["```", *draw(st.lists(st.sampled_from(["[[hid]]", "$x$", "$$"]), max_size=2)), "```"])
    return ""


PAGE = st.lists(block(), min_size=1, max_size=8).map("\n".join)

# Pages found by the search once, or that sit on an edge: checked on every run.
MATH_CASES = [
    "Costs $5 and [[a]] for $6\n",  # dollars with a space inside are money: the link stays
    "$[[a]]$ [[b]]\n",  # math hides its link
    "$x $ [[c]] $y$\n",  # a closing "$" after a space gives up: the first "$" is text
    "para\n$$\n[[d]]\n$$\n",  # "$$" cannot interrupt a paragraph
    "text\n\n$$\n[[e]]\n$$ (eq1)\n[[f]]\n",  # a labelled block ends at its label
    "\n$$ a $$ b\n[[g]]\n",  # a closing "$$" mid-line: inline math, not a block
    "intro\n\n    [[h]]\n    more\n\n[[i]]\n",  # indented code after a blank line hides its links
    "intro\n    [[j]]\n",  # without the blank line it is a lazy continuation: a link
    "- item\n\n    [[k]]\n",  # indented under a list item: the item's paragraph, a link
    "`[[l]]` <!-- [[m]] --> \\[[n]] [[o]]\n",  # code and markup together
    "| a | $b | c$ |\n|---|---|---|\n",  # a table splits "$" pairs at the pipe
    "$$\n\\frac{[[a]]}{2}\n$$\n\nCosts $x$ and [[b]]\n",  # a backslash inside a block leaves inline math be
    "a \\$x$ [[c]] $y\\$ [[d]]$\n",  # escaped dollars: markdown-it decides
    "---\n[[Page]] \n---",  # a frontmatter block (not a mapping): no link, though markdown-it alone sees one
    # a paragraph at the margin after a blank line closes every list: the indented code after it hides its link
    "- item\n\nintro\n\n    [[h]]\n\n[[i]]\n",
    "- item\n```\nx\n```\ntext\n\n    [[a]]\n",
    "- item\nlazy\n\n    [[k]]\n",  # a lazy continuation keeps the item open: its paragraph, a link
    "- item\n\n  more\n\n    [[k]]\n",  # indented under the item's own paragraph
    "Costs $x$ and a \\$ [[a]]\n",  # a backslash outside the math
    "a $x\\\\$ [[b]]$ c\n",  # an escaped backslash before a closing "$": dollarmath counts two
    "$[[a]]$ ends \\\n",  # dollarmath reads the text's last backslash as escaping its opening "$": a link
    "| a | b |\n|---|---|\n| $[[c]]$ \\| y | z |\n",  # the same at the start of a cell
]


@pytest.mark.parametrize("body", MATH_CASES)
def test_known_math_and_code_pages_agree_with_markdown_it(body: str) -> None:
    agrees_with_markdown_it(body)


@pytest.mark.slow  # 1,500 generated pages
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PAGE)
def test_math_and_indented_code_pages_agree_with_markdown_it(body: str) -> None:
    agrees_with_markdown_it(body)


def test_indented_code_after_a_list_and_math_beside_a_backslash_take_the_fast_path() -> None:
    body = "- [[a]]\n\nExample:\n\n    [[code]]\n\nIt is $x$ (see [[b]]), a\\*b.\n"
    masked = mask_markup(body)
    assert masked is not None and fast_eligible(masked[0])
    assert [link.target for link in parse_note("p.md", body.encode("utf-8")).links] == ["a", "b"]
    agrees_with_markdown_it(body)


def test_math_and_indented_code_take_the_fast_path() -> None:
    body = "# Costs\n\nIt costs $5 and $x^2$ grows, see [[alpha]].\n\n$$\n[[hidden]]\n$$\n\n    [[code]]\n\n[[beta]]\n"
    masked = mask_markup(body)
    assert masked is not None and fast_eligible(masked[0])
    note = parse_note("p.md", body.encode("utf-8"))
    assert [link.target for link in note.links] == ["alpha", "beta"]
    agrees_with_markdown_it(body)
