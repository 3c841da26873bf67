"""A compiler block found whole (`markers.block`: a page's lead, its claims rows, a query page's "Asked about") is
found where the one lazy pattern finds it, begin lines without an end and blocks of other keys included, and
without reading on to the page's end from every begin line."""

from __future__ import annotations

import re

from hypothesis import given, strategies as st

from wikic.vault.formats.markers import begin_prefix, block, end_line


def lazy_pattern(key: str) -> re.Pattern[str]:
    return re.compile(rf"^{re.escape(begin_prefix(key))}sha=[0-9a-f]+ -->\n(.*?)^{re.escape(end_line(key))}$",
                      re.MULTILINE | re.DOTALL)


KEYS = ["summary", "claims", "asked"]
LINES = st.one_of(
    st.sampled_from(KEYS).map(lambda k: f"{begin_prefix(k)}sha=0123abcd -->"),
    st.sampled_from(KEYS).map(lambda k: f"{begin_prefix(k)}sha=xyz -->"),  # damaged
    st.sampled_from(KEYS).map(end_line),
    st.sampled_from(KEYS).map(lambda k: f"text {end_line(k)}"),  # mid-line
    st.sampled_from(["", "a", "c0123abcd src=raw/a.md", "- a claim ^c0123abcd"]),
)


@given(st.lists(LINES, max_size=12), st.sampled_from(KEYS), st.booleans())
def test_a_block_is_found_where_the_lazy_pattern_finds_it(lines: list[str], key: str, ending: bool) -> None:
    text = "\n".join(lines) + ("\n" if ending else "")
    expected = lazy_pattern(key).search(text)
    found = block(key).search(text)
    assert (found and (found.span(), found.group(1))) == (expected and (expected.span(), expected.group(1)))
    assert block(key).sub("", text) == lazy_pattern(key).sub("", text)

