"""Each ledger's file read into its typed rows and written back is the same file, byte for byte; a row of
another shape is left out as the file is read (as the ledgers were always read), and the rows around it still
load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wikic.compile.mentions import Mentions
from wikic.ingest.compiled import Compiled
from wikic.vault import state
from wikic.vault.formats.mentions import ClaimRow, MemoryRow, RelationRow, read_mentions

A, B = "raw/articles/a.md", "raw/transcripts/s.md"

MENTIONS: dict[str, Any] = {
    "entity:hnsw": {
        "kind": "entity", "name": "HNSW", "aliases": ["Hierarchical NSW"], "summary": "A graph index.",
        "kind_detail": "algorithm",
        "sources": {
            A: {"facts": [["HNSW builds a layered graph.", f"{A}:L3", {}],
                          ["HNSW was published in 2016.", f"{A}:L4-L5",
                           {"seen": "2026-01-02", "via": "frontmatter", "from": "2016", "years": ["2016"]}]],
                "relations": [["is used by", "Chroma", f"{A}:L6"]]},
            B: {"facts": [], "relations": [],
                "memories": [["persona", "The user prefers HNSW.", f"{B}:L9", 0.7, "2026-01-03"]]},
        },
    },
    "concept:vector-search": {
        "kind": "concept", "name": "Vector search", "aliases": [], "summary": "",
        "sources": {A: {"sections": {"Overview": [["Vector search finds neighbours.", f"{A}:L8", {"by": "sentence"}]],
                                     "Uses": [["It ranks passages.", f"{A}:L9"]]}}},
    },
}


def _ledger(root: Path, name: str, key: str, entries: dict[str, Any]) -> bytes:
    path = state.state_path(root, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = state.json_bytes({"version": 1, key: entries})
    path.write_bytes(data)
    return data


def test_the_mentions_ledger_reads_as_typed_rows_and_is_written_back_byte_for_byte(tmp_path: Path) -> None:
    written = _ledger(tmp_path, state.MENTIONS, "mentions", MENTIONS)
    ledger = Mentions.load(tmp_path)
    hnsw = ledger.items["entity:hnsw"]
    assert (hnsw.name, hnsw.aliases, hnsw.kind_detail) == ("HNSW", ("Hierarchical NSW",), "algorithm")
    assert hnsw.sources[A].facts[1] == ClaimRow("HNSW was published in 2016.", f"{A}:L4-L5", {
        "seen": "2026-01-02", "via": "frontmatter", "from": "2016", "years": ["2016"]})
    assert hnsw.sources[A].relations == (RelationRow("is used by", "Chroma", f"{A}:L6"),)
    assert hnsw.sources[B].memories == (MemoryRow("persona", "The user prefers HNSW.", f"{B}:L9", 0.7, "2026-01-03"),)
    concept = ledger.items["concept:vector-search"]
    assert concept.kind_detail is None  # an entry written before the ledger kept it stays without it
    assert concept.sources[A].sections == (
        ("Overview", (ClaimRow("Vector search finds neighbours.", f"{A}:L8", {"by": "sentence"}),)),
        ("Uses", (ClaimRow("It ranks passages.", f"{A}:L9"),)),  # a row of two, as an early ledger has it
    )
    state.state_path(tmp_path, state.MENTIONS).unlink()
    ledger.save()
    assert state.state_path(tmp_path, state.MENTIONS).read_bytes() == written


def test_a_malformed_row_of_the_mentions_ledger_is_left_out_and_the_rest_loads(tmp_path: Path) -> None:
    entries = {
        **MENTIONS,
        "entity:nameless": {"kind": "entity", "name": "", "aliases": [], "summary": "", "sources": {}},
        "entity:odd": {"kind": "entity", "name": "Odd", "aliases": [], "summary": "", "sources": ["not", "a map"]},
        "entity:rows": {"kind": "entity", "name": "Rows", "aliases": [], "summary": "", "sources": {
            A: {"facts": [42, ["Rows has a claim.", f"{A}:L1", {}]], "relations": [["only two", "items"]],
                "memories": [["persona", "A memory on no day.", f"{A}:L2", 0.5, "someday"],
                             ["mood", "A kind there is not.", f"{A}:L2", 0.5, "2026-01-01"]]},
            B: "no object",
        }},
    }
    _ledger(tmp_path, state.MENTIONS, "mentions", entries)
    items = read_mentions(tmp_path)
    assert sorted(items) == ["concept:vector-search", "entity:hnsw", "entity:rows"]
    rows = items["entity:rows"]
    assert list(rows.sources) == [A]
    assert rows.sources[A].facts == (ClaimRow("Rows has a claim.", f"{A}:L1", {}),)
    assert rows.sources[A].relations == () and rows.sources[A].memories == ()


COMPILED: dict[str, Any] = {
    A: {"sha256": "ab" * 32, "pages": ["entities/hnsw.md"], "compiled": "2026-01-02", "strategy": "whole",
        "dropped": {"no quote": 2}, "repaired": 1, "sentences": 0, "nothing_extracted": False, "superseded": 0,
        "refused": 0},
    B: {"sha256": "cd" * 32, "pages": [], "compiled": "2026-01-03", "rebuilt": True},
    "raw/old.md": {"sha256": "ef" * 32, "pages": "not a list", "from_a_later_version": {"kept": [1, 2]}},
}


def test_the_compiled_ledger_reads_as_typed_rows_and_is_written_back_byte_for_byte(tmp_path: Path) -> None:
    written = _ledger(tmp_path, state.COMPILED, "sources", {**COMPILED, "raw/broken.md": ["no", "object"]})
    ledger = Compiled.load(tmp_path)
    assert sorted(ledger.entries) == sorted(COMPILED)  # the entry that is no object is left out
    entry = ledger.entries[A]
    assert (entry.pages, entry.dropped, entry.repaired, entry.nothing_extracted) == (
        ("entities/hnsw.md",), {"no quote": 2}, 1, False)
    assert ledger.entries[B].rebuilt is True and ledger.is_current(B, "cd" * 32)
    assert ledger.entries["raw/old.md"].pages is None  # a value of another type is kept as it was, not read
    ledger.save()
    assert state.state_path(tmp_path, state.COMPILED).read_bytes() == state.json_bytes(
        {"version": 1, "sources": COMPILED})
    assert written != state.state_path(tmp_path, state.COMPILED).read_bytes()  # only by the entry left out
