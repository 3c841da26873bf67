"""The cache of link resolutions: a note's links resolved by an earlier run hold while the note and the vault's
file paths are unchanged; a file added, removed or renamed, or the note edited, and they are resolved again."""

from __future__ import annotations

import json
import os
import posixpath
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from library import run_lint
from testkit import make_vault, page

from wikic.lint.kept_findings import cache_name
from wikic.lint.run import LintOptions
from wikic.vault import note_json, resolved_cache
from wikic.vault.state import RESOLVED_LINKS, state_file

PAGES = {
    "entities/a.md": page("A", body="[[b]] [[ghost]] [[c]]\n"),
    "entities/b.md": page("B", body="[[a]] [[c]]\n"),
    "entities/c.md": page("C", body="[[a]] [[b]]\n"),
}


@pytest.fixture(params=["msgspec", "json"])
def codec(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Both codecs: msgspec (the `fast` extra) and the standard library's, which reads without it."""
    if request.param == "json":
        monkeypatch.setitem(sys.modules, "msgspec", None)  # `import msgspec` raises ImportError
    for chosen in (resolved_cache._codec, note_json._codec):  # each picks its codec once: pick again, here and after
        chosen.cache_clear()
    yield str(request.param)
    for chosen in (resolved_cache._codec, note_json._codec):
        chosen.cache_clear()


def broken(root: Path, day: int) -> list[tuple[str, int | None, str | None]]:
    """The broken links a lint finds (each run another day, so that no run is served the report before it)."""
    import datetime as dt

    # a whole lint, which resolves the links it parses and keeps them (not one made from the last whole lint's
    # findings, `lint/changed.py`)
    (root / ".wikic" / "cache" / "lint-base.json").unlink(missing_ok=True)
    report = run_lint(root, LintOptions(select=("broken-wikilink",), use_cache=True, today=dt.date(2026, 3, day)))
    assert not report.cached
    return [(f.path, f.line, f.target) for f in report.findings]


def edit(path: Path) -> None:
    """A new mtime, the same bytes: the note is parsed again."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_an_unchanged_notes_links_come_from_the_cache_and_a_new_file_resolves_them_again(
    tmp_path: Path, codec: str
) -> None:
    root = make_vault(tmp_path, PAGES)
    ghost = [("entities/a.md", 13, "ghost")]
    assert broken(root, 1) == ghost  # cold: everything parsed, no cache of resolutions written
    cache = state_file(root, RESOLVED_LINKS)
    assert cache is not None and not cache.exists()
    edit(root / "entities/b.md")
    assert broken(root, 2) == ghost  # a.md and c.md resolved here, and kept
    assert cache.is_file()
    # what the cache says of a.md is what a lint uses while a.md and the vault's files are unchanged
    version, paths, rows = json.loads(cache.read_bytes())
    rows["entities/a.md"][2][0] = [None, []]  # its [[b]] now "resolves nowhere"
    rows["entities/c.md"][2][0] = [None, []]  # its [[a]] too
    cache.write_text(json.dumps([version, paths, rows]), encoding="utf-8")
    kept = state_file(root, cache_name("broken-wikilink"))
    assert kept is not None
    kept.unlink()  # every note's links judged again (the findings kept on a.md and c.md would hide the tampering)
    edit(root / "entities/b.md")
    assert broken(root, 3) == [("entities/a.md", 13, "b"), *ghost, ("entities/c.md", 13, "a")]
    # a file added: the notes whose links may reach it are resolved again (a.md, the tampered row with it, and
    # [[ghost]] lands); c.md's links cannot reach it, and keep what the cache says
    (root / "entities/ghost.md").write_text(page("Ghost", body="[[a]] [[b]]\n"), encoding="utf-8")
    assert broken(root, 4) == [("entities/c.md", 13, "a")]
    (root / "entities/c.md").write_text(page("C", body="[[a]] [[b]]\n") + "\n", encoding="utf-8")  # edited
    assert broken(root, 6) == []
    # a file removed: the links to it are broken again, in the notes that did not change too
    (root / "entities/c.md").unlink()
    assert broken(root, 5) == [("entities/a.md", 13, "c"), ("entities/b.md", 13, "c"), ("index.md", 6, "c")]


def test_a_damaged_cache_of_resolutions_is_made_anew(tmp_path: Path, codec: str) -> None:
    root = make_vault(tmp_path, PAGES)
    broken(root, 1)
    edit(root / "entities/b.md")
    expected = broken(root, 2)
    cache = state_file(root, RESOLVED_LINKS)
    assert cache is not None
    for n, damaged in enumerate([b"{not json", b'["v", [], 3]', b"[]", b"", b'["v", [], {"entities/a.md": [1]}]',
                                 b'["2|0", "x", {}]']):
        cache.write_bytes(damaged)
        edit(root / "entities/b.md")
        assert broken(root, 3 + n) == expected


# ---- which notes a changed file concerns -------------------------------------------------------------

_NAMES = st.sampled_from(["a", "b", "A", "a.md", "b.md", "x/a", "x/b.md", "y/x/a", "Ä", "a.png", "x", ".", ".."])
_TARGETS = st.sampled_from(["a", "b", "A", "a.md", "x/a", "./a", "../a", "/x/a", "x/../a", "a/", "ä", "a.png",
                            "x\\a", "../x/b", "", "b.md", "a/.", "x/..", "x/a/..", "a//", "y/../x/a/."])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=st.sets(_NAMES, max_size=8), after=st.sets(_NAMES, max_size=8),
       links=st.lists(st.tuples(st.sampled_from(["", "x", "y/x", "X"]), _TARGETS), min_size=1, max_size=12))
def test_a_cached_resolution_is_kept_only_where_no_changed_file_can_change_it(
    tmp_path: Path, before: set[str], after: set[str], links: list[tuple[str, str]]
) -> None:
    from wikic.vault.load import FileInfo
    from wikic.vault.model import Link, Note
    from wikic.vault.resolve import Resolver

    def vault_files(names: set[str]) -> dict[str, FileInfo]:
        files = {n if "." in n.rsplit("/", 1)[-1] else n + ".md": FileInfo("", 1, 1) for n in names
                 if n not in (".", "..")}
        return {p: FileInfo(p, 1, 1) for p in {*files, *(posixpath.join(folder, "note.md") for folder, _ in links)}}

    notes: dict[str, Note] = {}
    for folder, target in links:
        path = posixpath.join(folder, "note.md")
        old = notes.get(path)
        mine = [*(old.links if old else []), Link("wikilink", target, "", None, 1, 1, f"[[{target}]]")]
        notes[path] = Note(path, None, 0, {}, mine, [], [], [], 1, 1)
    root = Path(tempfile.mkdtemp(dir=tmp_path))
    (root / ".wikic").mkdir()
    first, second = vault_files(before), vault_files(after)
    resolved_cache.complete(root, first, notes, {}, Resolver(first))  # the cache, made for `before`
    got: dict[str, list[tuple[str | None, tuple[str, ...]]]] = {}
    resolved_cache.complete(root, second, notes, got, Resolver(second))
    fresh = Resolver(second)
    for path, note in notes.items():
        assert got[path] == [(r.path, r.candidates) for r in fresh.resolve_all(path, [lk.target for lk in note.links])]
