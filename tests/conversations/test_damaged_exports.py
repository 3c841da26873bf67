"""Exports and session files that are damaged or hostile: JSON nested a thousand levels deep, numbers too
long to convert, lines that are not JSON, zips cut short. Each is an ExportError naming the file (and the
line in JSON Lines), never a RecursionError or a hang; in a batch it fails alone and the rest compiles."""

from __future__ import annotations

import inspect
import io
import json
import shutil
import sys
import time
import zipfile
from pathlib import Path

import pytest
from convkit import FIXTURES, files_of, plan_for
from fake_llm import FakeLLM
from library import ingest
from typer.testing import CliRunner

from wikic.cli import app
from wikic.conversations.detect import detect
from wikic.conversations.formats import gemini_cli
from wikic.conversations.intake import _conversations, find_exports
from wikic.conversations.jsonio import MAX_DEPTH, TooDeep, iter_array, parse, read_jsonl
from wikic.errors import ExportError
from wikic.ingest.pipeline import IngestOptions

DEEP = "[" * 1000 + "]" * 1000
SESSION = (FIXTURES / "claude-code-session.jsonl").read_text()


def nested(levels: int, inner: str = "1") -> str:
    return "[" * levels + inner + "]" * levels


def test_parse_bounds_nesting_and_long_numbers() -> None:
    assert parse(nested(MAX_DEPTH)) is not None  # at the limit: read
    for text in (DEEP, nested(MAX_DEPTH + 1), '{"a": ' * 1000 + "1" + "}" * 1000, '{"n": ' + "7" * 5000 + "}"):
        with pytest.raises(TooDeep):
            parse(text)
    with pytest.raises(json.JSONDecodeError):
        parse("[1, 2")


def test_parse_never_lets_a_recursion_error_out_however_deep_the_caller_is() -> None:
    def at_depth(n: int) -> object:
        return at_depth(n - 1) if n else parse(nested(150))

    # called with a few dozen frames left: the text is refused (TooDeep, a ValueError the readers report)
    # rather than read, and the RecursionError never reaches the caller
    with pytest.raises(TooDeep):
        at_depth(sys.getrecursionlimit() - len(inspect.stack()) - 40)


def test_a_deep_line_in_json_lines_names_the_file_and_line() -> None:
    data = b'{"a": 1}\n{"b": 2}\n{"c": ' + DEEP.encode() + b"}\n"
    with pytest.raises(ExportError, match=r"^s\.jsonl:3: a JSON line nested deeper than 200 levels"):
        read_jsonl(data, "s.jsonl")
    with pytest.raises(ExportError, match=r"^s\.jsonl:2: a JSON line holding a number too long"):
        read_jsonl(b'{"a": 1}\n{"n": ' + b"9" * 5000 + b"}\n", "s.jsonl")


def test_a_deep_element_of_an_array_names_the_file_and_line() -> None:
    data = ('[\n{"mapping": {}},\n{"mapping": ' + DEEP + "}\n]").encode()
    stream = iter_array(io.BytesIO(data), "conversations.json")
    assert next(stream) == {"mapping": {}}
    with pytest.raises(ExportError, match=r"^conversations\.json:3: an element nested deeper than 200 levels"):
        next(stream)


