"""Search: distinct files with their best drawer, corpus-level BM25, filters, title and alias matches."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest
from library import open_palace, sync

from wikic.errors import UsageError
from wikic.palace import search, search_batch
from wikic.palace.hybrid import Retrieval
from wikic.text.terms import tokenize


@pytest.fixture
def indexed(vault: Path) -> Path:
    sync(vault)
    return vault


def test_results_are_distinct_files_with_their_best_drawer(indexed: Path) -> None:
    with open_palace(indexed) as palace:
        hits = search(palace, "when was OpenAI founded and by whom", k=10)
    paths = [h.path for h in hits]
    assert len(paths) == len(set(paths)) == 6
    assert paths[0] == "entities/openai.md"
    top = hits[0]
    assert top.heading == "OpenAI > History" and "December 2015" in top.snippet
    assert top.wing == "entities" and top.title == "OpenAI" and top.line_start >= 1
    assert hits == sorted(hits, key=lambda h: -h.score)


@pytest.mark.parametrize("fusion", ["convex", "rrf"])
def test_scores_lie_between_0_and_1_even_with_a_title_match(indexed: Path, fusion: str) -> None:
    from wikic.palace.hybrid import Retrieval

    with open_palace(indexed) as palace:
        hits = search(palace, "OpenAI", k=10, retrieval=Retrieval(fusion=fusion))
    assert hits[0].path == "entities/openai.md"  # named by the query, and the best evidence too
    assert all(0 <= h.score <= 1 for h in hits), [h.score for h in hits]
    assert hits[0].score > 0.9


def test_rare_exact_term_is_found_by_corpus_level_bm25(indexed: Path) -> None:
    with open_palace(indexed) as palace:
        assert search(palace, "zymurgy", k=1)[0].path == "raw/articles/openai-history.md"


def test_stemming_matches_word_forms(indexed: Path) -> None:
    with open_palace(indexed) as palace:
        assert search(palace, "restarting services", k=1)[0].path == "raw/transcripts/standup.txt"


def test_alias_in_query_pulls_the_page_up(indexed: Path) -> None:
    with open_palace(indexed) as palace:
        assert search(palace, "what does Open AI sell", k=1)[0].path == "entities/openai.md"


def test_filters_by_wing_tag_and_path(indexed: Path) -> None:
    with open_palace(indexed) as palace:
        assert {h.path for h in search(palace, "OpenAI", k=10, wing="raw")} == {
            "raw/articles/openai-history.md", "raw/transcripts/standup.txt"}
        assert {h.path for h in search(palace, "company", k=10, tag="company")} == {
            "entities/openai.md", "entities/anthropic.md"}
        assert {h.path for h in search(palace, "search", k=10, tag="#rag")} == {"concepts/vector-database.md"}
        assert [h.path for h in search(palace, "models", k=10, path="raw/transcripts")] == [
            "raw/transcripts/standup.txt"]
        assert search(palace, "anything", k=10, tag="no-such-tag") == []
        with pytest.raises(UsageError):
            search(palace, "x", wing="attic")


def test_k_limits_results_and_empty_palace_returns_nothing(indexed: Path, make_vault) -> None:
    with open_palace(indexed) as palace:
        assert len(search(palace, "AI", k=2)) == 2
        assert search(palace, "   ") == []
    empty = make_vault({})
    with open_palace(empty) as palace:
        assert search(palace, "anything") == []


def test_batch_yields_one_result_line_per_query(indexed: Path) -> None:
    lines = ['{"id": 1, "query": "who trains the Claude models"}', "", '{"id": "b", "query": "HNSW graphs"}']
    with open_palace(indexed) as palace:
        out = list(search_batch(palace, lines, k=2))
        assert [o["id"] for o in out] == [1, "b"]
        assert out[0]["results"][0]["path"] == "entities/anthropic.md"
        assert set(out[1]["results"][0]) == {"path", "score", "heading", "snippet"}
        with pytest.raises(UsageError, match="line 1"):
            list(search_batch(palace, ["not json"]))


def test_filters_hold_when_the_unfiltered_pool_is_too_small(indexed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When the unfiltered candidates are all filtered out, chromadb's own filter takes over (the approximate
    index's path: a palace whose vector copies are complete compares with all of them, filtered here)."""
    search_module = importlib.import_module("wikic.palace.hybrid")
    monkeypatch.setattr(search_module, "OVERFETCH", 0.005)  # 0.005 x 200: one drawer unfiltered
    with open_palace(indexed) as palace:
        calls: list[dict[str, Any]] = []
        real_query = palace.store.query

        def spy(vector, n, ids=None, where=None, refresh=True):
            calls.append({"n": n, "ids": ids, "where": where})
            return real_query(vector, n, ids=ids, where=where, refresh=refresh)

        monkeypatch.setattr(palace.store, "query", spy)
        exhaustive = search(palace, "HNSW graphs nearest neighbour vectors", k=2, tag="company")
        assert {h.path for h in exhaustive} == {"entities/openai.md", "entities/anthropic.md"} and not calls
        index = Retrieval(exhaustive=False)
        hits = search(palace, "HNSW graphs nearest neighbour vectors", k=2, tag="company", retrieval=index)
        assert {h.path for h in hits} == {"entities/openai.md", "entities/anthropic.md"}
        assert calls[0]["n"] == 1 and calls[0]["ids"] is None
        assert calls[-1]["ids"] is not None  # fell back to chromadb's filter
        calls.clear()
        hits = search(palace, "HNSW graphs nearest neighbour vectors", k=2, wing="raw", retrieval=index)
        assert {h.wing for h in hits} == {"raw"} and calls[-1]["where"] == {"wing": "raw"}
        assert {h.wing for h in search(palace, "HNSW graphs nearest neighbour vectors", k=2, wing="raw")} == {"raw"}


