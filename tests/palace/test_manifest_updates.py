"""A file put again keeps the drawers it still has: the manifest after any run of updates is the manifest built
from the last versions alone (drawers, terms, vectors, BM25 scores)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from wikic.palace import bm25
from wikic.palace.manifest import DrawerRecord, FileRecord, Manifest

WORDS = ["hops", "malt", "barley", "yeast", "kettle", "boil", "mash", "wort", "lager", "stout"]
PATHS = ["concepts/brewing.md", "entities/quasar.md"]

texts = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join), max_size=6)
# each step: a file and its new drawers' texts (no texts: the file is removed)
steps = st.lists(st.tuples(st.sampled_from(PATHS), texts), min_size=1, max_size=6)


def _drawers(path: str, version: list[str]) -> tuple[FileRecord, list[DrawerRecord], list[str]]:
    drawers: list[DrawerRecord] = []
    seen: dict[str, int] = {}
    for ordinal, text in enumerate(version):
        digest = hashlib.sha256(text.encode()).hexdigest()
        dup = seen[digest] = seen.get(digest, -1) + 1
        drawer_id = hashlib.sha256(f"{path}\0{digest}\0{dup}".encode()).hexdigest()[:32]
        drawers.append(DrawerRecord(drawer_id, path, ordinal, "H", f"{text} (line {ordinal})", ordinal + 1,
                                    ordinal + 1, digest))
    record = FileRecord(path, hashlib.sha256("\n".join(version).encode()).hexdigest(), "wiki", path, [], None, [])
    return record, drawers, list(version)


def _apply(manifest: Manifest, path: str, version: list[str]) -> None:
    manifest.begin()
    if not version:
        manifest.remove_file(path)
    else:
        record, drawers, embed = _drawers(path, version)
        fresh = [d.id for d in drawers if d.id not in manifest.drawer_ids(path)]
        manifest.put_file(record, drawers, embed)
        if fresh:
            manifest.put_vectors(fresh, np.ones((len(fresh), 4), dtype=np.float32))
    manifest.commit()


def _state(manifest: Manifest) -> tuple[object, ...]:
    drawers = {p: manifest.drawers_of(p) for p in PATHS}
    scores = {w: manifest.bm25(w) for w in WORDS}
    return manifest.files(), drawers, manifest.counts(), manifest.missing_vectors(), scores


@settings(max_examples=60, deadline=None)
@given(history=steps)
def test_updates_leave_the_manifest_the_last_versions_make(
    tmp_path_factory: pytest.TempPathFactory, history: list[tuple[str, list[str]]]
) -> None:
    folder: Path = tmp_path_factory.mktemp("manifest")
    updated, fresh = Manifest(folder / "updated.sqlite3"), Manifest(folder / "fresh.sqlite3")
    last: dict[str, list[str]] = {}
    for path, version in history:
        _apply(updated, path, version)
        last[path] = version
    for path, version in last.items():
        if version:
            _apply(fresh, path, version)
    assert _state(updated) == _state(fresh)
    # a drawer's terms are stored once: no posting is left of a drawer that is gone
    db = updated._db
    assert db.execute("SELECT count(*) FROM postings WHERE rid NOT IN (SELECT rid FROM drawers)").fetchone()[0] == 0
    assert db.execute("SELECT count(*) FROM vectors WHERE id NOT IN (SELECT id FROM drawers)").fetchone()[0] == 0
    updated.close()
    fresh.close()


def test_a_kept_drawer_keeps_its_row_and_takes_its_new_place(tmp_path: Path) -> None:
    manifest = Manifest(tmp_path / "m.sqlite3")
    _apply(manifest, PATHS[0], ["hops malt", "yeast"])
    rid = manifest._db.execute("SELECT rid FROM drawers WHERE ordinal=1").fetchone()[0]
    _apply(manifest, PATHS[0], ["boil", "hops malt", "yeast"])
    assert manifest._db.execute("SELECT ordinal, line_start FROM drawers WHERE rid=?", (rid,)).fetchone() == (2, 3)
    assert [d.text for d in manifest.drawers_of(PATHS[0])] == ["boil (line 0)", "hops malt (line 1)", "yeast (line 2)"]
    manifest.close()


def test_drawers_a_writer_commits_after_the_readers_table_was_loaded_wait_for_the_next_load(tmp_path: Path) -> None:
    # two processes: a reader whose drawer table is loaded, then a writer that adds drawers with the same terms
    # (a search racing an ingest's index update at `-j 4` failed its source with an IndexError here)
    path = tmp_path / "palace.sqlite3"
    reader, writer = Manifest(path), Manifest(path)
    _apply(writer, PATHS[0], ["hops malt"])
    table = reader._table()
    before = bm25.lexical(reader._db, table, "hops", {0, 1})
    _apply(writer, PATHS[1], ["hops", "hops barley", "hops yeast", "hops kettle"])
    _apply(writer, PATHS[0], ["hops malt", "hops wort lager", "hops stout"])
    stale = bm25.lexical(reader._db, table, "hops", {0, 1, 2, 3, 40})
    assert set(stale.drawers) <= set(table.ids.values()) and stale.files.keys() <= {PATHS[0]}
    assert set(before.drawers) == set(table.ids.values())
    # and once the writer marks its generation (as the palace does), the reader's next search loads it
    writer.begin()
    writer.set_meta("generation", "2")
    writer.commit()
    assert set(reader.bm25("hops")[1]) == set(PATHS)
