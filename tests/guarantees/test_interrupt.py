"""Ctrl-C: `wikic ingest` stops its model calls at once, keeps what was finished, says how to go on, and
exits 130; the next `wikic ingest` finishes the rest, and says so when it finishes search-index work an
interrupted run left. SIGTERM (`timeout`, a service manager, a CI runner) stops it the same way and it
exits 143. A run killed outright (SIGKILL) writes nothing, and the replies it paid for are counted once,
by the run that compiles their sources.

In the library, Ctrl-C is a KeyboardInterrupt in the main thread (raised here with `interrupt_main`, or
from a progress callback). The process tests run `wikic` in its own session and send the signal to the
whole process group, as a terminal and `timeout` do (the palace's store child included).
"""

from __future__ import annotations

import _thread
import json
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import gkit
import pytest
from library import ingest
from standin_openai import Behaviour, StandinServer, composed_as_listed, is_compose_request, reply

from wikic.ingest.pipeline import IngestOptions
from wikic.progress import ProgressEvent
from wikic.vault.state import palace_todos

N_SOURCES = 7
SLOW = 30.0  # seconds the stand-in takes for every source but the first: far longer than the test waits
FIRST, SECOND = "raw/articles/note-0-on-project-0.md", "raw/articles/note-1-on-project-1.md"


def _wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def _cached_replies(root: Path) -> int:
    folder = root / ".wikic" / "cache" / "llm"
    return sum(1 for _ in folder.rglob("*.json")) if folder.is_dir() else 0


def _slow_but_the_first(body: dict[str, Any]) -> Behaviour | dict[str, Any]:
    user = body["messages"][-1]["content"]
    return reply(gkit.plan_for(user), delay=0.0 if "# Note 0 on Project" in user else SLOW)


def _first_reply_then_two_in_flight(root: Path, standin: StandinServer) -> None:
    # concurrency 2: note 0 is answered at once (and cached), then notes 1 and 2 are in flight
    _wait_for(lambda: _cached_replies(root) >= 1 and len(standin.chat_requests()) >= 3, 60, "the first reply")
    time.sleep(0.2)


@pytest.fixture
def slow_model(tmp_path: Path, standin: StandinServer) -> tuple[Path, list[str]]:
    """A vault and seven sources; the stand-in answers the first at once and the others after SLOW seconds."""
    standin.route = _slow_but_the_first
    return gkit.make_vault(tmp_path / "wiki", standin.base_url), gkit.sources(tmp_path / "inbox", N_SOURCES)


def _compiled(root: Path) -> list[str]:
    return list(json.loads((root / ".wikic" / "compiled.json").read_text(encoding="utf-8"))["sources"])


def test_ctrl_c_while_the_model_is_asked_compiles_what_finished_and_starts_no_call(
    slow_model: tuple[Path, list[str]], standin: StandinServer
) -> None:
    root, sources = slow_model
    signalled: list[float] = []

    def press_ctrl_c() -> None:
        _first_reply_then_two_in_flight(root, standin)
        signalled.append(time.monotonic())
        _thread.interrupt_main()

    threading.Thread(target=press_ctrl_c, daemon=True).start()
    try:
        report = ingest(root, IngestOptions(inputs=sources, use_palace=False))
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C escaped ingest: what had finished was not kept")
    seconds = time.monotonic() - signalled[0]

    print(f"Ctrl-C to ingest returning: {seconds:.2f} s")
    assert seconds < 1.0, f"ingest took {seconds:.2f} s to return after Ctrl-C"
    assert report.interrupted == "extract" and report.exit_code() == 130
    assert [(s.raw_path, s.status) for s in report.sources][:2] == [(FIRST, "compiled"), (SECOND, "interrupted")]
    assert report.totals()["interrupted"] == N_SOURCES - 1
    time.sleep(0.3)  # a call started after Ctrl-C would have reached the server by now
    assert len(standin.chat_requests()) == 3
    assert _compiled(root) == [FIRST] and [t for t, _ in gkit.log_rows(root)] == [FIRST]
    assert report.lint is None  # nothing more is done after Ctrl-C