def test_a_page_with_an_impossible_date_is_still_found(vault: Path) -> None:
    """Frontmatter lint rejects (`updated: 2024-02-30`) keeps the page in search, its text as the body."""
    (vault / "entities/quokka.md").write_text(
        "---\ntitle: Quokka\ntype: entity\nupdated: 2024-02-30\n---\n"
        "# Quokka\n\nThe quokka lives on Rottnest Island.\n",
        encoding="utf-8",
    )
    report = sync(vault)
    assert "entities/quokka.md" in report.added and not report.skipped
    with open_palace(vault) as palace:
        assert search(palace, "Which animal lives on Rottnest Island?", k=1)[0].path == "entities/quokka.md"


def test_a_bounded_query_reads_only_its_rarest_terms(indexed: Path) -> None:
    """`Retrieval.postings`: a long query (a whole source, as ingest asks) is scored by its rarest terms whose
    postings fit the bound, so what it reads does not grow with the palace; unbounded it is the full BM25."""
    from wikic.palace import bm25

    query = "OpenAI was founded in December 2015; zymurgy and embeddings for semantic search"
    with open_palace(indexed) as palace:
        lex = palace.manifest
        full = lex.lexical(query)
        assert lex.lexical(query, postings=10_000) == full  # a bound nothing reaches changes nothing
        counts: dict[tuple[int, int], int] = {}
        tids = bm25.known_term_ids(lex._db, tokenize(query))
        chosen = bm25.rarest(lex._db, tids, 8, counts)
        df = {t: lex._db.execute("SELECT count(*) FROM postings WHERE tid=?", (tid,)).fetchone()[0]
              for t, tid in tids.items()}
        assert chosen and sum(df[t] for t in chosen) <= 8
        assert max(df[t] for t in chosen) <= min(df[t] for t in tids if t not in chosen)  # the rarest first
        assert "zymurgi" in chosen and "search" not in chosen
        bounded = lex.lexical(query, postings=8)
        assert set(bounded.drawers) <= set(full.drawers) and len(bounded.drawers) < len(full.drawers)
        hits = search(palace, query, k=3, retrieval=Retrieval(postings=8))
        assert "raw/articles/openai-history.md" in [h.path for h in hits]  # its rare word still finds it
