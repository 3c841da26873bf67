"""A new user's first hour, as whole `wikic` processes against the stand-in model: init, three sources (the
third names a page the first one wrote), a question to a server that ignores `stream: true`, the answer
filed, a strict lint, then Ctrl-C in the middle of a bigger ingest and the run that finishes it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import gkit
from standin_openai import StandinServer, is_answer_request, reply
from vectorstores import SOURCES, answer, extraction

MORE = 5  # sources of the interrupted ingest
SLOW = 30.0  # seconds the stand-in takes for each of them but the first


def _route(body: dict[str, Any]) -> Any:
    user = body["messages"][-1]["content"]
    if is_answer_request(body):
        return answer(body)
    if "# Note " in user:  # the bigger batch: the first note at once, the others slowly
        return reply(gkit.plan_for(user), delay=0.0 if "# Note 0 on Project" in user else SLOW)
    return extraction(body)


def _wikic(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return gkit.run(*args, "--vault", str(root))


def test_a_new_users_first_hour(tmp_path: Path) -> None:
    root = tmp_path / "my-wiki"
    inbox = tmp_path / "Downloads"
    inbox.mkdir()
    for name, text in SOURCES.items():
        (inbox / name).write_text(text, encoding="utf-8")
    with StandinServer(ignore_stream=True) as server:
        server.route = _route
        assert gkit.run("init", str(root)).returncode == 0
        toml = (root / "wikic.toml").read_text(encoding="utf-8")
        toml = toml.replace('base_url = "http://localhost:11434/v1"', f'base_url = "{server.base_url}"')
        (root / "wikic.toml").write_text(toml.replace("timeout = 120", "timeout = 60"), encoding="utf-8")

        # three sources; the third names the comparison the first one wrote
        done = _wikic(root, "ingest", *(str(inbox / name) for name in SOURCES))
        assert done.returncode == 0, done.stdout + done.stderr
        assert "3 compiled" in done.stdout and "0 failed" in done.stdout

        # a question, to a server that answers a streaming request in one piece
        asked = _wikic(root, "query", "Where does Chroma run?")
        assert asked.returncode == 0, asked.stderr
        assert "Chroma runs in-process or as a server" in asked.stdout
        saved = _wikic(root, "query", "Where does Chroma run?", "--save", "--json")
        assert saved.returncode == 0, saved.stderr
        assert json.loads(saved.stdout)["saved"]["path"] == "queries/where-does-chroma-run.md"

        linted = _wikic(root, "lint", "--strict")
        assert linted.returncode == 0, linted.stdout

        # Ctrl-C in the middle of a bigger ingest: it stops at once and keeps what was done...
        batch = gkit.sources(tmp_path / "more", MORE)
        proc = gkit.popen("ingest", *batch, "--vault", str(root))
        try:
            deadline = time.monotonic() + 60
            while not any("# Note 0 on Project" in r.body["messages"][-1]["content"] for r in server.chat_requests()):
                assert time.monotonic() < deadline, "the batch never reached the model"
                time.sleep(0.05)
            time.sleep(1.0)  # the first reply is in, the others are in flight
            os.kill(proc.pid, signal.SIGINT)
            out, err = proc.communicate(timeout=SLOW / 2)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 130, out + err
        assert "wikic ingest" in out + err  # how to go on
        compiled = gkit.compiled_sources(root)
        assert sum(1 for path in compiled if "note-" in path) == 1

        # ...and the next run, with no argument, finishes the rest
        server.route = lambda body: (
            reply(gkit.plan_for(body["messages"][-1]["content"])) if not is_answer_request(body) else answer(body)
        )
        resumed = _wikic(root, "ingest")
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        assert sum(1 for path in gkit.compiled_sources(root) if "note-" in path) == MORE
        assert gkit.consistency_problems(root) == []
        linted = _wikic(root, "lint")
        assert linted.returncode == 0, linted.stdout
