"""A page's lead without its callout titles (`> [!quote]- Claims`, the claims a composed lead keeps folded under
it): the titles are those the one pattern finds, in time that grows with the lead however many titles in it are
left open."""

from __future__ import annotations

import re

from hypothesis import given, strategies as st
from testkit import growth

from wikic.vault.lead import _callouts, _without_callouts, page_lead

CALLOUT = re.compile(r"^>\s*\[![^\]]*\][-+]?.*$", re.MULTILINE)
TEXT = st.lists(st.sampled_from([">", " ", "\n", "[!", "]", "a", "-", "+", "[", "!", "> [!quote]- Claims", "\t"]),
                max_size=20).map("".join)


@given(TEXT)
def test_callout_titles_are_where_the_pattern_finds_them(text: str) -> None:
    assert [m.span() for m in _callouts(text)] == [m.span() for m in CALLOUT.finditer(text)]
    assert _without_callouts(text) == CALLOUT.sub(" ", text)


def test_a_lead_of_open_callout_titles_is_read_in_linear_time() -> None:
    def page(lines: int) -> str:
        return ("---\ntitle: X\n---\n<!-- wikic:begin summary sha=0123456789ab -->\nX is a thing.\n" + "> [!\n" * lines
                + "<!-- wikic:end summary -->\n")

    small, large = page(2_000), page(16_000)
    assert page_lead(large).startswith("X is a thing.")
    assert growth(lambda: page_lead(small), lambda: page_lead(large)) < 8 * 3  # the pattern alone: 64 times
