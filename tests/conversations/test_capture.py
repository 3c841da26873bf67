"""`wikic capture` as a hook runs it (the real entry point, a process of its own): the session's new whole
lines queued and nothing else, every bad payload one line on stderr and exit 0 with nothing queued, eight
sessions ending at once losing nothing, and `wikic ingest` turning the queue into transcripts and parts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from convkit import FIXTURES, files_of, finish, wikic_process
from library import ingest, vault_status
from typer.testing import CliRunner

from wikic.cli import app
from wikic.conversations.ledger import ConversationLedger
from wikic.conversations.queue import quarantined, queued
from wikic.ingest.pipeline import IngestOptions
from wikic.status import render_status

GROWN = (FIXTURES / "claude-code-session-grown.jsonl").read_bytes()
FIRST = (FIXTURES / "claude-code-session.jsonl").read_bytes()


def hook(path: Path | str, **more: object) -> bytes:
    return json.dumps({"session_id": "s", "transcript_path": str(path), "cwd": "/tmp", "hook_event_name": "Stop",
                       "stop_hook_active": False, **more}).encode()


def capture(home: Path, payload: bytes, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    process = wikic_process(["capture", *args], stdin=payload, env={"HOME": str(home), **(env or {})})
    code, out, err = finish(process)
    assert out == b""
    return code, err.decode()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    (folder / ".claude" / "projects" / "proj").mkdir(parents=True)
    return folder


def session(home: Path, name: str, data: bytes) -> Path:
    path = home / ".claude" / "projects" / "proj" / name
    path.write_bytes(data)
    return path


def test_capture_queues_new_whole_lines_and_ingest_makes_transcripts_then_parts(vault: Path, home: Path, llm) -> None:
    path = session(home, "s.jsonl", FIRST + GROWN[len(FIRST):len(FIRST) + 30])  # a line still being written
    assert capture(home, hook("~/.claude/projects/proj/s.jsonl"), "--vault", str(vault)) == (0, "")
    (queued_file,) = queued(vault)
    head, _, data = queued_file.read_bytes().partition(b"\n")
    assert data == FIRST and json.loads(head)["start"] == 0
    assert capture(home, hook(path), "--vault", str(vault)) == (0, "")  # nothing new: nothing queued
    assert len(queued(vault)) == 1
    report = ingest(vault, IngestOptions(use_palace=False), llm=llm)
    assert report.conversations[0].written == ["raw/transcripts/2026-11-30-claude-code-from-now-on-use-uv-never-pip.md"]
    assert [s.status for s in report.sources] == ["compiled"] and not queued(vault)
    path.write_bytes(GROWN)
    capture(home, hook(path, hook_event_name="PreCompact"), "--vault", str(vault))
    (second,) = queued(vault)
    assert second.read_bytes().partition(b"\n")[2] == GROWN[len(FIRST):]
    report = ingest(vault, IngestOptions(use_palace=False), llm=llm)
    assert report.conversations[0].written == [
        "raw/transcripts/2026-11-30-claude-code-from-now-on-use-uv-never-pip-part-2.md"
    ]
    # the same session ingested by hand afterwards: nothing new
    calls, before = len(llm.history), files_of(vault)
    ingest(vault, IngestOptions(inputs=[str(path)], use_palace=False), llm=llm)
    assert len(llm.history) == calls
    assert {k for k in files_of(vault)} - set(before) <= {k for k in files_of(vault) if "/exports/" in k}


@pytest.mark.parametrize(("payload", "message"), [
    (b"not json at all", "not JSON"),
    (b'["a list"]', "not a JSON object"),
    (b'{"transcript_path": ' + b"[" * 1000 + b"]" * 1000 + b"}", "is JSON nested deeper than 200 levels"),
    (b'{"session_id": "s"}', "no transcript_path"),
    (json.dumps({"transcript_path": "/etc/hostname"}).encode(), "outside the folders capture reads"),
    (json.dumps({"transcript_path": "~/.claude/projects/proj/missing.jsonl"}).encode(), "no such session file"),
])
def test_a_bad_payload_is_one_line_on_stderr_exit_0_and_nothing_queued(
    vault: Path, home: Path, payload: bytes, message: str
) -> None:
    code, err = capture(home, payload, "--vault", str(vault))
    assert code == 0 and message in err and err.count("\n") == 1 and err.startswith("wikic capture: ")
    assert not queued(vault)


def test_no_vault_is_reported_and_exits_0(tmp_path: Path, home: Path) -> None:
    path = session(home, "s.jsonl", FIRST)
    code, err = capture(home, hook(path), "--vault", str(tmp_path))
    assert code == 0 and "is not a wikic vault" in err
    code, err = capture(home, hook(path, cwd=str(tmp_path)))
    assert code == 0 and "is not a wikic vault" in err


def test_the_vault_from_the_environment_the_user_config_or_the_session_folder(
    vault: Path, home: Path, tmp_path: Path
) -> None:
    path = session(home, "a.jsonl", FIRST)
    assert capture(home, hook(path), env={"WIKIC_VAULT": str(vault)}) == (0, "")
    config = home / ".config" / "wikic" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[capture]\nvault = "{vault}"\n')
    assert capture(home, hook(session(home, "b.jsonl", FIRST))) == (0, "")
    config.unlink()
    project = vault / "notes" / "deeper"
    project.mkdir(parents=True)
    assert capture(home, hook(session(home, "c.jsonl", FIRST), cwd=str(project))) == (0, "")
    assert len(queued(vault)) == 3


def test_allow_in_the_users_own_config_adds_folders_and_the_vaults_own_is_never_read(
    vault: Path, home: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "sessions"
    elsewhere.mkdir()
    (elsewhere / "s.jsonl").write_bytes(FIRST)
    config = home / ".config" / "wikic" / "config.toml"
    refused = capture(home, hook(elsewhere / "s.jsonl"), "--vault", str(vault))[1]
    assert "outside the folders" in refused and f"add its folder to [capture] allow in {config}" in refused
    # a cloned vault cannot widen what its user's hook reads
    (vault / "wikic.toml").write_text(f'[capture]\nallow = ["{elsewhere}"]\n')
    assert "outside the folders" in capture(home, hook(elsewhere / "s.jsonl"), "--vault", str(vault))[1]
    assert not queued(vault)
    config.parent.mkdir(parents=True)
    config.write_text(f'[capture]\nallow = ["{elsewhere}"]\n')
    assert capture(home, hook(elsewhere / "s.jsonl"), "--vault", str(vault)) == (0, "")


@pytest.mark.slow  # nine capture processes at once
def test_eight_sessions_ending_at_once_lose_nothing(vault: Path, home: Path, llm) -> None:
    paths = []
    for i in range(8):
        text = FIRST.replace(b"7f3c2a10-5d1e-4c8e-9a0b-2b7d9c1e0f42", f"session-{i}".encode())
        paths.append(session(home, f"s{i}.jsonl", text.replace(b"From now on use uv", f"Session {i}: use uv".encode())))
    # eight sessions, and the first one's Stop and PreCompact at the same moment
    processes = [wikic_process(["capture", "--vault", str(vault)], stdin=hook(p), env={"HOME": str(home)})
                 for p in [*paths, paths[0]]]
    for process in processes:
        code, _, err = finish(process)
        assert code == 0 and err == b"", err
    files = queued(vault)
    assert len(files) == 8
    assert sorted(f.read_bytes().partition(b"\n")[2] for f in files) == sorted(p.read_bytes() for p in paths)
    report = ingest(vault, IngestOptions(use_palace=False), llm=llm)
    assert len(report.conversations[0].written) == 8
    assert sorted(ConversationLedger.load(vault).conversations) == sorted(f"claude-code:session-{i}" for i in range(8))


def test_a_queued_capture_that_cannot_be_read_stays_queued_and_is_reported(vault: Path, home: Path, llm) -> None:
    path = session(home, "s.jsonl", b'{"type": "user", "message": \n' + FIRST)
    capture(home, hook(path), "--vault", str(vault))
    report = ingest(vault, IngestOptions(use_palace=False), llm=llm)
    (errors,) = [c.errors for c in report.conversations if c.errors]
    assert "captured bytes 0-" in errors[0] and ":1: not a JSON line" in errors[0]
    assert len(queued(vault)) == 1


def test_queue_entries_that_are_no_capture_are_set_aside_and_the_rest_goes_on(vault: Path, home: Path, llm) -> None:
    folder = vault / ".wikic" / "capture" / "queue"
    folder.mkdir(parents=True)
    poisoned = {
        "a0-000000000000000.jsonl": b'["a list", "not a capture"]\n' + FIRST,
        "a1-000000000000000.jsonl": b"\xff\xfe not UTF-8\n" + FIRST,
        "a2-000000000000000.jsonl": b'{"start": ' + b"[" * 1000 + b"]" * 1000 + b"}\n" + FIRST,
        "a3-000000000000000.jsonl": b"",
    }
    for name, data in poisoned.items():
        (folder / name).write_bytes(data)
    (folder / "a4-000000000000000.jsonl").mkdir()  # a folder named like a queue file
    capture(home, hook(session(home, "s.jsonl", FIRST)), "--vault", str(vault))
    report = ingest(vault, IngestOptions(use_palace=False), llm=llm)
    (drained,) = report.conversations
    assert drained.written == ["raw/transcripts/2026-11-30-claude-code-from-now-on-use-uv-never-pip.md"]
    assert [s.status for s in report.sources] == ["compiled"] and report.exit_code() == 0
    assert len(drained.quarantined) == 5 and not queued(vault)
    reasons = "\n".join(drained.quarantined)
    for name, why in [("a0", "its first line is not a JSON object"), ("a1", "its first line is not JSON"),
                      ("a2", "its first line is not JSON"), ("a3", "its first line is not JSON"), ("a4", "not a file")]:
        assert f"{name}-000000000000000.jsonl: not a capture ({why})" in reasons
        assert f"set aside in .wikic/capture/quarantine/{name}-000000000000000.jsonl" in reasons
    assert sorted(p.name for p in quarantined(vault)) == sorted([*poisoned, "a4-000000000000000.jsonl"])
    assert (vault / ".wikic/capture/quarantine/a0-000000000000000.jsonl").read_bytes() == poisoned[
        "a0-000000000000000.jsonl"]  # kept as it was, for a person to look at
    status = vault_status(vault, lint=False)
    assert status.to_dict()["capture_quarantine"] == {"entries": 5, "folder": ".wikic/capture/quarantine"}
    assert "Capture quarantine: 5 queue entries that are no capture, set aside in .wikic/capture/quarantine/" in (
        render_status(status))
    # the same name queued again is set aside beside the first; later runs go on as usual
    (folder / "a0-000000000000000.jsonl").write_bytes(b"[]\n")
    again = ingest(vault, IngestOptions(use_palace=False), llm=llm)
    assert "quarantine/a0-000000000000000.jsonl.2" in again.conversations[0].quarantined[0]
    assert ingest(vault, IngestOptions(use_palace=False), llm=llm).exit_code() == 0
    shown = CliRunner().invoke(app, ["status", "--no-lint", "--vault", str(vault)])
    assert shown.exit_code == 0 and "Capture quarantine: 6 queue entries" in shown.stdout
