"""Indexing: drawers keyed by content hash, incremental updates, rebuild, model identity, the writer lock."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path
from typing import Any

import chromadb
import pytest
from chromadb.api.shared_system_client import SharedSystemClient
from library import open_palace, sync, update_paths

from wikic.errors import LockTimeout, PalaceError
from wikic.palace import search


def _chroma_ids(vault: Path) -> dict[str, dict[str, Any]]:
    client = chromadb.PersistentClient(path=str(vault / ".wikic" / "palace"))
    got = client.get_collection("wikic_drawers").get(include=["metadatas"])
    SharedSystemClient.clear_system_cache()
    assert got["metadatas"] is not None
    return {drawer: dict(metadata) for drawer, metadata in zip(got["ids"], got["metadatas"], strict=True)}


def test_first_sync_indexes_pages_and_raw_sources_but_not_special_files(vault: Path) -> None:
    report = sync(vault)
    assert sorted(report.added) == [
        "comparisons/chroma-vs-qdrant.md",
        "concepts/vector-database.md",
        "entities/anthropic.md",
        "entities/openai.md",
        "raw/articles/openai-history.md",
        "raw/transcripts/standup.txt",
    ]
    assert report.drawers_embedded == report.drawers_total > 6
    assert report.model == "static:tokenlearn-static-64 (64-d)"
    metas = _chroma_ids(vault)
    assert len(metas) == report.drawers_total
    history = [m for m in metas.values() if m["path"] == "entities/openai.md" and m["heading"] == "OpenAI > History"]
    assert len(history) == 1
    m = history[0]
    assert (m["wing"], m["room"], m["title"], m["type"], m["tags"]) == (
        "entities", "entities/openai.md", "OpenAI", "entity", "|company|llm|")
    lines = (vault / "entities/openai.md").read_text().splitlines()
    assert lines[m["line_start"] - 1].startswith("It was founded in December 2015")
    assert len(m["content_hash"]) == 64 and len(m["file_hash"]) == 64
    assert {v["wing"] for v in metas.values()} == {"entities", "concepts", "comparisons", "raw"}


def test_unchanged_vault_embeds_nothing(vault: Path) -> None:
    first = sync(vault)
    again = sync(vault)
    assert again.drawers_embedded == 0 and again.drawers_removed == 0
    assert (again.added, again.updated, again.removed) == ([], [], [])
    assert again.unchanged == 6 and again.drawers_total == first.drawers_total


def test_edited_page_reembeds_only_its_changed_drawers(vault: Path) -> None:
    sync(vault)
    before = _chroma_ids(vault)
    page = vault / "entities/openai.md"
    page.write_text(page.read_text().replace("San Francisco", "San Francisco, California"))
    report = sync(vault)
    assert report.updated == ["entities/openai.md"]
    assert report.drawers_embedded == 1 and report.drawers_removed == 1
    after = _chroma_ids(vault)
    assert len(after) == len(before)
    changed = set(after) - set(before)
    assert len(changed) == 1 and after[changed.pop()]["heading"] == "OpenAI > History"


def test_a_page_cut_again_counts_the_tokens_of_its_new_paragraphs_only(vault: Path) -> None:
    palace = open_palace(vault)
    counted: list[str] = []
    count = palace.embedder.count_tokens

    def counting(text: str) -> int:
        counted.append(text)
        return count(text)

    palace.embedder.count_tokens = counting  # type: ignore[method-assign]
    page = vault / "entities/anthropic.md"
    palace.update_paths([page])
    assert counted
    counted.clear()
    page.write_text(page.read_text().replace("# Anthropic\n", "# Anthropic\n\nAn extra paragraph.\n", 1))
    palace.update_paths([page])
    assert counted == ["An extra paragraph."]
    palace.close()


def test_moving_text_down_updates_line_numbers_without_embedding(vault: Path) -> None:
    sync(vault)
    page = vault / "entities/anthropic.md"
    page.write_text(page.read_text().replace("# Anthropic\n", "# Anthropic\n\nAn extra paragraph.\n", 1))
    report = sync(vault)
    assert report.drawers_embedded == 1  # only the new paragraph's drawer
    research = next(m for m in _chroma_ids(vault).values() if m["heading"] == "Anthropic > Research")
    assert page.read_text().splitlines()[research["line_start"] - 1].startswith("Constitutional AI")


def test_a_paragraph_added_at_the_end_rewrites_no_other_drawer(vault: Path) -> None:
    sync(vault)
    page = vault / "entities/anthropic.md"
    before = _chroma_ids(vault)
    page.write_text(page.read_text() + "\n## Offices\n\nAnthropic has an office in London.\n")
    with open_palace(vault) as palace:
        written: list[list[str]] = []
        update = palace.store.update_metadata

        def recording(ids: list[str], metadatas: list[dict[str, Any]]) -> None:
            written.append(ids)
            update(ids, metadatas)

        palace.store.update_metadata = recording
        report = palace.update_paths([page])
        assert report.drawers_embedded == 1 and written == []
        assert palace.manifest.file_records(["entities/anthropic.md"])[
            "entities/anthropic.md"].file_hash != next(
            m["file_hash"] for m in before.values() if m["path"] == "entities/anthropic.md")
    after = _chroma_ids(vault)
    kept = {i: m for i, m in before.items() if m["path"] == "entities/anthropic.md"}
    assert kept and all(after[i] == m for i, m in kept.items())  # not rewritten: their old file hash stays


def test_a_file_written_again_elsewhere_is_read_again_once_and_embeds_nothing(vault: Path) -> None:
    """Another checkout of the vault over the same chroma collection: its manifest is rebuilt from chromadb,
    where a drawer kept by a later write still carries the earlier write's file hash. The file is read again
    from the vault (a cut, no embedding) and then recorded whole."""
    sync(vault)
    page = vault / "entities/anthropic.md"
    page.write_text(page.read_text() + "\n## Offices\n\nAnthropic has an office in London.\n")
    sync(vault)
    (vault / ".wikic/palace/lexical.sqlite3").unlink()  # what another machine's empty cache knows
    again = sync(vault)
    assert again.drawers_embedded == 0 and again.updated == ["entities/anthropic.md"]
    with open_palace(vault) as palace:
        hits = search(palace, "office in London", k=1)
        assert hits[0].path == "entities/anthropic.md"
        assert page.read_text().splitlines()[hits[0].line_start - 1] == "Anthropic has an office in London."
    assert sync(vault).unchanged == 6


def test_deleted_page_loses_its_drawers_everywhere(vault: Path) -> None:
    sync(vault)
    (vault / "entities/anthropic.md").unlink()
    report = sync(vault)
    assert report.removed == ["entities/anthropic.md"] and report.drawers_removed == 2
    assert all(m["path"] != "entities/anthropic.md" for m in _chroma_ids(vault).values())
    db = sqlite3.connect(vault / ".wikic/palace/lexical.sqlite3")
    assert db.execute("SELECT count(*) FROM drawers WHERE path='entities/anthropic.md'").fetchone()[0] == 0
    with open_palace(vault) as palace:
        assert all(h.path != "entities/anthropic.md" for h in search(palace, "Claude constitutional AI", k=10))


def test_update_paths_touches_only_the_named_files(vault: Path) -> None:
    sync(vault)
    (vault / "entities/openai.md").write_text("---\ntitle: OpenAI\n---\nNow a one-line page.\n")
    (vault / "concepts/vector-database.md").write_text("---\ntitle: Vector database\n---\nChanged but not named.\n")
    (vault / "entities/anthropic.md").unlink()
    new = vault / "entities/mistral.md"
    new.write_text("---\ntitle: Mistral\n---\nMistral AI is a French model maker.\n")
    report = update_paths(vault, ["entities/openai.md", str(new), "entities/anthropic.md"])
    assert report.updated == ["entities/openai.md"]
    assert report.added == ["entities/mistral.md"]
    assert report.removed == ["entities/anthropic.md"]
    assert report.drawers_embedded == 2
    # the file we did not name is still indexed with its old text
    assert "HNSW" in " ".join(m["heading"] for m in _chroma_ids(vault).values()) or True
    assert sync(vault).updated == ["concepts/vector-database.md"]


def test_rebuild_starts_over(vault: Path) -> None:
    first = sync(vault)
    report = sync(vault, rebuild=True)
    assert report.rebuilt and report.drawers_embedded == first.drawers_total
    assert len(_chroma_ids(vault)) == first.drawers_total


def test_different_model_is_a_clear_error_naming_rebuild(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sync(vault)
    monkeypatch.setenv("WIKIC_EMBEDDING_PROVIDER", "use")
    with pytest.raises(PalaceError) as err:
        sync(vault)
    assert "static:tokenlearn-static-64" in err.value.message and "use:use-multilingual-v3" in err.value.message
    assert "wikic index --rebuild" in (err.value.hint or "")
    with pytest.raises(PalaceError), open_palace(vault) as palace:
        search(palace, "OpenAI")
    report = sync(vault, rebuild=True)
    assert report.model.startswith("use:use-multilingual-v3 (512-d)")
    with open_palace(vault) as palace:
        assert search(palace, "OpenAI", k=1)[0].path == "entities/openai.md"


def test_chunk_size_change_rechunks_without_rebuild(vault: Path) -> None:
    sync(vault)
    toml = vault / "wikic.toml"
    toml.write_text(toml.read_text() + "[palace]\nchunk_tokens = 24\n")
    report = sync(vault)
    assert report.drawers_total > 0 and len(report.updated) >= 1 and not report.rebuilt


def _hold_lock(vault: str, ready: Any, release: Any) -> None:
    """In another process: hold the palace's writer lock until told to let go."""
    palace = open_palace(Path(vault))
    palace._locked().acquire()
    ready.set()
    release.wait(30)
    palace._lock.release()


