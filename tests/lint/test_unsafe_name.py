"""unsafe-name looks at the parts of a path only when one search of the whole path says one may be reported:
that search misses no path the rule reports."""

from __future__ import annotations

from hypothesis import given, strategies as st

from wikic.lint.rules.unsafe_name import _MAYBE, _UNSAFE, windows_device

# the letters of the device names in both cases, superscripts, separators, what a link breaks on, and letters
# whose case folds oddly (the Kelvin sign, a dotted capital I, a long s, full-width c)
LETTERS = st.sampled_from([*"acClLmMnNoOpPrRtTuUxX0123¹²³ ./#%:-_", "\u212a", "\u0130", "ſ", "ｃ"])


def reported(path: str) -> bool:
    return any(_UNSAFE.search(part) or part != part.rstrip(" .") or part != part.lstrip(" ")
               or windows_device(part) is not None for part in path.split("/"))


@given(st.lists(LETTERS, min_size=1, max_size=16).map("".join))
def test_the_search_misses_no_path_the_rule_reports(path: str) -> None:
    assert not reported(path) or _MAYBE.search(path)


def test_most_paths_are_told_safe_by_the_search() -> None:
    assert not _MAYBE.search("entities/openai.md") and not _MAYBE.search("raw/articles/source-a.md")
    assert _MAYBE.search("entities/Con.md") and _MAYBE.search("notes/lpt¹.txt") and _MAYBE.search("a /b.md")