def test_ctrl_c_while_indexing_leaves_the_work_for_the_next_run_which_says_so(
    tmp_path: Path, standin: StandinServer
) -> None:
    root = gkit.make_vault(tmp_path / "wiki", standin.base_url)
    sources = gkit.sources(tmp_path / "inbox", 2)

    def ctrl_c_while_embedding(event: ProgressEvent) -> None:
        if event.stage == "embed":
            raise KeyboardInterrupt

    report = ingest(root, IngestOptions(inputs=sources), progress=ctrl_c_while_embedding)
    assert report.interrupted == "palace" and report.exit_code() == 130
    assert [s.status for s in report.sources] == ["compiled", "compiled"]
    [(_, left)] = palace_todos(root)

    events: list[ProgressEvent] = []
    again = ingest(root, IngestOptions(inputs=sources), progress=events.append)
    assert [s.status for s in again.sources] == ["unchanged", "unchanged"]
    assert again.palace_leftover == len(left) and again.exit_code() == 0
    assert events[0] == ProgressEvent("leftover", 0, len(left), "files")
    embedded = [e for e in events if e.stage == "embed"]
    assert embedded[0].done == 0 and embedded[-1].done == embedded[-1].total > 0 and embedded[-1].share == 1.0
    assert palace_todos(root) == []
    assert gkit.palace_problems(root) == []


def test_ctrl_c_stops_a_wikic_ingest_process_within_a_second_or_two_and_the_next_run_finishes(
    slow_model: tuple[Path, list[str]], standin: StandinServer
) -> None:
    root, sources = slow_model
    proc = subprocess.Popen(gkit.wikic_cmd("ingest", *sources, "--vault", str(root)), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=gkit.env(), start_new_session=True)
    try:
        _first_reply_then_two_in_flight(root, standin)
        in_flight = len(standin.chat_requests())
        signalled = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=SLOW / 2)
        seconds = time.monotonic() - signalled
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    print(f"SIGINT to exit: {seconds:.2f} s")

    assert in_flight == 3
    assert len(standin.chat_requests()) == in_flight, "a model call was started after Ctrl-C"
    assert proc.returncode == 130, (out, err)
    assert seconds < 3.0, f"took {seconds:.2f} s to stop after Ctrl-C"  # about 1 s; a busy machine doubles it
    assert _compiled(root) == [FIRST] and [t for t, _ in gkit.log_rows(root)] == [FIRST]
    assert f"{FIRST}: compiled" in out and f"{SECOND}: interrupted" in out
    assert "Interrupted: 1 source(s) compiled and kept, 6 not compiled." in err
    assert "run the same `wikic ingest` command again, or `wikic ingest` with no source" in err
    assert "\r" not in err and "Traceback" not in err

    # `wikic ingest` with no source compiles what raw/ holds and is not compiled yet
    standin.route = gkit.route
    before = len(standin.chat_requests())
    again = gkit.run("ingest", "--vault", str(root))
    assert again.returncode == 0, again.stderr
    asked = [r for r in standin.chat_requests()[before:] if not is_compose_request(r.body)]
    assert len(asked) == N_SOURCES - 1  # note 0 costs nothing (the pages this run changed are composed beside)
    assert len(gkit.log_rows(root)) == N_SOURCES
    assert "finishing search-index work left by an interrupted run:" in again.stderr
    assert not gkit.lint_errors(root, ["broken-wikilink", "index-gap"])


def _slow_but_the_first_two(body: dict[str, Any]) -> Behaviour | dict[str, Any]:
    if is_compose_request(body):
        return composed_as_listed(body)
    user = body["messages"][-1]["content"]
    fast = "# Note 0 on Project" in user or "# Note 1 on Project" in user
    return reply(gkit.plan_for(user), delay=0.0 if fast else SLOW)


def _notes(paths: list[str]) -> list[int]:
    """Which of the scripted notes `paths` are (a raw path is named after its file or its title)."""
    found = [re.search(r"/note-(\d+)", path) for path in paths]
    return [int(m.group(1)) if m else -1 for m in found]


