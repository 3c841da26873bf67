"""Lists of ids of any length: every SQLite statement and chromadb call the palace makes takes a bounded slice
of them, so that a palace of any size can be repaired, searched and written.

The stores here refuse more than LIMIT ids per statement or call (SQLite's variable limit lowered on every
connection the manifest opens; chromadb behind a stand-in that fails as its own SQLite does), and the slice
size is lowered below it; `the slow test at the end repeats the repair at the real limits.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from library import open_palace, sync
from testkit import palace_drawer_problems

from wikic.palace import palace as palace_module, search, slices
from wikic.palace.chroma import VectorStore
from wikic.palace.hybrid import Retrieval
from wikic.palace.manifest import Manifest
from wikic.settings import PalaceSettings

LIMIT = 24


class _Limited:
    """A chromadb client or collection that, like SQLite, refuses a call passing more than LIMIT ids."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def get_max_batch_size(self) -> int:
        return LIMIT

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            if len(kwargs.get("ids") or ()) > LIMIT:
                raise RuntimeError("Error executing plan: too many SQL variables")
            out = attr(*args, **kwargs)
            return _Limited(out) if name in ("get_collection", "get_or_create_collection") else out

        return call


class LimitedStore(VectorStore):
    @property
    def client(self) -> Any:
        return _Limited(super().client)


class Killed(BaseException):
    """Stands for SIGKILL: nothing after it runs, and the manifest's open transaction is lost."""


@pytest.fixture
def limited(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(slices, "SQL_VARIABLES", 10)
    connect = sqlite3.connect

    def limited_connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        db = connect(*args, **kwargs)
        db.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, LIMIT)
        return db

    monkeypatch.setattr(sqlite3, "connect", limited_connect)
    monkeypatch.setattr(palace_module, "open_store", LimitedStore)


def _big_page(sections: int, extra: str = "") -> str:
    body = "".join(f"## Part {i}\n\nPart {i} of the long page is about widget {i} and its rig.\n\n"
                   for i in range(sections))
    return f"---\ntitle: Long\n---\n# Long\n\n{body}{extra}"


def _consistent(vault: Path) -> None:
    with open_palace(vault) as palace:
        assert palace_drawer_problems(palace) == []
        assert palace.manifest.get_meta("dirty") == "0"
    again = sync(vault)
    assert (again.added, again.updated, again.removed, again.drawers_embedded) == ([], [], [], 0)


def _killed_between_the_stores(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def killed(*args: Any, **kwargs: Any) -> None:
        raise Killed

    with monkeypatch.context() as m:
        m.setattr(Manifest, "put_file", killed)
        with pytest.raises(Killed):
            sync(vault)


def test_a_write_killed_between_the_stores_is_repaired_at_any_size(
    vault: Path, limited: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    sync(vault)
    page = vault / "concepts" / "long.md"
    # new drawers in chromadb only, more than one call may name
    page.write_text(_big_page(4 * LIMIT), encoding="utf-8")
    _killed_between_the_stores(vault, monkeypatch)
    with open_palace(vault) as palace:
        assert len(palace.store.all_ids() - palace.manifest.drawer_ids()) > 3 * LIMIT
    assert sync(vault).drawers_embedded == 0
    _consistent(vault)

    # one new drawer, but the file's other drawers (more than LIMIT) are read back to complete it
    page.write_text(_big_page(4 * LIMIT, "## Coda\n\nThe rig is calibrated at last.\n"), encoding="utf-8")
    _killed_between_the_stores(vault, monkeypatch)
    assert sync(vault).drawers_embedded == 0
    _consistent(vault)

    # a section rewritten: chromadb has dropped its old drawer, the manifest still holds it
    page.write_text(_big_page(4 * LIMIT).replace("Part 7 of", "Part seven of"), encoding="utf-8")
    _killed_between_the_stores(vault, monkeypatch)
    assert sync(vault).drawers_embedded == 0
    _consistent(vault)

    # and a file of that size deleted
    page.unlink()
    assert sync(vault).removed == ["concepts/long.md"]
    _consistent(vault)


def test_search_passes_long_lists_in_slices(vault: Path, limited: None) -> None:
    for i in range(2 * LIMIT):
        (vault / "concepts" / f"note-{i}.md").write_text(f"# Note {i}\n\nWidget {i} is measured on a rig.\n")
    sync(vault)
    with open_palace(vault) as palace:
        # more files than one statement may name, ranked through the manifest
        hits = search(palace, "widget rig", k=2 * LIMIT)
        assert len(hits) == 2 * LIMIT
        # a query of more distinct words than one statement may name
        words = " ".join(f"word{i}" for i in range(3 * LIMIT))
        assert search(palace, f"widget {words}", k=3)
        # the approximate index, asked for the nearest among more drawers than one call may name
        narrow = search(palace, "widget rig", k=3, path="concepts", retrieval=Retrieval(exhaustive=False))
        assert narrow and all(h.path.startswith("concepts/") for h in narrow)


def test_the_nearest_among_a_long_id_filter_are_the_nearest_of_all_its_slices(tmp_path: Path,
                                                                             limited: None) -> None:
    store = LimitedStore(PalaceSettings(path=tmp_path / "palace"))
    store.create({"wikic_model": "test"})
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(5 * LIMIT, 8)).astype(np.float32)
    ids = [f"d{i:03d}" for i in range(len(vectors))]
    store.add(ids, vectors, ids, [{"path": "x.md"} for _ in ids])
    assert store.all_ids() == set(ids)
    assert set(store.vectors(ids)) == set(ids)
    assert store.get(ids)[0] == ids
    query = rng.normal(size=8).astype(np.float32)
    allowed = ids[::2]
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    cosines = unit @ (query / np.linalg.norm(query))
    truth = sorted(allowed, key=lambda i: -cosines[ids.index(i)])[:5]
    assert [i for i, _ in store.query(query, 5, ids=allowed)] == truth
    store.delete(ids)
    assert store.all_ids() == set()


class WordEmbedder:
    """A fast stand-in model (words hashed into 16 dimensions), so that a palace of real size is quick to build."""

    provider, model, dim, max_tokens = "test", "hashed-words-16", 16, None

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.split():
                out[row, hash(word) % self.dim] += 1.0
        return out + 1e-3

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


@pytest.mark.slow  # 33,000 drawers in chromadb, then in the manifest
def test_a_write_killed_between_the_stores_is_repaired_at_the_real_limits(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above SQLite's 32,766 variables per statement and chromadb's 5,461 records per call, with the store in
    its own process as `wikic index` runs it."""
    sections = 33_000
    with open_palace(vault, embedder=WordEmbedder()) as palace:
        palace.sync()
        page = vault / "raw" / "log.md"
        page.parent.mkdir(exist_ok=True)
        page.write_text("# Log\n\n" + "".join(f"## Entry {i}\n\nEntry {i}: widget {i % 97} on rig {i % 13}.\n\n"
                                             for i in range(sections)), encoding="utf-8")

        def killed(*args: Any, **kwargs: Any) -> None:
            raise Killed

        with monkeypatch.context() as m:
            m.setattr(Manifest, "put_file", killed)
            with pytest.raises(Killed):
                palace.sync()
        assert len(palace.store.all_ids() - palace.manifest.drawer_ids()) == sections
        assert palace.sync().drawers_embedded == 0
        assert palace_drawer_problems(palace) == []
        assert search(palace, "Entry 32999 widget", k=1)[0].path == "raw/log.md"
