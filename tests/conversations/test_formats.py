"""Each conversation format read into turns: detected by content (a renamed file is still recognised),
speakers, times and ids kept, tool activity collapsed to a line, the tools' noise stripped only where it is
noise, ChatGPT's abandoned branches left out, and unknown shapes either ordinary sources or clear errors."""

from __future__ import annotations

import io
import json
import shutil
import tracemalloc
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from convkit import FIXTURES

from wikic.conversations import jsonio
from wikic.conversations.detect import detect
from wikic.conversations.intake import _conversations, find_exports
from wikic.conversations.jsonio import iter_array, read_jsonl
from wikic.conversations.noise import strip_noise
from wikic.errors import ExportError
from wikic.vault.formats.transcript import Conversation


def read(name: str, tmp_path: Path | None = None) -> list[Conversation]:
    found = detect(FIXTURES / name)
    assert found is not None, name
    from wikic.conversations.detect import LINE_FORMATS

    if found.format in LINE_FORMATS and not found.document:
        module = LINE_FORMATS[found.format]
        return [module.conversation(read_jsonl((FIXTURES / name).read_bytes(), name).entries, fallback_id="x")]
    return list(_conversations(found))


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


@pytest.mark.parametrize(("name", "tool"), [
    ("claude-code-session.jsonl", "claude-code"), ("codex-rollout.jsonl", "codex"),
    ("gemini-session.json", "gemini-cli"), ("gemini-session.jsonl", "gemini-cli"),
    ("chatgpt-conversations.json", "chatgpt"), ("chatgpt-export.zip", "chatgpt"),
    ("claude-ai-conversations.json", "claude-ai"), ("slack-export", "slack"),
    ("chat-log-quotes.txt", "chat-log"), ("chat-log-names.txt", "chat-log"),
])
def test_formats_are_recognised_by_content_whatever_the_file_is_called(tmp_path: Path, name: str, tool: str) -> None:
    renamed = tmp_path / "download"
    if (FIXTURES / name).is_dir():
        shutil.copytree(FIXTURES / name, renamed)
    else:
        shutil.copyfile(FIXTURES / name, renamed)
    found = detect(renamed)
    assert found is not None and found.format == tool


@pytest.mark.parametrize("text", [
    "# Notes on quoting\n\n> To be or not to be.\n\nThat is a famous line.\n\n> Another quote.\n\nEnd.\n",
    "Title: A report\nDate: today\n\nThe body says things.\nMore body.\n",
    '{"name": "a config", "values": [1, 2, 3]}\n',
    '[{"id": 1, "price": 3.5}, {"id": 2, "price": 4}]',
    '{"level": "info", "msg": "started"}\n{"level": "warn", "msg": "slow"}\n',
])
def test_ordinary_sources_are_not_conversations(tmp_path: Path, text: str) -> None:
    path = tmp_path / "conversations.json"  # the name of an export, and not one
    path.write_text(text)
    assert detect(path) is None


def test_an_export_of_an_unknown_shape_is_an_error_naming_the_file(tmp_path: Path) -> None:
    found, (refused,) = find_exports([str(FIXTURES / "unknown-export.json")])
    assert not found and "unknown-export.json: looks like a conversation export, but not one wikic knows" in str(
        refused.error)
    archive = tmp_path / "backup.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("notes/readme.txt", "hello")
    with pytest.raises(ExportError, match=r"backup\.zip: a zip file that is not a conversation export"):
        detect(archive)


def test_claude_code_turns_speakers_times_tools_and_noise() -> None:
    (conversation,) = read("claude-code-session.jsonl")
    assert conversation.id == "7f3c2a10-5d1e-4c8e-9a0b-2b7d9c1e0f42"
    assert conversation.extra == {"cwd": "/home/ana/proj/wikic"}
    assert conversation.title == "From now on use uv, never pip."
    assert [(t.speaker, t.when) for t in conversation.turns] == [
        ("user", utc(2026, 11, 30, 14, 2, 11)), ("assistant", utc(2026, 11, 30, 14, 2, 15)),
        ("user", utc(2026, 11, 30, 14, 3)), ("assistant", utc(2026, 11, 30, 14, 3, 10))]
    user, assistant, second, _ = (t.text for t in conversation.turns)
    assert user == "From now on use uv, never pip."  # the system reminder and the /init command chrome are gone
    # the tool calls and their results: one line per run; thinking, the terminal chrome and the sub-agent: gone
    assert (
        assistant
        == "Understood. Let me check the project.\n(tools: Bash ×3, Read)\nThe project already uses uv; tests pass."
    )
    assert second == "Thanks. Mention <system-reminder> in the README as a literal tag, please."  # prose keeps its tag


def test_noise_is_stripped_only_at_line_starts() -> None:
    text = (
        "Keep this.\n<system-reminder>\nremind\n\nmore\n</system-reminder>\nRan 3 PreToolUse hooks\n"
        "     … +12 lines (ctrl+o to expand)\n(ctrl+o to expand)\n"
        "We discussed the Ran 2 Stop hooks line and … +3 lines.\n"
        "<command-name>/clear</command-name>\nAn unclosed <system-reminder> stays.\n"
    )
    assert strip_noise(text) == ("Keep this.\nWe discussed the Ran 2 Stop hooks line and … +3 lines.\n"
                                 "An unclosed <system-reminder> stays.")


