"""Each ledger's file read into its typed rows and written back is the same file, byte for byte; a row of
another shape is left out as the file is read (as the ledgers were always read), and the rows around it still
load."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from wikic.compile.mentions import Mentions
from wikic.ingest.compiled import Compiled
from wikic.vault import state
from wikic.vault.formats.mentions import ClaimRow, MemoryRow, RelationRow, read_mentions
from wikic.vault.formats.sources import read_sources, text_copies, write_sources

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


SOURCES: dict[str, Any] = {
    "raw/articles/page.html": {
        "sha256": "ab" * 32, "bytes": 120, "kind": "articles", "media": "html", "title": "A page",
        "origin": "page.html", "text_path": "raw/articles/page.md", "text_sha256": "cd" * 32,
        "captured": "2026-01-02T00:00:00+00:00"},
    "raw/articles/gb.txt": {
        "sha256": "ef" * 32, "bytes": 9, "kind": "articles", "media": "text", "title": "GB", "origin": "gb.txt",
        "text_path": "raw/articles/gb.md", "text_sha256": "01" * 32, "captured": "2026-01-03T00:00:00+00:00",
        "encoding": "gb18030"},
    A: {"sha256": "23" * 32, "ingested": "2025-12-01", "bytes": "twelve", "from_a_later_version": {"kept": [1]}},
}


def test_the_source_ledger_reads_as_typed_rows_and_is_written_back_byte_for_byte(tmp_path: Path) -> None:
    written = _ledger(tmp_path, state.SOURCES, "sources", {**SOURCES, "raw/broken.md": ["no", "object"]})
    entries = read_sources(tmp_path)
    assert sorted(entries) == sorted(SOURCES)  # the entry that is no object is left out
    page = entries["raw/articles/page.html"]
    assert (page.size, page.media, page.text_copy("raw/articles/page.html"), page.encoding) == (
        120, "html", "raw/articles/page.md", None)
    assert entries["raw/articles/gb.txt"].encoding == "gb18030"
    old = entries[A]
    assert (old.ingested, old.captured, old.size, old.text_copy(A)) == ("2025-12-01", None, None, None)
    assert old.others == {"bytes": "twelve", "from_a_later_version": {"kept": [1]}}  # kept as read, not typed
    assert text_copies(entries) == {"raw/articles/page.html": "raw/articles/page.md",
                                    "raw/articles/gb.txt": "raw/articles/gb.md"}
    write_sources(tmp_path, entries)
    assert state.state_path(tmp_path, state.SOURCES).read_bytes() == state.json_bytes(
        {"version": 1, "sources": SOURCES})
    assert written != state.state_path(tmp_path, state.SOURCES).read_bytes()  # only by the entry left out


def test_a_source_ledger_an_early_version_wrote_reads_in_either_shape(tmp_path: Path) -> None:
    listed = [{"path": A, "sha256": "23" * 32, "captured": "2025-12-01"}, {"sha256": "no path"}, "no object"]
    _ledger(tmp_path, state.SOURCES, "sources", {})
    state.state_path(tmp_path, state.SOURCES).write_text(json.dumps({"sources": listed}), encoding="utf-8")
    entries = read_sources(tmp_path)
    assert list(entries) == [A] and entries[A].captured == "2025-12-01" and entries[A].others == {"path": A}
    bare = {"version": 1, B: {"sha256": "45" * 32}, "raw/moved.md": {"path": "raw/articles/moved.md"}}
    state.state_path(tmp_path, state.SOURCES).write_text(json.dumps(bare), encoding="utf-8")
    entries = read_sources(tmp_path)  # the map without its key; an entry naming its path is filed under it
    assert sorted(entries) == ["raw/articles/moved.md", B] and entries[B].sha256 == "45" * 32


def test_capture_keeps_the_ledger_it_finds_and_reuses_an_entry_that_says_little(tmp_path: Path) -> None:
    from wikic.ingest.capture import capture

    vault = tmp_path / "vault"
    (vault / "raw" / "articles").mkdir(parents=True)
    text = b"# Notes\n\nSome text.\n"
    (vault / "raw" / "articles" / "notes.md").write_bytes(text)
    sha = hashlib.sha256(text).hexdigest()
    found = {"raw/articles/notes.md": {"sha256": sha, "from_a_later_version": True}, **SOURCES}
    _ledger(vault, state.SOURCES, "sources", found)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "again.md").write_bytes(text)
    (inbox / "new.md").write_bytes(b"# New\n\nOther text.\n")
    again, new = capture(vault, [str(inbox / "again.md"), str(inbox / "new.md")])
    # the entry without kind, media or title is the same source still: what capture read tells the rest
    assert (again.raw_path, again.new, again.kind, again.media, again.title) == (
        "raw/articles/notes.md", False, "articles", "markdown", "Notes")
    assert new.new and new.raw_path == "raw/articles/new.md"
    ledger = json.loads(state.state_path(vault, state.SOURCES).read_text(encoding="utf-8"))["sources"]
    assert {raw: ledger[raw] for raw in found} == found  # every entry it found written back as it was
    assert set(ledger[new.raw_path]) == {"sha256", "bytes", "kind", "media", "title", "origin", "text_path",
                                         "text_sha256", "captured"}