@pytest.mark.parametrize("kind", ["claude-code", "chatgpt", "claude-ai", "gemini-document", "codex", "slack"])
def test_deep_nesting_in_every_format_is_an_export_error_naming_the_file(tmp_path: Path, kind: str) -> None:
    if kind == "slack":
        path = tmp_path / "slack"
        shutil.copytree(FIXTURES / "slack-export", path)
        (path / "general" / "2026-11-30.json").write_text('[{"type": "message", "text": ' + DEEP + "}]")
        label = "general/2026-11-30.json"
    elif kind in ("claude-code", "codex"):
        fixture = "claude-code-session.jsonl" if kind == "claude-code" else "codex-rollout.jsonl"
        lines = (FIXTURES / fixture).read_text().splitlines()
        path = tmp_path / "session.jsonl"
        path.write_text("\n".join([*lines[:2], '{"type": "user", "payload": ' + DEEP + "}", *lines[2:]]) + "\n")
        label = "session.jsonl:3"
    elif kind == "gemini-document":
        path = tmp_path / "session.json"
        path.write_text('{"sessionId": "s", "messages": [{"type": "gemini", "content": ' + DEEP + "}]}")
        label = "session.json"
    else:
        key = "mapping" if kind == "chatgpt" else "chat_messages"
        path = tmp_path / "conversations.json"
        path.write_text(f'[{{"{key}": ' + DEEP + "}]")
        label = "conversations.json:1"
    with pytest.raises(ExportError, match=rf"{label}: .*nested deeper than 200 levels"):
        found = detect(path)
        assert found is not None
        if found.format in ("claude-code", "codex") and not found.document:
            read_jsonl(path.read_bytes(), str(path))
        else:
            list(_conversations(found))


def test_gemini_content_nested_in_lists_is_read_once_per_part() -> None:
    content: object = "the answer"
    for _ in range(60):  # each level used to be read twice: 2**60 calls
        content = [content]
    started = time.monotonic()
    found = gemini_cli.from_document({"sessionId": "s", "messages": [{"type": "gemini", "content": content}]},
                                     fallback_id="s")
    assert [t.text for t in found.turns] == ["the answer"] and time.monotonic() - started < 1


