"""Each ledger's file read into its typed rows and written back is the same file, byte for byte; a row of
another shape is left out as the file is read (as the ledgers were always read), and the rows around it still
load."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from wikic.compile.mentions import Mentions
from wikic.ingest.compiled import Compiled
from wikic.vault import state
from wikic.vault.formats.conversations import ConversationTables, read_conversations
from wikic.vault.formats.mentions import ClaimMeta, ClaimRow, MemoryRow, RelationRow, read_mentions
from wikic.vault.formats.set_aside import SetAside, read_set_aside, write_set_aside
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
    assert hnsw.sources[A].facts[1] == ClaimRow("HNSW was published in 2016.", f"{A}:L4-L5", ClaimMeta(
        seen="2026-01-02", via="frontmatter", valid_from="2016", years=("2016",)))
    assert hnsw.sources[A].relations == (RelationRow("is used by", "Chroma", f"{A}:L6"),)
    assert hnsw.sources[B].memories == (MemoryRow("persona", "The user prefers HNSW.", f"{B}:L9", 0.7, "2026-01-03"),)
    concept = ledger.items["concept:vector-search"]
    assert concept.kind_detail is None  # an entry written before the ledger kept it stays without it
    assert concept.sources[A].sections == (
        ("Overview", (ClaimRow("Vector search finds neighbours.", f"{A}:L8", ClaimMeta(by="sentence")),)),
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
    assert rows.sources[A].facts == (ClaimRow("Rows has a claim.", f"{A}:L1", ClaimMeta()),)
    assert rows.sources[A].relations == () and rows.sources[A].memories == ()


def test_a_claims_bookkeeping_reads_as_typed_fields_and_what_it_does_not_know_is_written_back() -> None:
    row = ["Acme ran on PostgreSQL.", f"{A}:L2", {"seen": "2026-01-02", "via": "frontmatter", "from": 2019,
                                                 "to": "2024-03", "years": ["2019", "2024"], "replaces": "c1234abcd",
                                                 "weight": 0.5}]
    claim = ClaimRow.from_json(row)
    assert claim is not None and claim.meta is not None
    assert (claim.meta.seen, claim.meta.valid_from, claim.meta.valid_to, claim.meta.years, claim.meta.replaces) == (
        "2026-01-02", None, "2024-03", ("2019", "2024"), "c1234abcd")
    assert claim.meta.others == {"from": 2019, "weight": 0.5}  # of another type, or unknown: kept as read
    assert claim.to_json() == row
    odd = ClaimRow.from_json(["Odd.", f"{A}:L3", "no object"])
    assert odd is not None and odd.meta == ClaimMeta() and odd.to_json() == ["Odd.", f"{A}:L3", {}]
    bare = ClaimRow.from_json(["Bare.", f"{A}:L4"])
    assert bare is not None and bare.meta is None and bare.carried == ClaimMeta()
    assert bare.to_json() == ["Bare.", f"{A}:L4"]


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


T = "raw/transcripts/2026-11-30-claude-code-uv"
CONVERSATIONS: dict[str, Any] = {
    "conversations": {
        "claude-code:s1": {"stem": T, "title": "uv", "parts": [f"{T}.md", f"{T}-part-2.md"], "turns": 6,
                           "bytes": 4096, "exports": ["ab" * 32], "started": "2026-11-30T14:00:00+00:00",
                           "extra": {"cwd": "/home/me/project"}},
        # an early version's entry: no byte offset, start or context; a key of a later one, a count of another type
        "chatgpt:c1": {"stem": "raw/transcripts/2026-01-02-chatgpt-plan", "title": "Plan", "parts": [], "turns": "3",
                       "digest": "cd" * 32, "exports": [], "from_a_later_version": 1},
    },
    "exports": {
        "ab" * 32: {"path": "raw/transcripts/exports/s1.jsonl", "tool": "claude-code", "done": True,
                    "conversations": 1, "transcripts": [f"{T}.md"]},
        "ef" * 32: {"path": "raw/conversations.json", "tool": "chatgpt", "done": False, "conversations": 0,
                    "transcripts": []},
    },
    "sessions": {"a0": "claude-code:s1"},
}


def test_the_conversations_ledger_reads_as_typed_rows_and_is_written_back_byte_for_byte(tmp_path: Path) -> None:
    from wikic.conversations.ledger import ConversationLedger

    path = state.state_path(tmp_path, state.CONVERSATIONS)
    path.parent.mkdir(parents=True)
    written = state.json_bytes({"version": 1, **CONVERSATIONS})
    path.write_bytes(written)
    ledger = ConversationLedger.load(tmp_path)
    s1 = ledger.conversations["claude-code:s1"]
    assert (s1.parts, s1.turns, s1.reached, s1.extra) == ((f"{T}.md", f"{T}-part-2.md"), 6, 4096,
                                                          {"cwd": "/home/me/project"})
    c1 = ledger.conversations["chatgpt:c1"]
    assert (c1.turns, c1.reached, c1.started, c1.digest) == (None, None, None, "cd" * 32)
    assert c1.others == {"turns": "3", "from_a_later_version": 1}  # kept as read, not typed
    assert ledger.exports["ab" * 32].transcripts == (f"{T}.md",) and ledger.exports["ef" * 32].done is False
    assert read_conversations(tmp_path).kept_exports() == {"raw/transcripts/exports/s1.jsonl", "raw/conversations.json"}
    assert read_conversations(tmp_path).kept_exports(done=True) == {"raw/transcripts/exports/s1.jsonl"}
    path.unlink()
    ledger.save()
    assert path.read_bytes() == written


def test_a_malformed_row_of_the_conversations_ledger_is_left_out_and_the_rest_loads(tmp_path: Path) -> None:
    path = state.state_path(tmp_path, state.CONVERSATIONS)
    path.parent.mkdir(parents=True)
    damaged = {"conversations": {**CONVERSATIONS["conversations"], "x:broken": "no object"},
               "exports": {**CONVERSATIONS["exports"], "00" * 32: ["no", "object"]},
               "sessions": {"a0": "claude-code:s1", "a1": 42}}
    path.write_bytes(state.json_bytes({"version": 1, **damaged}))
    tables = read_conversations(tmp_path)
    assert sorted(tables.conversations) == sorted(CONVERSATIONS["conversations"])
    assert sorted(tables.exports) == sorted(CONVERSATIONS["exports"]) and tables.sessions == {"a0": "claude-code:s1"}
    path.write_text('{"version": 1, "conversations": [], "exports": "no map"}', encoding="utf-8")
    assert read_conversations(tmp_path) == ConversationTables()  # no table that is a map: nothing brought in


def test_an_export_damaged_past_a_point_is_recorded_with_what_it_gave_and_read_again(tmp_path: Path) -> None:
    from convkit import FIXTURES

    from wikic.conversations.detect import detect
    from wikic.conversations.intake import bring_in

    (tmp_path / "raw").mkdir()
    export = tmp_path / "conversations.json"  # two whole conversations, then one nested too deep
    good = json.loads((FIXTURES / "chatgpt-conversations.json").read_text(encoding="utf-8"))[:2]
    export.write_text(json.dumps(good)[:-1] + ', {"mapping": ' + "[" * 300 + "]" * 300 + "}]", encoding="utf-8")
    found = detect(export)
    assert found is not None
    intake = bring_in(tmp_path, [found])
    (report,) = intake.reports
    assert report.error is not None and len(report.written) == 2
    (entry,) = read_conversations(tmp_path).exports.values()
    assert (entry.path, entry.tool, entry.done, entry.conversations, entry.transcripts) == (
        report.export, "chatgpt", False, 2, tuple(report.written))
    (again,) = bring_in(tmp_path, [found]).reports  # not done: read again, and its two conversations hold nothing new
    assert not again.already_read and again.written == [] and again.conversations == 2


SET_ASIDE: dict[str, Any] = {
    "raw/articles/empty.md": {"size": 0, "mtime_ns": 1764000000000000000, "sha256": hashlib.sha256(b"").hexdigest(),
                              "reason": "raw/articles/empty.md: empty file", "since": "2026-01-02"},
    "raw/pipe": {"size": 0, "mtime_ns": 1764000000000000001, "sha256": None, "reason": "raw/pipe: a named pipe",
                 "since": "2026-01-02"},  # never read: no sha256
    "raw/old.bin": {"size": "12", "mtime_ns": 1, "sha256": "ab" * 32, "reason": "binary", "since": "2026-01-01",
                    "from_a_later_version": [1]},
}


def test_the_set_aside_ledger_reads_as_typed_rows_and_is_written_back_byte_for_byte(tmp_path: Path) -> None:
    written = _ledger(tmp_path, state.SET_ASIDE, "files", {**SET_ASIDE, "raw/broken": "no object"})
    entries = read_set_aside(tmp_path)
    assert sorted(entries) == sorted(SET_ASIDE)  # the entry that is no object is left out
    assert entries["raw/pipe"].sha256 is None and entries["raw/pipe"].others == {}
    old = entries["raw/old.bin"]
    assert (old.size, old.mtime_ns, old.others) == (None, 1, {"size": "12", "from_a_later_version": [1]})
    write_set_aside(tmp_path, entries)
    assert state.state_path(tmp_path, state.SET_ASIDE).read_bytes() == state.json_bytes(
        {"version": 1, "files": SET_ASIDE})
    assert written != state.state_path(tmp_path, state.SET_ASIDE).read_bytes()  # only by the entry left out


def test_a_file_set_aside_holds_until_it_changes_and_a_touch_is_no_change(tmp_path: Path) -> None:
    (tmp_path / "raw" / "articles").mkdir(parents=True)
    empty = tmp_path / "raw" / "articles" / "empty.md"
    empty.write_bytes(b"")
    os.utime(empty, ns=(1764000000000000000, 1764000000000000000))
    _ledger(tmp_path, state.SET_ASIDE, "files", SET_ASIDE)
    aside = SetAside.load(tmp_path)
    assert aside.holds("raw/articles/empty.md") and not aside.holds("raw/pipe")  # the pipe is gone
    os.utime(empty, ns=(1764000000000000009, 1764000000000000009))  # touched: the same bytes
    assert aside.holds("raw/articles/empty.md")
    assert aside.entries["raw/articles/empty.md"].mtime_ns == 1764000000000000009  # the next look reads nothing
    assert aside.listed() == [{"path": "raw/articles/empty.md", "reason": "raw/articles/empty.md: empty file",
                               "since": "2026-01-02"}]
    empty.write_bytes(b"now text\n")
    assert not SetAside.load(tmp_path).holds("raw/articles/empty.md")


def test_each_ledger_is_read_and_written_in_its_module_of_vault_formats_alone() -> None:
    import ast

    typed = {"SOURCES", "COMPILED", "MENTIONS", "CONVERSATIONS", "SET_ASIDE"}
    file_access = {"read_state", "read_ledger", "write_ledger", "read_cache", "read_cache_json", "read_cache_bytes",
                   "write_cache", "state_path"}
    # a module that names the file for its stamp or its lock, not for its rows
    naming = {"wikic/ingest/session.py", "wikic/memory/item_index.py", "wikic/vault/state.py"}
    package = Path(state.__file__).resolve().parents[1]
    found: dict[str, set[str]] = {}
    for path in sorted(package.rglob("*.py")):
        module = path.relative_to(package.parent).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and module == "wikic/vault/state.py":
                found.setdefault(f"class {node.name}", set()).add(module)  # a ledger's class is its owner's
            if not isinstance(node, ast.Call):
                continue
            called = getattr(node.func, "id", getattr(node.func, "attr", None))
            if called in file_access and not (called == "state_path" and module in naming):
                for arg in node.args:
                    if getattr(arg, "id", getattr(arg, "attr", None)) in typed:
                        found.setdefault(getattr(arg, "id", getattr(arg, "attr", "")), set()).add(module)
    assert {name: sorted(modules) for name, modules in found.items()} == {
        "SOURCES": ["wikic/vault/formats/sources.py"],
        "COMPILED": ["wikic/vault/formats/compiled.py"],
        "MENTIONS": ["wikic/vault/formats/mentions.py"],
        "CONVERSATIONS": ["wikic/vault/formats/conversations.py"],
        "SET_ASIDE": ["wikic/vault/formats/set_aside.py"],
    }
