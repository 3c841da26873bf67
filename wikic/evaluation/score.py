"""The health score: one number out of 100 for a page or the vault, the weighted mean of its shares.

    score = 100 × Σ weight × (holding / of) / Σ weight, over the shares whose `of` is not 0

A share with nothing to count (a page with no prose yet has no `cited` share) is left out of both sums, so it
neither helps nor hurts. The weights say what matters most for a wiki whose every sentence should rest on a
quote: that a sentence cites one, that the quote is still there, and that it states what the sentence says
weigh most; how the page is laid out and linked weighs less (`docs/eval.md` gives the reasons).
"""

from __future__ import annotations

from collections.abc import Mapping

# (share, weight): the names are the keys of `Figures.shares`
SHARES: dict[str, float] = {
    "cited": 3.0,  # a prose sentence that cites nothing cannot be checked at all
    "holding": 3.0,  # an anchor whose quote is gone or edited no longer proves its claim
    "specifics": 2.0,  # a number, date, version or name its quote does not state is the likeliest invention
    "anchored": 1.0,  # a claim line with no anchor: rare (the compiler anchors every claim), still unchecked
    "lead": 1.0,  # the lead is what the index, the overview and a reader see first
    "layout": 0.5,  # sections out of the layout make a page harder to read, not less true
    "links": 1.0,  # a broken link is a dead end for a reader and an assistant
    "linked": 0.5,  # an orphan is found only through search and the index
    "uncontested": 0.5,  # an open contradiction is shown, both sides cited: a reader must settle it
}


def health(shares: Mapping[str, tuple[int, int]]) -> float | None:
    """The weighted mean of `shares` ((holding, of) by name), out of 100; None when no share has anything to
    count."""
    total = weights = 0.0
    for name, weight in SHARES.items():
        holding, of = shares.get(name, (0, 0))
        if of > 0:
            total += weight * min(holding, of) / of
            weights += weight
    return None if weights == 0 else 100.0 * total / weights