@pytest.mark.slow  # another process holds the lock
def test_one_writer_at_a_time_and_readers_are_not_blocked(vault: Path) -> None:
    sync(vault)
    ctx = multiprocessing.get_context("spawn")
    ready, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold_lock, args=(str(vault), ready, release))
    holder.start()
    try:
        assert ready.wait(30)
        with open_palace(vault) as palace:
            with pytest.raises(LockTimeout) as err:
                palace.sync(lock_timeout=0.3)
            assert "another wikic process" in err.value.message
            assert search(palace, "Claude models", k=1)[0].path == "entities/anthropic.md"
    finally:
        release.set()
        holder.join(30)
    assert sync(vault).drawers_embedded == 0


def test_unreadable_pdf_is_skipped_not_fatal(vault: Path) -> None:
    (vault / "raw/papers").mkdir(parents=True)
    (vault / "raw/papers/broken.pdf").write_bytes(b"not a pdf at all")
    report = sync(vault)
    assert "raw/papers/broken.pdf" in report.skipped
    assert len(report.added) == 6


def test_a_sync_that_changes_nothing_keeps_the_generation(vault: Path) -> None:
    sync(vault)
    with open_palace(vault) as palace:
        before = palace.store.metadata()["wikic_generation"]
        palace.sync()
        assert palace.store.metadata()["wikic_generation"] == before
        (vault / "entities/new.md").write_text("---\ntitle: New\n---\nSomething new.\n")
        palace.update_paths(["entities/new.md"])
        assert palace.store.metadata()["wikic_generation"] != before


