"""Conversations brought in by `wikic ingest`: one transcript per conversation with its export kept once,
compiled like any source; the same export again costs nothing and writes nothing; a grown session adds a
part with its new turns only; an export dropped into raw/ is read, never compiled itself; bad input is a
clear error naming the file and line, with nothing half written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from convkit import FIXTURES, files_of
from fake_llm import FakeLLM
from library import ingest

from wikic.conversations.ledger import ConversationLedger
from wikic.errors import UsageError
from wikic.ingest.pending import pending_inputs
from wikic.ingest.pipeline import IngestOptions, IngestReport
from wikic.palace.sources import scan
from wikic.settings import IngestSettings
from wikic.vault.formats.transcript import headers

SESSION = "7f3c2a10-5d1e-4c8e-9a0b-2b7d9c1e0f42"
STEM = "raw/transcripts/2026-11-30-claude-code-from-now-on-use-uv-never-pip"


def run(vault: Path, llm: FakeLLM, *inputs: Path | str, **options: Any) -> IngestReport:
    return ingest(vault, IngestOptions(inputs=[str(i) for i in inputs], use_palace=False, **options), llm=llm)


def frontmatter(path: Path) -> dict[str, str]:
    head = path.read_text().split("---\n")[1]
    return {k: v.strip().strip('"') for k, _, v in (line.partition(": ") for line in head.splitlines())}


def test_each_conversation_becomes_one_transcript_with_the_export_kept_once(vault: Path, llm) -> None:
    report = run(vault, llm, FIXTURES / "chatgpt-export.zip", FIXTURES / "claude-code-session.jsonl")
    chatgpt, session = report.conversations
    assert (chatgpt.tool, chatgpt.conversations, len(chatgpt.written)) == ("chatgpt", 3, 3)
    assert chatgpt.written == ["raw/transcripts/2025-11-30-chatgpt-vector-store-for-a-laptop.md",
                               "raw/transcripts/2025-11-29-chatgpt-translate-memory-palace-to-french.md",
                               "raw/transcripts/2025-11-28-chatgpt-vector-store-for-a-laptop.md"]
    assert session.written == [f"{STEM}.md"]
    kept = vault / chatgpt.export
    assert (
        chatgpt.export.startswith("raw/transcripts/exports/")
        and kept.read_bytes() == (FIXTURES / "chatgpt-export.zip").read_bytes()
    )
    meta = frontmatter(vault / f"{STEM}.md")
    assert meta == {"title": "From now on use uv, never pip.", "conversation": SESSION, "tool": "claude-code",
                    "started": "2026-11-30T14:02:11Z", "export": session.export, "cwd": "/home/ana/proj/wikic"}
    assert [s.status for s in report.sources] == ["compiled"] * 4
    assert (vault / "entities" / "uv.md").exists() or "uv" in (vault / ".wikic" / "mentions.json").read_text()
    # the transcripts are the sources: the kept export is neither compiled nor indexed
    assert pending_inputs(vault, IngestSettings()) == ([], [])
    assert not [s for s in scan(vault) if "/exports/" in s.path]


def test_the_same_export_again_costs_nothing_and_writes_nothing(vault: Path, llm, tmp_path: Path) -> None:
    run(vault, llm, FIXTURES / "chatgpt-export.zip", FIXTURES / "slack-export", FIXTURES / "claude-code-session.jsonl")
    calls, before = len(llm.history), files_of(vault)
    renamed = tmp_path / "export-copy.zip"  # the same bytes under another name are the same export
    shutil.copyfile(FIXTURES / "chatgpt-export.zip", renamed)
    report = run(vault, llm, renamed, FIXTURES / "slack-export", FIXTURES / "claude-code-session.jsonl")
    assert len(llm.history) == calls
    assert files_of(vault) == before
    assert all(c.already_read for c in report.conversations)
    assert {s.status for s in report.sources} == {"unchanged"}


def test_a_grown_session_adds_a_part_with_its_new_turns_only(vault: Path, llm) -> None:
    run(vault, llm, FIXTURES / "claude-code-session.jsonl")
    first = (vault / f"{STEM}.md").read_bytes()
    report = run(vault, llm, FIXTURES / "claude-code-session-grown.jsonl")
    assert report.conversations[0].written == [f"{STEM}-part-2.md"]
    assert (vault / f"{STEM}.md").read_bytes() == first  # raw/ is immutable: earlier lines keep their turns
    part2 = (vault / f"{STEM}-part-2.md").read_text()
    assert frontmatter(vault / f"{STEM}-part-2.md")["part"] == "2"
    assert [(h.speaker, h.when and h.when.isoformat()) for h in headers(part2)] == [
        ("user", "2026-11-30T14:20:00+00:00"), ("assistant", "2026-11-30T14:20:00+00:00")]
    body = part2.split("---\n", 2)[2]
    assert "Also pin Python 3.11 in pyproject." in body and "never pip" not in body
    assert [s.raw_path for s in report.sources if s.status == "compiled"] == [f"{STEM}-part-2.md"]
    entry = ConversationLedger.load(vault).conversations[f"claude-code:{SESSION}"]
    assert entry.parts == (f"{STEM}.md", f"{STEM}-part-2.md") and entry.turns == 6


def test_a_line_still_being_written_waits_for_the_next_ingest(vault: Path, llm, tmp_path: Path) -> None:
    whole = (FIXTURES / "claude-code-session-grown.jsonl").read_bytes()
    session = tmp_path / "s.jsonl"
    cut = whole.rstrip(b"\n").rfind(b"\n") + 40  # the last line half written
    session.write_bytes(whole[:cut])
    run(vault, llm, session)
    assert "Pinned" not in (vault / f"{STEM}.md").read_text()
    session.write_bytes(whole)
    run(vault, llm, session)
    assert "Pinned: requires-python >= 3.11." in (vault / f"{STEM}-part-2.md").read_text()


def test_many_conversations_in_one_export_and_names_that_collide(vault: Path, llm, tmp_path: Path) -> None:
    def conversation(i: int, title: str) -> dict[str, Any]:
        return {"id": f"c-{i:04d}", "title": title, "create_time": 1796032800.0 + i, "current_node": "b",
                "mapping": {"a": {"id": "a", "message": None, "parent": None, "children": ["b"]},
                            "b": {"id": "b", "parent": "a", "children": [], "message": {
                                "author": {"role": "user"}, "create_time": 1796032800.0 + i, "recipient": "all",
                                "content": {"content_type": "text", "parts": [f"Question number {i}?"]}}}}}
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps([conversation(i, "Same title" if i < 3 else f"Topic {i}") for i in range(150)]))
    report = run(vault, llm, export)
    (read,) = report.conversations
    assert (read.conversations, len(read.written), len(set(read.written))) == (150, 150, 150)
    assert read.written[:3] == ["raw/transcripts/2026-11-30-chatgpt-same-title.md",
                                "raw/transcripts/2026-11-30-chatgpt-same-title-c-0001.md",
                                "raw/transcripts/2026-11-30-chatgpt-same-title-c-0002.md"]
    assert sum(1 for s in report.sources if s.status == "compiled") == 150


def test_an_export_dropped_into_raw_is_read_and_never_compiled_itself(vault: Path, llm) -> None:
    shutil.copyfile(FIXTURES / "chatgpt-conversations.json", vault / "raw" / "conversations.json")
    report = ingest(vault, IngestOptions(use_palace=False), llm=llm)
    assert report.conversations[-1].export == "raw/conversations.json"  # kept where it was put: raw/ is immutable
    assert sorted(s.raw_path for s in report.sources) == sorted(report.conversations[-1].written)
    calls = len(llm.history)
    again = ingest(vault, IngestOptions(use_palace=False), llm=llm)
    assert len(llm.history) == calls and not again.sources
    assert "raw/conversations.json" not in {s.path for s in scan(vault)}


def test_a_damaged_session_line_is_named_and_nothing_is_written(vault: Path, llm) -> None:
    before = files_of(vault)
    report = run(vault, llm, FIXTURES / "claude-code-truncated.jsonl")
    (failed,) = report.sources
    assert failed.status == "failed" and "claude-code-truncated.jsonl:5: not a JSON line" in (failed.error or "")
    assert report.exit_code() == 1 and files_of(vault) == before


def test_an_export_cannot_be_previewed(vault: Path, llm) -> None:
    with pytest.raises(UsageError, match="cannot be previewed"):
        run(vault, llm, FIXTURES / "chatgpt-export.zip", dry_run=True)


def test_kept_exports_give_lint_nothing_to_report(vault: Path, llm, tmp_path: Path) -> None:
    from library import run_lint

    from wikic.lint.run import LintOptions

    slack = tmp_path / "slack"
    shutil.copytree(FIXTURES / "slack-export", slack)
    (slack / "dev: ops?").mkdir()  # a channel name no vault file could carry
    shutil.copyfile(FIXTURES / "slack-export" / "random" / "2026-11-29.json", slack / "dev: ops?" / "2026-11-29.json")
    report = run(vault, llm, slack, FIXTURES / "claude-code-session.jsonl")
    assert report.conversations[0].export.endswith(".zip") and len(report.conversations[0].written) == 3
    assert not [f for f in run_lint(vault, LintOptions()).findings if f.path.startswith("raw/")]


def test_status_counts_transcripts_as_sources_and_not_the_kept_exports(vault: Path, llm) -> None:
    from library import vault_status

    shutil.copyfile(FIXTURES / "claude-ai-conversations.json", vault / "raw" / "claude.json")
    run(vault, llm, FIXTURES / "chatgpt-export.zip")
    ingest(vault, IngestOptions(use_palace=False), llm=llm)  # reads the export dropped into raw/
    transcripts = [p for p in (vault / "raw" / "transcripts").glob("*.md")]
    assert len(transcripts) == 5
    assert vault_status(vault, lint=False).raw_sources == 5
