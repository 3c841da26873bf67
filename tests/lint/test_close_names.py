"""broken-wikilink's "did you mean" names, kept from one lint to the next while the vault's page names are the
same: a lint after an edit does not compare each broken link's target with every name again."""

from __future__ import annotations

import datetime as dt
import difflib
import itertools
import json
import os
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from library import run_lint
from testkit import make_vault, page

from wikic.lint.close_names import Names
from wikic.lint.run import LintOptions
from wikic.vault.resolve import fold_name
from wikic.vault.state import CLOSE_NAMES, state_file

PAGES = {
    "entities/alpha.md": page("Alpha", body="# Alpha\n\n[[beta]]\n"),
    "entities/beta.md": page("Beta", body="# Beta\n\n[[alpah]] and [[nothing-like-it]]\n"),
}


def hints(root: Path, day: int, *, cache: bool = True) -> list[str]:
    """The broken-link messages of a lint (each run another day, so no run is served the report before it)."""
    # a whole lint, whose broken links' names are what is tested (not one made from the last whole lint's
    # findings, `lint/changed.py`)
    (root / ".wikic" / "cache" / "lint-base.json").unlink(missing_ok=True)
    report = run_lint(root, LintOptions(select=("broken-wikilink",), use_cache=cache, today=dt.date(2026, 3, day)))
    assert not report.cached
    return [f.message for f in report.findings]


def edit(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


@pytest.fixture
def compared(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The targets compared with the vault's names (difflib asked), run by run."""
    seen: list[str] = []
    close = difflib.get_close_matches

    def spy(word: str, possibilities: Iterable[str], n: int = 3, cutoff: float = 0.6) -> list[str]:
        seen.append(word)
        return close(word, possibilities, n, cutoff)

    monkeypatch.setattr(difflib, "get_close_matches", spy)
    return seen


def test_the_names_offered_are_kept_while_the_page_names_are_the_same(tmp_path: Path, compared: list[str]) -> None:
    root = make_vault(tmp_path, PAGES)
    said = ["link target 'alpah' does not exist; did you mean [[alpha]]?",
            "link target 'nothing-like-it' does not exist"]
    assert hints(root, 1) == said and compared == ["alpah"]
    cache = state_file(root, CLOSE_NAMES)
    assert cache is not None and json.loads(cache.read_text(encoding="utf-8"))["close"] == {
        "alpah": "alpha", "nothing-like-it": None}
    compared.clear()
    edit(root / "entities/alpha.md")
    assert hints(root, 2) == said and compared == []  # the edited page changed no page name
    # what the cache says is what lint offers while the names are the same
    kept = json.loads(cache.read_text(encoding="utf-8"))
    kept["close"]["nothing-like-it"] = "beta"
    cache.write_text(json.dumps(kept), encoding="utf-8")
    edit(root / "entities/beta.md")  # the page with the links: judged again (alpha's edit leaves its findings kept)
    assert hints(root, 3)[1] == "link target 'nothing-like-it' does not exist; did you mean [[beta]]?"
    # a page added: a target its name is near (the same first letter, a length within two) is compared again,
    # and the new name offered; what was offered for the others still holds
    (root / "entities/nothing-like-its.md").write_text(page("Nothing like its"), encoding="utf-8")
    assert hints(root, 4) == [said[0], "link target 'nothing-like-it' does not exist; did you mean "
                                        "[[nothing-like-its]]?"]
    assert compared == ["nothing-like-it"]
    # and removed: the name offered is no longer offered (no name is near enough now to be compared)
    (root / "entities/nothing-like-its.md").unlink()
    assert hints(root, 5) == said
    # a name near both: both compared again
    compared.clear()
    (root / "entities/alpah.md").write_text(page("Alpah"), encoding="utf-8")
    (root / "entities/nothing-like-its.md").write_text(page("Nothing like its"), encoding="utf-8")
    hints(root, 6)
    assert sorted(compared) == ["nothing-like-it"]  # [[alpah]] lands now: it asks for no name


def test_a_damaged_cache_is_found_anew_and_no_cache_writes_none(tmp_path: Path, compared: list[str]) -> None:
    root = make_vault(tmp_path, PAGES)
    cache = state_file(root, CLOSE_NAMES)
    assert cache is not None
    assert hints(root, 1, cache=False)[0].endswith("did you mean [[alpha]]?") and not cache.exists()
    hints(root, 2)
    cache.write_text('{"key": 3, "close": [', encoding="utf-8")
    edit(root / "entities/beta.md")  # its links judged again: broken-wikilink's findings there are not kept
    compared.clear()
    assert hints(root, 3)[0].endswith("did you mean [[alpha]]?") and compared == ["alpah"]


def offered(names: list[str], target: str) -> str | None:
    """What `Names.closest` offers, said plainly: difflib's best match at 0.8 among the names with the target's
    first letter and a length within two of its own, by length then in their order; when there are more than 200
    such names, among the first 200 of them that share the target's first three letters."""
    pool = [name for size in range(len(target) - 2, len(target) + 3) for name in names
            if len(name) == size and fold_name(name[:1]) == fold_name(target[:1])]
    if len(pool) > 200:
        pool = [name for name in pool if fold_name(name[:3]) == fold_name(target[:3])][:200]
    if not pool or len(target) >= 120:
        return None
    close = difflib.get_close_matches(target, pool, n=1, cutoff=0.8)
    return close[0] if close else None


# Many names of a few letters: every first letter's names of a length are far more than 200.
CROWDED = ["".join(letters) for size in (4, 5, 6) for letters in itertools.product("aAbé", repeat=size)]
TARGETS = st.text(alphabet="aAbéc", min_size=1, max_size=9)


@settings(max_examples=150, deadline=None)
@given(targets=st.lists(TARGETS, min_size=1, max_size=6))
def test_the_name_offered_among_many_similar_names_is_difflibs_best_among_those_compared(targets: list[str]) -> None:
    names = Names(CROWDED)
    for target in targets:  # one matcher asked again and again, as a lint asks it
        assert names.closest(target) == offered(CROWDED, target)


@settings(max_examples=150, deadline=None)
@given(pages=st.lists(st.text(alphabet="abAé-", min_size=1, max_size=8), max_size=40), target=TARGETS)
def test_the_name_offered_among_a_few_names_is_difflibs_best(pages: list[str], target: str) -> None:
    assert Names(pages).closest(target) == offered(pages, target)
