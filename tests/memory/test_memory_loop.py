"""The whole loop as a Claude Code user meets it: `wikic hooks install` writes the hooks, three sessions end and
their Stop hook (`wikic capture`, a process of its own reading the hook's JSON) queues them, `wikic ingest`
compiles the queue, and the SessionStart hook's command prints a briefing holding the instruction of session
1 and the decision of session 3, with links that resolve in a lint-clean vault."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from fake_llm import FakeLLM
from library import ingest, run_lint
from memkit import SESSIONS, Scripted, Session, make_vault

from wikic.ingest.pipeline import IngestOptions
from wikic.lint.run import LintOptions
from wikic.vault.load import walk
from wikic.vault.resolve import Resolver

REPO = Path(__file__).resolve().parents[2]


def _jsonl(session: Session, when: dt.datetime) -> bytes:
    """The session as Claude Code writes it: one JSON object per line, the assistant's text in content blocks."""
    lines = []
    for i, (speaker, text, _) in enumerate(session.turns):
        stamp = (when + dt.timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        content: object = text if speaker == "user" else [{"type": "text", "text": text}]
        lines.append({"parentUuid": f"{session.id}-{i - 1}" if i else None, "isSidechain": False, "type": speaker,
                      "message": {"role": speaker, "content": content}, "uuid": f"{session.id}-{i}",
                      "timestamp": stamp, "sessionId": session.id, "cwd": "/home/ada/billing"})
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def _hook_commands(home: Path, event: str) -> list[str]:
    settings = json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    return [hook["command"] for entry in settings["hooks"][event] for hook in entry["hooks"]]


def _run(command: list[str] | str, env: dict[str, str], payload: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(command, input=payload, env=env, capture_output=True, timeout=120,
                          shell=isinstance(command, str), check=False)


@pytest.mark.slow
def test_three_sessions_through_the_hooks_brief_the_next_one(tmp_path: Path) -> None:
    home = tmp_path / "home"
    projects = home / ".claude" / "projects" / "billing"
    projects.mkdir(parents=True)
    vault = make_vault(tmp_path, identity="I am Ada, a backend engineer on the billing platform.\n")
    # the hooks run `wikic` as the user's shell finds it: the console script of this Python's environment
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(REPO), "WIKIC_EMBEDDING_PROVIDER": "static",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    wikic = [sys.executable, "-c", "from wikic.cli import main; main()"]
    installed = _run([*wikic, "hooks", "install", "claude-code", "--user", "--vault", str(vault)], env)
    assert installed.returncode == 0, installed.stderr.decode()
    (stop,), (start,) = _hook_commands(home, "Stop"), _hook_commands(home, "SessionStart")

    llm = FakeLLM().respond_with(Scripted(SESSIONS))
    first_day = dt.datetime.now(dt.UTC).replace(microsecond=0) - dt.timedelta(days=9)
    for n, session in enumerate(SESSIONS):
        path = projects / f"{session.id}.jsonl"
        path.write_bytes(_jsonl(session, first_day + dt.timedelta(days=3 * n)))
        payload = json.dumps({"session_id": session.id, "transcript_path": str(path), "cwd": "/home/ada/billing",
                              "hook_event_name": "Stop", "stop_hook_active": False}).encode()
        captured = _run(stop, env, payload)
        assert (captured.returncode, captured.stderr) == (0, b""), captured.stderr.decode()
        report = ingest(vault, IngestOptions(use_palace=False), llm=llm)
        assert [s.status for s in report.sources] == ["compiled"], [(s.status, s.error) for s in report.sources]

    transcripts = sorted(p.name for p in (vault / "raw" / "transcripts").glob("*.md"))
    assert len(transcripts) == 3 and all("-claude-code-" in name for name in transcripts)

    briefing = _run(start, env, json.dumps({"session_id": "s4", "hook_event_name": "SessionStart"}).encode())
    assert briefing.returncode == 0, briefing.stderr.decode()
    text = briefing.stdout.decode()
    assert "I am Ada, a backend engineer on the billing platform." in text
    assert "Use uv for every Python project, never pip." in text  # the instruction of session 1
    assert "The billing service goes with PostgreSQL." in text  # the decision of session 3
    targets = re.findall(r"\[\[([^\]|#]+)", text)
    resolver = Resolver(walk(vault)[0])
    assert targets and all(resolver.resolve("", target).path for target in targets), targets
    assert [f for f in run_lint(vault, LintOptions(use_cache=False)).findings if f.severity == "error"] == []
