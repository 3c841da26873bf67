"""A new claim merges with the first claim of its page that states the same fact: found by the claims' keys,
it is the claim the pairwise comparison finds."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings, strategies as st

from wikic.compile.page import _Twins
from wikic.facts.same_fact import same_fact
from wikic.vault.formats.claims import Citation, Claim

# few words, so that texts often state one fact: in other words, case or links ("the" and "is" aside)
TEXTS = st.lists(st.sampled_from(["Acme", "acme", "[[acme|Acme]]", "the", "is", "was", "builds", "built", "rockets",
                                  "not", "2024", "2025", "fast", "Borealis"]), min_size=1, max_size=5).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(page=st.lists(TEXTS, max_size=8), new=st.lists(TEXTS, min_size=1, max_size=6))
def test_the_twin_found_by_keys_is_the_first_the_pairwise_comparison_finds(page: list[str], new: list[str]) -> None:
    live = [Claim(f"c{i:08x}", text, (Citation("^[raw/a.md:L1]", seen=dt.date(2026, 1, 1)),))
            for i, text in enumerate(page)]
    twins = _Twins(live)
    texts = list(page)
    for text in new:
        expected = next((i for i, known in enumerate(texts) if same_fact(known, text)), None)
        assert twins.first(text) == expected
        if expected is None:  # a new claim joins the page, and may be the twin of a later one
            texts.append(text)
            twins.add(text, len(texts) - 1)