def test_a_zip_cut_short_or_damaged_inside_is_an_export_error(tmp_path: Path) -> None:
    whole = (FIXTURES / "chatgpt-export.zip").read_bytes()
    cut = tmp_path / "cut.zip"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ExportError, match=r"cut\.zip: not a readable zip archive"):
        detect(cut)
    damaged = tmp_path / "damaged.zip"
    with zipfile.ZipFile(damaged, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("conversations.json", (FIXTURES / "chatgpt-conversations.json").read_bytes())
    data = bytearray(damaged.read_bytes())
    data[60:200] = bytes(140)  # zeros over the compressed member
    damaged.write_bytes(bytes(data))
    with pytest.raises(ExportError, match=r"damaged\.zip"):
        found = detect(damaged)
        assert found is not None
        list(_conversations(found))


def test_find_exports_reports_an_unreadable_export_instead_of_raising(tmp_path: Path) -> None:
    deep = tmp_path / "session.json"
    deep.write_text('{"sessionId": "s", "messages": ' + DEEP + "}")
    found, refused = find_exports([str(FIXTURES / "codex-rollout.jsonl"), str(deep)])
    assert [f.format for f in found] == ["codex"]
    assert [r.origin for r in refused] == [str(deep)] and "nested deeper than 200 levels" in (refused[0].error or "")


def test_in_a_batch_a_damaged_export_fails_alone_and_the_rest_compiles(vault: Path, llm, tmp_path: Path) -> None:
    lines = SESSION.splitlines()
    deep = tmp_path / "deep.jsonl"
    deep.write_text("\n".join([*lines[:2], '{"type": "user", "message": {"content": ' + DEEP + "}}", *lines[2:]]))
    chatgpt = tmp_path / "conversations.json"  # two whole conversations, then one nested too deep
    good = json.loads((FIXTURES / "chatgpt-conversations.json").read_text())[:2]
    chatgpt.write_text(json.dumps(good)[:-1] + ', {"mapping": ' + DEEP + "}]")
    inputs = [deep, FIXTURES / "claude-code-truncated.jsonl", chatgpt, FIXTURES / "codex-rollout.jsonl"]
    report = ingest(vault, IngestOptions(inputs=[str(p) for p in inputs], use_palace=False), llm=llm)
    failed = {s.raw_path: s.error or "" for s in report.sources if s.status == "failed"}
    assert set(failed) == {str(deep), str(FIXTURES / "claude-code-truncated.jsonl"), str(chatgpt)}
    assert f"{deep}:3: a JSON line nested deeper than 200 levels" in failed[str(deep)]
    assert "claude-code-truncated.jsonl:5: not a JSON line" in failed[str(FIXTURES / "claude-code-truncated.jsonl")]
    assert f"{chatgpt}:1: an element nested deeper" in failed[str(chatgpt)]
    compiled = sorted(s.raw_path for s in report.sources if s.status == "compiled")
    assert len(compiled) == 3 and sum("-codex-" in p for p in compiled) == 1  # the two ChatGPT ones too
    assert report.exit_code() == 1
    # a damaged session is refused before it is kept; the ChatGPT export was kept before its damage was read
    assert len([p for p in files_of(vault) if p.startswith("raw/transcripts/exports/")]) == 2


def test_the_cli_exits_1_names_the_file_and_line_and_compiles_the_rest(
    vault: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr("wikic.llm.client.vault_llm", lambda *_: FakeLLM().respond_with(plan_for))
    truncated = tmp_path / "conversations.json"
    truncated.write_bytes((FIXTURES / "chatgpt-conversations.json").read_bytes()[:3000])
    cases = [(FIXTURES / "claude-code-truncated.jsonl", "claude-code-truncated.jsonl:5: not a JSON line"),
             (FIXTURES / "unknown-export.json", "unknown-export.json: looks like a conversation export"),
             (truncated, "conversations.json:1: not valid JSON")]
    for path, message in cases:
        result = CliRunner().invoke(
            app, ["ingest", str(path), str(FIXTURES / "codex-rollout.jsonl"), "--vault", str(vault), "--no-palace"])
        assert result.exit_code == 1, result.output
        assert message in result.stdout and ": failed — " in result.stdout
        assert "codex-add-a-health-endpoint-to-the-api.md: " in result.stdout


def test_control_characters_and_lone_surrogates_in_an_export_never_reach_a_transcript(
    vault: Path, llm, tmp_path: Path
) -> None:
    slack = tmp_path / "slack"
    shutil.copytree(FIXTURES / "slack-export", slack)
    day = slack / "general" / "2026-11-30.json"
    # JSON escapes: a NUL (a file holding one reads as binary), a lone surrogate (no UTF-8 can hold it), a
    # line separator (a line break for some readers, not for anchors)
    day.write_text('[{"type": "message", "user": "U01ANA\\ud800", "ts": "1764500000.0001", '
                   '"text": "Ship it\\u0000 on Thursday\\u2028please \\udfff\\u001b[31m"}]')
    report = ingest(vault, IngestOptions(inputs=[str(slack)], use_palace=False), llm=llm)
    assert [s.status for s in report.sources] == ["compiled", "compiled"], report.sources
    (general,) = [p for p in report.conversations[0].written if "general" in p]
    text = (vault / general).read_text(encoding="utf-8")
    assert "Ship it  on Thursday please \ufffd [31m" in text and "\x00" not in text and "\u2028" not in text


def test_times_out_of_range_are_no_times() -> None:
    from wikic.conversations.turns import parse_time

    for value in ("0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00", float("nan"), float("inf"), 1e300):
        assert parse_time(value) is None


def test_a_bad_byte_in_a_session_document_is_one_character_as_in_every_export(tmp_path: Path) -> None:
    data = (FIXTURES / "gemini-session.json").read_bytes().replace(b"keep it MIT", b"keep it \xff MIT")
    path = tmp_path / "session.json"
    path.write_bytes(data)
    found = detect(path)
    assert found is not None and found.format == "gemini-cli" and found.document
    (conversation,) = _conversations(found)
    assert "Good, keep it \ufffd MIT." in [t.text for t in conversation.turns]


def test_an_export_that_cannot_be_opened_is_a_failed_source(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from wikic.conversations import detect as detection

    locked = tmp_path / "conversations.json"
    locked.write_text("[]")

    def refuse(path: Path) -> None:
        raise PermissionError(13, "Permission denied", str(path))  # as root, chmod would not stop the read

    monkeypatch.setattr(detection, "detect", refuse)
    found, (refused,) = find_exports([str(locked)])
    assert not found and refused.error == f"{locked}: cannot be read (Permission denied)"
