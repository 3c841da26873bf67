"""The cache of link resolutions: a note's links resolved by an earlier run hold while the note and the vault's
file paths are unchanged; a file added, removed or renamed, or the note edited, and they are resolved again."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from testkit import make_vault, page

from wikic.lint.run import LintOptions, run_lint
from wikic.vault import resolved_cache
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
    resolved_cache._codec.cache_clear()
    yield str(request.param)
    resolved_cache._codec.cache_clear()


def broken(root: Path, day: int) -> list[tuple[str, int | None, str | None]]:
    """The broken links a lint finds (each run another day, so that no run is served the report before it)."""
    import datetime as dt

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
    key, rows = json.loads(cache.read_bytes())
    rows["entities/a.md"][2][0] = [None, []]  # its [[b]] now "resolves nowhere"
    cache.write_text(json.dumps([key, rows]), encoding="utf-8")
    edit(root / "entities/b.md")
    assert broken(root, 3) == [("entities/a.md", 13, "b"), *ghost]
    # a file added: every note's links are resolved again (the tampered row with them), and [[ghost]] lands
    (root / "entities/ghost.md").write_text(page("Ghost", body="[[a]] [[b]]\n"), encoding="utf-8")
    assert broken(root, 4) == []
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
    for n, damaged in enumerate([b"{not json", b'["key", 3]', b"[]", b"", b'["k", {"entities/a.md": [1]}]']):
        cache.write_bytes(damaged)
        edit(root / "entities/b.md")
        assert broken(root, 3 + n) == expected
