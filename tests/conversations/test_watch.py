"""`wikic watch` with the real watchfiles: a file dropped into raw/ is compiled within a bounded wait, a
capture queued by a hook becomes a transcript (a queue entry that is no capture is set aside and stops
nothing), and stopping is clean."""

from __future__ import annotations

import queue
import threading
import time
from pathlib import Path

from convkit import FIXTURES
from library import watch

from wikic.errors import WikicError
from wikic.ingest.pipeline import IngestReport


def test_watch_compiles_a_dropped_file_and_a_queued_capture(vault: Path, llm) -> None:
    runs: queue.Queue[IngestReport | WikicError] = queue.Queue()
    stop = threading.Event()
    thread = threading.Thread(
        target=watch,
        args=(vault, runs.put),
        kwargs={"llm": llm, "stop": stop, "settle": 0.2, "use_palace": False},
        daemon=True,
    )
    thread.start()
    first = runs.get(timeout=60)  # the catch-up run: nothing to do
    assert isinstance(first, IngestReport) and not first.sources

    def wait_for(predicate, limit: float = 60) -> IngestReport:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            try:
                report = runs.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                break
            if isinstance(report, IngestReport) and predicate(report):
                return report
        raise AssertionError("watch did not compile it in time")

    note = vault / "raw" / "articles" / "dropped.md"
    note.write_text("# Dropped\n\nFrom now on use uv, never pip.\n")
    report = wait_for(lambda r: any(s.raw_path == "raw/articles/dropped.md" for s in r.sources))
    assert [s.status for s in report.sources if s.raw_path == "raw/articles/dropped.md"] == ["compiled"]

    queue_dir = vault / ".wikic" / "capture" / "queue"
    (queue_dir / "000-000000000000000.jsonl").write_bytes(b'["no capture"]\n')  # set aside; the watch goes on
    header = b'{"session_id": "s", "transcript_path": "/x/s.jsonl", "start": 0}\n'
    (queue_dir / ".tmp-write").write_bytes(header + (FIXTURES / "claude-code-session.jsonl").read_bytes())
    (queue_dir / ".tmp-write").rename(queue_dir / "abc-000000000000000.jsonl")
    report = wait_for(lambda r: bool(r.conversations and r.conversations[0].written))
    assert report.conversations[0].written == ["raw/transcripts/2026-11-30-claude-code-from-now-on-use-uv-never-pip.md"]
    assert [p.name for p in (vault / ".wikic" / "capture" / "quarantine").iterdir()] == ["000-000000000000000.jsonl"]
    stop.set()
    thread.join(timeout=30)
    assert not thread.is_alive()
