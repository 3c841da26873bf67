"""The See also line: which pages a page lists for its sources, and the one-pass test of what it links already."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from wikic.compile.siblings import _TARGET_STOPS, _link_targets, _linked, see_also

# Texts made of the characters that open, end or sit inside a link, so that every edge is met often.
_PIECES = st.sampled_from(["[[", "]]", "[", "]", "|", "\\|", "\\", "#", "a", "b", "a b", "\n", "x#y"])
_TEXTS = st.lists(_PIECES, max_size=30).map("".join)
_TARGETS = st.lists(st.sampled_from(["a", "b", " ", "[", "x"]), min_size=1, max_size=4).map("".join)


@settings(max_examples=400, deadline=None)
@given(text=_TEXTS, targets=st.lists(_TARGETS, max_size=8))
def test_the_one_pass_set_finds_exactly_the_targets_the_text_links(text: str, targets: list[str]) -> None:
    found = _link_targets(text)
    # and every piece of the text that follows a "[[": the targets most likely to sit at an edge
    after = [text[i + 2 : i + 2 + n] for i in range(len(text)) if text.startswith("[[", i) for n in range(1, 6)]
    for target in [t for t in [*targets, *after] if _TARGET_STOPS.isdisjoint(t)]:  # the others: see_also asks _linked
        assert (target in found) == _linked(text, target), (text, target)


def test_see_also_leaves_out_linked_pages_and_lists_each_page_once() -> None:
    rings = {"raw/a.md": ["p/ana.md", "p/bo.md", "p/cy.md", "p/di.md"], "raw/b.md": ["p/ana.md", "p/cy.md", "p/ed.md"]}
    body = "# Ana\n\nAna works with [[cy|Cy]] and [[di#Early years]].\n"
    shown = see_also(body, "p/ana.md", ["raw/b.md", "raw/a.md", "raw/a.md"], rings.__getitem__,
                     lambda p: p[2:-3])
    assert shown == ["p/bo.md", "p/ed.md"]
    # a page name holding a character that may end a target is looked for in the text itself
    odd = {"raw/a.md": ["p/ana.md", "p/x#1.md"]}
    assert see_also("[[x#1]]", "p/ana.md", ["raw/a.md"], odd.__getitem__, lambda p: p[2:-3]) == []
    assert see_also("[[x]] [[x#2]]", "p/ana.md", ["raw/a.md"], odd.__getitem__, lambda p: p[2:-3]) == ["p/x#1.md"]
