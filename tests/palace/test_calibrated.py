"""Calibrated fusion's parts: the BM25 ceiling of a query, and exact cosines from stored vectors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from library import open_palace, sync

from wikic.palace import search
from wikic.palace.hybrid import Retrieval, exact_cosines
from wikic.palace.manifest import DrawerRecord, FileRecord, Manifest
from wikic.palace.palace import Palace


def _manifest(tmp_path: Path, texts: dict[str, str]) -> Manifest:
    manifest = Manifest(tmp_path / "lexical.sqlite3")
    manifest.begin()
    for n, (path, text) in enumerate(texts.items()):
        record = FileRecord(path, f"h{n}", "concepts", path, [], None, [])
        manifest.put_file(record, [DrawerRecord(f"d{n}", path, 0, "", text, 1, 1, f"c{n}")], [text])
    manifest.commit()
    return manifest


def test_a_page_made_of_the_query_scores_its_ceiling(tmp_path: Path) -> None:
    filler = " ".join(f"word{i}" for i in range(30))
    manifest = _manifest(tmp_path, {"a.md": "zymurgy", "b.md": f"zymurgy {filler}", "c.md": filler})
    found = manifest.lexical("zymurgy")
    assert found.drawers["d0"] == pytest.approx(found.drawer_ceiling, rel=1e-5)
    assert found.files["a.md"] == pytest.approx(found.file_ceiling, rel=1e-5)
    assert 0 < found.drawers["d1"] < 0.7 * found.drawer_ceiling  # the word drowned in a long page
    # a query word no page has still counts in the ceiling: the best page matches only part of the query
    partial = manifest.lexical("zymurgy quasar")
    assert partial.drawers["d0"] < 0.5 * partial.drawer_ceiling
    # word pairs do not lift it: two words in order score at least the ceiling of the two words
    both = _manifest(tmp_path / "two", {"x.md": "zymurgy quasar", "y.md": filler}).lexical("zymurgy quasar")
    assert both.drawers["d0"] >= both.drawer_ceiling


def test_no_terms_no_ceiling(tmp_path: Path) -> None:
    manifest = _manifest(tmp_path, {"a.md": "zymurgy"})
    assert manifest.lexical("the of and").drawer_ceiling == 0.0
    assert manifest.bm25("zymurgy") == (manifest.lexical("zymurgy").drawers, manifest.lexical("zymurgy").files)


def test_stored_vectors_give_exact_cosines(vault: Path) -> None:
    sync(vault)
    with open_palace(vault) as palace:
        vector = palace.embedder.embed_query("who founded OpenAI")
        nearest = palace.store.query(vector, 5)
        exact = exact_cosines(palace, vector, [i for i, _ in nearest] + ["no-such-drawer"])
        assert set(exact) == {i for i, _ in nearest}  # unknown ids are simply absent
        for drawer_id, similarity in nearest:
            assert exact[drawer_id] == pytest.approx(similarity, abs=1e-4)
        stored = palace.store.vectors([nearest[0][0]])
        assert stored[nearest[0][0]].dtype == np.float32 and stored[nearest[0][0]].shape == (palace.embedder.dim,)


def test_a_lexical_find_keeps_its_dense_half(vault: Path) -> None:
    """Exact cosines only add what the index did not return: on a vault the index covers, they change
    nothing, and switching them off gives the same ranking."""
    sync(vault)
    with open_palace(vault) as palace:
        for query in ("zymurgy", "who trains the Claude models", "disk was full"):
            with_exact = search(palace, query, k=6)
            assert with_exact == search(palace, query, k=6, retrieval=Retrieval(exact=0))
            assert with_exact[0].score <= 1.0


def test_the_search_beam_is_wide_and_an_older_palace_gets_it_at_its_next_write(tmp_path: Path) -> None:
    from wikic.palace.chroma import EF_SEARCH, ExplicitEmbeddings, VectorStore
    from wikic.settings import PalaceSettings

    old = VectorStore(PalaceSettings(path=tmp_path / "old"))
    old.client.get_or_create_collection("wikic_drawers", configuration={"hnsw": {"space": "cosine"}},
                                        embedding_function=ExplicitEmbeddings())
    assert old.ef_search() == 100  # chromadb's default
    old.mark_written({"wikic_model": "m"})
    assert old.ef_search() == EF_SEARCH == 1000
    new = VectorStore(PalaceSettings(path=tmp_path / "new"))
    new.create({"wikic_model": "m"})
    assert new.ef_search() == EF_SEARCH


def _vector_rows(palace: Palace) -> int:
    return int(palace.manifest._db.execute("SELECT count(*) FROM vectors").fetchone()[0])


def test_every_drawer_keeps_a_copy_of_its_vector_for_exact_search(vault: Path) -> None:
    sync(vault)
    with open_palace(vault) as palace:
        table = palace.manifest.dense()
        assert table is not None and _vector_rows(palace) == palace.manifest.counts()[1]
        ids = sorted(palace.manifest.drawer_ids())
        stored = palace.store.vectors(ids)
        for drawer_id in ids:  # the float16 copy points where the stored vector does
            v = stored[drawer_id] / np.linalg.norm(stored[drawer_id])
            assert float(table.matrix[table.rid_of[drawer_id]] @ v) > 0.999
        vector = palace.embedder.embed_query("who trains the Claude models")
        exhaustive = search(palace, "who trains the Claude models", k=6)
        assert exhaustive[0].path == "entities/anthropic.md"
        assert [h.path for h in exhaustive] == [h.path for h in search(
            palace, "who trains the Claude models", k=6, retrieval=Retrieval(exhaustive=False))]
        assert table.cosines(vector, ids[:2]) == pytest.approx(exact_cosines(palace, vector, ids[:2]), abs=2e-3)


def test_copies_follow_edits_and_deletions(vault: Path) -> None:
    sync(vault)
    page = vault / "concepts/vector-database.md"
    page.write_text(page.read_text(encoding="utf-8").replace("millions of vectors", "billions of vectors"),
                    encoding="utf-8")
    (vault / "entities/anthropic.md").unlink()
    report = sync(vault)
    assert report.drawers_embedded >= 1 and "entities/anthropic.md" in report.removed
    with open_palace(vault) as palace:
        assert palace.manifest.missing_vectors() == []
        assert _vector_rows(palace) == palace.manifest.counts()[1]  # no copy outlives its drawer
        assert palace.manifest.dense() is not None


def test_a_palace_without_copies_uses_the_index_until_its_next_write(vault: Path) -> None:
    sync(vault)
    with open_palace(vault) as palace:
        expected = [h.path for h in search(palace, "zymurgy club", k=3)]
        palace.manifest._db.execute("DELETE FROM vectors WHERE id IN (SELECT id FROM vectors LIMIT 2)")
        palace.manifest.set_meta("generation", "older")  # as a palace made before the copies existed
        assert palace.manifest.dense() is None and len(palace.manifest.missing_vectors()) == 2
        assert [h.path for h in search(palace, "zymurgy club", k=3)] == expected  # the index answers
    report = sync(vault)
    assert report.drawers_embedded == 0  # copies come from the store: nothing is embedded again
    with open_palace(vault) as palace:
        assert palace.manifest.missing_vectors() == [] and palace.manifest.dense() is not None


def test_a_palace_over_the_limit_uses_the_index(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import wikic.palace.manifest as manifest_module

    sync(vault)
    monkeypatch.setattr(manifest_module, "EXACT_MAX", 3)
    with open_palace(vault) as palace:
        assert palace.manifest.dense() is None
        assert search(palace, "who trains the Claude models", k=1)[0].path == "entities/anthropic.md"