class _Lines:
    """A process's output read as it comes, line by line, on a thread of its own."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: list[str] = []
        self._thread = threading.Thread(target=lambda: self.lines.extend(stream), daemon=True)
        self._thread.start()

    def text(self) -> str:
        self._thread.join(timeout=SLOW)
        return "".join(self.lines)


def test_sigterm_stops_a_wikic_ingest_as_ctrl_c_does_and_keeps_what_arrived(
    tmp_path: Path, standin: StandinServer
) -> None:
    standin.route = _slow_but_the_first_two
    root = gkit.make_vault(tmp_path / "wiki", standin.base_url)
    sources = gkit.sources(tmp_path / "inbox", 3)
    proc = subprocess.Popen(gkit.wikic_cmd("ingest", *sources, "--vault", str(root), "-j", "1"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=gkit.env(),
                            start_new_session=True)
    assert proc.stdout is not None and proc.stderr is not None
    out, err = _Lines(proc.stdout), _Lines(proc.stderr)
    try:
        # each source is said compiled as soon as its reply is in, while the next is still with the model
        _wait_for(lambda: any(re.fullmatch(r"\[2/3\] raw/articles/note-1\S* compiled\n", line) for line in err.lines),
                  60, "the second source said compiled")
        _wait_for(lambda: len(standin.chat_requests()) >= 3, 60, "the third source in flight")
        in_flight = len(standin.chat_requests())
        os.killpg(proc.pid, signal.SIGTERM)  # as `timeout` does: the whole group, the palace's store process too
        proc.wait(timeout=SLOW / 2)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    report, said = out.text(), err.text()

    assert in_flight == 3 and len(standin.chat_requests()) == in_flight
    assert proc.returncode == 143, (report, said)
    assert _notes(_compiled(root)) == [0, 1] and _notes([t for t, _ in gkit.log_rows(root)]) == [0, 1]
    assert re.search(r"^raw/articles/note-2\S*: interrupted", report, re.MULTILINE)
    assert "Stopped (SIGTERM): 2 source(s) compiled and kept, 1 not compiled." in said
    assert "Traceback" not in said + report

    standin.route = gkit.route
    again = gkit.run("ingest", "--vault", str(root))
    assert again.returncode == 0, again.stderr
    assert len(gkit.log_rows(root)) == 3 and not gkit.lint_errors(root, ["broken-wikilink", "index-gap"])
    assert gkit.palace_problems(root) == []


def test_the_replies_a_killed_run_paid_for_are_counted_once_by_the_run_that_compiles_them(
    tmp_path: Path, standin: StandinServer
) -> None:
    standin.route = _slow_but_the_first_two
    root = gkit.make_vault(tmp_path / "wiki", standin.base_url)
    sources = gkit.sources(tmp_path / "inbox", 3)
    proc = subprocess.Popen(gkit.wikic_cmd("ingest", *sources, "--vault", str(root), "-j", "1", "--no-palace"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=gkit.env(),
                            start_new_session=True)
    try:
        _wait_for(lambda: _cached_replies(root) >= 2 and len(standin.chat_requests()) >= 3, 60, "two replies")
        os.killpg(proc.pid, signal.SIGKILL)  # nothing can be kept: the process has no say
        proc.wait()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert gkit.log_rows(root) == []

    standin.route = gkit.route
    again = gkit.run("ingest", "--vault", str(root), "--no-palace", "--no-compose")
    assert again.returncode == 0, again.stderr
    asked = [r for r in standin.chat_requests() if not is_compose_request(r.body)]
    assert len(asked) == 4  # the two replies that arrived were not asked again; the third (abandoned) was
    notes = [row for _, row in gkit.log_rows(root)]
    # the stand-in counts 20 tokens a reply: each is counted once, the two the killed run paid for included
    assert all(re.search(r"; 20 tokens \(cached, first paid \d{4}-\d{2}-\d{2}\)$", n) for n in notes[:2]), notes
    assert notes[2].endswith("; 20 tokens"), notes
    status = json.loads(gkit.run("status", "--vault", str(root), "--json").stdout)
    assert status["tokens"]["total"] == 60
