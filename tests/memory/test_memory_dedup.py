"""Duplicates are merged, not repeated: judged by real embeddings (the packaged USE model, cosine >= 0.92)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from memkit import Session, at, ingest_sessions, make_vault, memory

from wikic.memory.merge import DUPLICATE_SIMILARITY, Deduplicator, packaged_embedder
from wikic.pages.blocks import find_block
from wikic.vault.formats.memory_items import parse_items

ONE_REFERENCE = "# Wiki Schema\n## Domain\nWork\n## Page Thresholds\n- entity_min_references: 1\n"

# (what is on the page, what a later session says, whether it is the same memory)
CASES = [
    ("Use uv for every Python project, never pip.", "Use uv for all Python projects and never pip.", True),
    ("The user prefers uv over pip for Python projects.", "The user prefers uv to pip in Python projects.", True),
    ("Run the fast test tier before every commit.", "Run the fast tier of tests before each commit.", True),
    ("Use uv for every Python project, never pip.", "The user prefers short answers without bullet points.", False),
    ("Decided to use PostgreSQL for the billing service.", "Decided to use SQLite for the billing service.", False),
    ("Run the fast test tier before every commit.", "Run the slow test tier every night.", False),
    ("Ada lives in Berlin.", "Ada works in Berlin.", False),
    # an embedding puts a denial next to what it denies (cosine 0.94 here): never one memory
    ("The user likes long answers.", "The user does not like long answers.", False),
    ("Commit the lock file.", "Never commit the lock file.", False),
]


@pytest.fixture(scope="module")
def dedup() -> Deduplicator:
    assert packaged_embedder() is not None  # the model ships in a package: no download
    return Deduplicator(packaged_embedder)


@pytest.mark.parametrize(("existing", "new", "same"), CASES)
def test_a_near_paraphrase_is_the_same_memory_and_a_distinct_one_is_not(
    dedup: Deduplicator, existing: str, new: str, same: bool
) -> None:
    found = dedup.best(new, ["Write commit messages in English.", existing])
    assert (found == 1) is same and (found is None or same)


def test_the_threshold_is_the_one_the_seeds_found_safe() -> None:
    assert DUPLICATE_SIMILARITY == 0.92


def test_a_paraphrase_in_a_later_session_adds_its_anchor_and_a_distinct_memory_its_own_line(tmp_path: Path) -> None:
    root = make_vault(tmp_path, schema=ONE_REFERENCE)
    first = Session(
        "a",
        "Tools",
        [("user", "Use uv for every Python project, never pip.", at(2))],
        [
            memory(
                "instruction",
                "Use uv for every Python project, never pip.",
                "Use uv for every Python project, never pip.",
                0.8,
                "user",
            )
        ],
    )
    later = Session(
        "b",
        "More tools",
        [("user", "Use uv for all Python projects and never pip. And format with ruff.", at(8))],
        [
            memory(
                "instruction",
                "Use uv for all Python projects and never pip.",
                "Use uv for all Python projects and never pip.",
                0.9,
                "user",
            ),
            memory("instruction", "Format the code with ruff.", "format with ruff", 0.6, "user"),
        ],
    )
    reports = ingest_sessions(root, [first, later])
    assert (reports[1].sources[0].memories, reports[1].sources[0].memories_merged) == (1, 1)
    found = find_block((root / "entities" / "me.md").read_text(encoding="utf-8"), "memory:instruction")
    assert found is not None
    items = parse_items(found[3], "instruction")
    assert [i.text for i in items] == ["Use uv for every Python project, never pip.", "Format the code with ruff."]
    assert items[0].anchors == ("raw/transcripts/tools.md:L9", "raw/transcripts/more-tools.md:L9")
    assert items[0].importance == 0.9 and str(items[0].last) == "2026-11-08"
    # the vectors the second run compared are kept for the next runs, as the model makes them
    from wikic.memory.kept_vectors import KeptVectors
    from wikic.memory.merge import PACKAGED_DIM, PACKAGED_MODEL

    texts = ["Use uv for every Python project, never pip.", "Use uv for all Python projects and never pip."]
    kept = KeptVectors(root, PACKAGED_MODEL, PACKAGED_DIM).get(texts)
    embed = packaged_embedder()
    assert embed is not None and sorted(kept) == sorted(texts)
    assert all(np.array_equal(kept[t], made) for t, made in zip(texts, embed(texts), strict=True))


def test_a_page_of_many_items_has_each_items_name_and_denial_worked_out_once_a_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every memory joining a page is compared with all its items: an item's own forms are worked out once,
    not once per memory (a user's page of thousands of items made each new memory cost that much again)."""
    import datetime as dt

    from wikic.memory import merge
    from wikic.pages.blocks import digest
    from wikic.text.terms import negated
    from wikic.vault.formats.markers import begin_line, end_line
    from wikic.vault.formats.memory_items import MemoryItem, block_key, render_items
    from wikic.vault.formats.mentions import MemoryRow
    from wikic.vault.names import normalize_name

    items = [MemoryItem("persona", dt.date(2026, 1, 1 + i % 28), f"The user keeps notebook {i} on the shelf.",
                        (f"raw/transcripts/s{i}.md:L3",)) for i in range(60)]
    body = render_items(items, lambda anchor: f"^[{anchor}]")
    key = block_key("persona")
    page = f"# User\n\n{begin_line(key, digest(body))}\n{body}\n{end_line(key)}\n"
    new = [MemoryRow("persona", f"The user keeps binder {k} on the desk.", f"raw/transcripts/n.md:L{k + 1}", 0.5,
                     "2026-02-01") for k in range(10)]
    new.append(MemoryRow("persona", "The user keeps notebook 7 on the shelf.", "raw/transcripts/n.md:L20", 0.5,
                         "2026-02-02"))
    calls = {"name": 0, "denial": 0}

    def counted_name(text: str) -> str:
        calls["name"] += 1
        return normalize_name(text)

    def counted_denial(text: str) -> bool:
        calls["denial"] += 1
        return negated(text)

    monkeypatch.setattr(merge, "normalize_name", counted_name)
    monkeypatch.setattr(merge, "negated", counted_denial)
    vectors: dict[str, np.ndarray] = {}

    def embed(texts: list[str]) -> np.ndarray:  # each text its own direction: nothing is alike but itself
        for text in texts:
            vectors.setdefault(text, np.eye(128, dtype=np.float32)[len(vectors) % 128])
        return np.stack([vectors[t] for t in texts])

    out = merge.memory_blocks(page, new, lambda text: text, lambda anchor: f"^[{anchor}]",
                              merge.Deduplicator(lambda: embed))
    assert (out.added, out.merged) == (10, 1)  # the same words again: its item gains the anchor
    distinct = len(items) + len(new)
    assert calls["name"] <= distinct and calls["denial"] <= distinct
    [(_, written, _)] = out.blocks
    assert written.count("The user keeps") == len(items) + 10 and "n.md:L20" in written