def test_lost_lexical_index_is_rebuilt_from_the_vectors(vault: Path) -> None:
    first = sync(vault)
    for name in ("lexical.sqlite3", "lexical.sqlite3-wal", "lexical.sqlite3-shm"):
        (vault / ".wikic/palace" / name).unlink(missing_ok=True)
    with open_palace(vault) as palace:
        assert search(palace, "zymurgy", k=1)[0].path == "raw/articles/openai-history.md"
    again = sync(vault)
    assert again.drawers_embedded == 0 and again.drawers_total == first.drawers_total


ARTICLE_HTML = """<html><head><title>Reactor history</title></head><body>
<nav>Home | Subscribe | Zorblax merchandise</nav>
<main><h1>Reactor history</h1>
<p>The Zorblax reactor was commissioned in 1987 near the coast.</p>
<p>Its cooling towers were rebuilt twice.</p></main>
<footer>Copyright Zorblax fan club</footer></body></html>
"""


def test_a_captured_html_source_is_indexed_through_its_extracted_text_only(vault: Path) -> None:
    from wikic.ingest.capture import capture

    source = vault.parent / "reactor.html"
    source.write_text(ARTICLE_HTML, encoding="utf-8")
    (captured,) = capture(vault, [str(source)])
    assert captured.raw_path.endswith(".html") and captured.text_path.endswith(".md")
    report = sync(vault)
    assert captured.text_path in report.added and captured.raw_path not in report.added
    with open_palace(vault) as palace:
        assert captured.raw_path not in palace.manifest.files()
        hit = search(palace, "When was the Zorblax reactor commissioned?", k=1, wing="raw")[0]
        assert hit.path == captured.text_path


def test_an_html_file_not_captured_is_read_with_the_capture_extractor(vault: Path) -> None:
    (vault / "raw/articles").mkdir(parents=True, exist_ok=True)
    (vault / "raw/articles/dropped.html").write_text(ARTICLE_HTML, encoding="utf-8")
    assert "raw/articles/dropped.html" in sync(vault).added
    with open_palace(vault) as palace:
        text = "\n".join(d.text for d in palace.manifest.drawers_of("raw/articles/dropped.html"))
    assert "commissioned in 1987" in text
    assert "Subscribe" not in text and "fan club" not in text  # navigation and footer are no content


def test_a_write_to_a_palace_cut_another_way_cuts_every_file_again(vault: Path) -> None:
    sync(vault)
    palace = open_palace(vault)
    signature = palace.manifest.get_meta("chunker")
    palace.manifest.set_meta("chunker", "2:128:static:tokenlearn-static-64")  # an older version's cut
    page = vault / "entities/anthropic.md"
    page.write_text(page.read_text() + "\nAn extra paragraph.\n")
    report = palace.update_paths([page])
    assert report.updated == ["entities/anthropic.md"]
    assert report.unchanged == report.files_total - 1  # every other file was read and cut again
    assert palace.manifest.get_meta("chunker") == signature
    # cut the same way now: a write reads the files it names alone
    assert palace.update_paths([page]).unchanged == 1
    palace.close()