def test_codex_reads_the_events_not_the_injected_context() -> None:
    (conversation,) = read("codex-rollout.jsonl")
    assert conversation.id == "0199a213-81c0-7800-8aa1-bbab2a035a53"
    assert conversation.extra == {"cwd": "/home/ana/proj/api"}
    assert conversation.started == utc(2026, 11, 29, 9)
    assert [(t.speaker, t.text) for t in conversation.turns] == [
        ("user", "Add a health endpoint to the API."),
        ("assistant", '(tools: shell, apply_patch)\nAdded GET /health returning {"ok": true}.'),
        ("user", "Thanks, we deploy on Fridays only."), ("assistant", "Noted: deploys happen on Fridays.")]


def test_gemini_cli_as_a_document_and_as_lines() -> None:
    (document,) = read("gemini-session.json")
    assert document.id == "c8d1f0aa-1111-4222-8333-444455556666" and document.started == utc(2026, 11, 28, 8)
    assert [(t.speaker, t.text) for t in document.turns] == [
        ("user", "Which license does this repo use?"), ("assistant", "(tools: read_file)\nIt is MIT licensed."),
        ("user", "Good, keep it MIT."), ("assistant", "Will do.")]  # the CLI's own "info" message is not a turn
    (lines,) = read("gemini-session.jsonl")
    assert lines.id == "aa11bb22-0000-4000-8000-000000000001"
    assert [(t.speaker, t.text) for t in lines.turns] == [
        ("user", "Summarise the changelog."), ("assistant", "Three fixes \nand one feature.")]


def test_chatgpt_keeps_the_live_branch_only() -> None:
    first, second, third = read("chatgpt-conversations.json")
    assert (first.id, first.title, first.started) == (
        "67a0b1c2-aaaa-bbbb-cccc-000000000001",
        "Vector store for a laptop",
        datetime.fromtimestamp(1764500000, UTC),
    )
    texts = [(t.speaker, t.text) for t in first.turns]
    assert texts == [("user", "Which vector store should I use on a laptop?"),
                     ("assistant", "Chroma embedded is the simplest choice."), ("user", "And for 10 million vectors?"),
                     ("assistant", "(tools: python)\nAt 10 million vectors use a server such as Qdrant.")]
    assert "abandoned branch" not in json.dumps(texts)
    assert second.title == "Translate 'memory palace' to French."  # no title in the export: its first words
    assert third.title == first.title and third.id != first.id


def test_claude_ai_export_old_and_new_message_shapes() -> None:
    trip, old = read("claude-ai-conversations.json")  # the conversation with no messages is left out
    assert (trip.id, trip.title) == ("1b2c3d4e-0000-4000-8000-00000000000a", "Trip planning")
    assert [t.text for t in trip.turns] == ["I'm vegetarian; plan dinner in Lyon.",
                                           "(tools: web_search)\nTry Culina Hortus, a vegetarian restaurant."]
    assert [(t.speaker, t.text) for t in old.turns] == [
        ("user", "Old export format: text only."),
        ("assistant", "Understood."),
    ]


def test_slack_each_channel_day_with_names_and_mentions() -> None:
    general, random = read("slack-export")
    assert (general.id, general.title, general.extra) == (
        "C01GEN/2026-11-30",
        "#general 2026-11-30",
        {"channel": "general"},
    )
    assert [(t.speaker, t.text) for t in general.turns] == [
        ("ana", "We ship the release on Thursday, @Bob Stone."),
        ("Bob Stone", "OK. Changelog is at the changelog (https://example.com/changes)."), ("ana", "Thanks!")]
    when = general.turns[0].when
    assert when is not None and when.date().isoformat() == "2026-11-30"
    assert [t.speaker for t in random.turns] == ["Bob Stone", "ana"]


def test_chat_logs_with_quotes_and_with_names() -> None:
    (quotes,) = read("chat-log-quotes.txt")
    assert [(t.speaker, t.text) for t in quotes.turns] == [
        ("user", "How do I undo the last git commit but keep the changes?"),
        ("assistant", "Run `git reset --soft HEAD~1`."),
        ("user", "And if I already pushed it?"),
        ("assistant", "Use `git revert HEAD` instead, so history stays intact."),
    ]
    (names,) = read("chat-log-names.txt")
    assert [(t.speaker, t.text) for t in names.turns] == [
        ("Ana", "Morning! Is the build green?"), ("Bob", "Yes, since last night."),
        ("Ana", "Great, then we tag 1.4 today.\nThe changelog still needs a line."), ("Bob", "I'll add it.")]


def test_a_large_array_streams_in_bounded_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonio, "BLOCK", 64 << 10)
    element = {"title": "t", "mapping": {"a": {"message": {"content": {"parts": ["x" * 2000]}}}}}
    data = ("[" + ",".join(json.dumps({**element, "id": str(i)}) for i in range(6000)) + "]").encode()  # ~13 MB
    tracemalloc.start()
    count = sum(1 for _ in iter_array(io.BytesIO(data), "big.json"))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert count == 6000
    assert peak < 2 << 20, f"peak {peak} bytes while streaming {len(data)} bytes"


def test_a_truncated_array_names_the_file_and_line() -> None:
    data = b'[\n{"a": 1},\n{"b": [1, 2,\n'
    with pytest.raises(ExportError, match=r"^big\.json:3: not valid JSON: .*truncated"):
        list(iter_array(io.BytesIO(data), "big.json"))


def test_json_lines_a_damaged_line_is_named_and_a_line_being_written_is_left() -> None:
    with pytest.raises(ExportError, match=r"^s\.jsonl:2: not a JSON line"):
        read_jsonl(b'{"a": 1}\n{"b": \n{"c": 3}\n', "s.jsonl")
    lines = read_jsonl(b'{"a": 1}\n{"b": 2}\n{"c": ', "s.jsonl")
    assert [e for _, e in lines.entries] == [{"a": 1}, {"b": 2}] and lines.incomplete and lines.consumed == 18
