"""Pages whose only tricky construct is code (fences, code spans) take the fast path through `mask_markup`;
wherever it accepts a page, links, headings and block ids must equal markdown-it's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from wikic.vault.parse import fast_eligible, mask_markup, parse_note

from .equivalence import agrees_with_markdown_it

WORDS = st.sampled_from(["alpha", "beta", "数据库", "note", "x", "the end", "[[a]]", "[[b|B]]", "![[c.png]]",
                          "[[d#Head]]", "[t](e.md)", "`code`", "`[[f]]`", "``two ` ticks``", "` `", "`[x](y.md)`",
                          "[[g `h]]", "`i [[j]]`", "`", "``", "~", "#", "^blk1"])
LINE = st.lists(WORDS, min_size=1, max_size=6).map(" ".join)
FENCE_BODY = st.lists(
    st.sampled_from(["[[hidden]]", "# not a heading", "x = 1", "```", "~~~", "````", "  ```", "`y`", ""]), max_size=4
)


@st.composite
def block(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["para", "para", "heading", "fence", "tilde", "list", "quote", "blank"]))
    if kind == "para":
        return "\n".join(draw(st.lists(LINE, min_size=1, max_size=3)))
    if kind == "heading":
        return "#" * draw(st.integers(1, 3)) + " " + draw(LINE)
    if kind in ("fence", "tilde"):
        mark = draw(st.sampled_from(["```", "````"])) if kind == "fence" else "~~~"
        info = draw(st.sampled_from(["", "python", " md"]))
        body = draw(FENCE_BODY)
        closing = draw(st.sampled_from([mark, mark + "`" if kind == "fence" else mark, ""]))
        return "\n".join([mark + info, *body, closing])
    if kind == "list":
        return "- " + draw(LINE)
    if kind == "quote":
        return "> " + draw(LINE)
    return ""


PAGE = st.lists(block(), min_size=1, max_size=8).map(lambda blocks: "\n".join(blocks) + "\n")


# Pages found by the search once, or that sit on an edge: checked on every run.
CODE_CASES = [
    "Text `a [[x]]` and [[y]]\n```\n[[z]]\n```\n",
    "[[g `h]] and `i [[j]]`\n",
    "[[``te[``te]]\n",  # masking must not create a link out of code (found by the fuzzer)
    "# H `x`\n~~~\n# no\n~~~\n[[a]]\n",
    # an unclosed "[[" whose line has a "]]" only inside a code span or after an escape: markdown-it's rule
    # sees the "]]", so it reports nothing (found by the fuzzer)
    "[[P\\age|alias]```[[#H]] x``` and [[d\n",
    "[t](a.md)\n\\|[[a]][[d#h) `]]`\n",
    "a [[b `c` d\n",  # no "]]" anywhere: reported, code or not
]


@pytest.mark.parametrize("body", CODE_CASES)
def test_masked_fast_path_agrees_with_markdown_it_on_known_pages(body: str) -> None:
    agrees_with_markdown_it(body)


@pytest.mark.slow  # 400 generated pages
@settings(max_examples=400, deadline=None)
@given(PAGE)
def test_masked_fast_path_agrees_with_markdown_it(body: str) -> None:
    agrees_with_markdown_it(body)


def test_masking_applies_to_ordinary_code_pages() -> None:
    body = "Intro [[a]].\n\n```python\nx = '[[b]]'\n# comment\n```\n\nUse `[[c]]` like [[d]].\n"
    masked = mask_markup(body)
    assert masked is not None and fast_eligible(masked[0])
    note = parse_note("p.md", body.encode("utf-8"))
    assert [link.target for link in note.links] == ["a", "d"]
    assert note.headings == []
