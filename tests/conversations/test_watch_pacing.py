"""`wikic watch` paced: a changed file is compiled once it has been quiet for the settle time, and a file
compiled before at most once per minimum interval, however often it changes; its last change is always
compiled. Driven by a clock of the test's own (the `Pacer`, and the watch loop fed changes directly), plus
one run against the real file system (slow tier)."""

from __future__ import annotations

import itertools
import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_llm import FakeLLM
from library import watch
from typer.testing import CliRunner

from wikic.cli import app
from wikic.errors import WikicError
from wikic.ingest.pipeline import IngestReport
from wikic.ingest.watch import MIN_INTERVAL, SETTLE, Pacer

TICK = 0.5  # the watch looks every half second when nothing changes


def simulate(pacer: Pacer, changes: dict[float, list[str]], until: float) -> list[float]:
    """The times runs start, the pacer asked every TICK and at every change (`changes`: time -> files)."""
    times = sorted({*changes, *(n * TICK for n in range(int(until / TICK) + 1))})
    runs = []
    for now in times:
        for key in changes.get(now, []):
            pacer.changed(key, now)
        if pacer.due(now):
            pacer.started(now)
            runs.append(now)
    return runs


def every(seconds: float, start: float, stop: float, key: str) -> dict[float, list[str]]:
    count = int((stop - start) / seconds) + 1
    return {start + n * seconds: [key] for n in range(count)}


def test_the_defaults_are_documented() -> None:
    assert (SETTLE, MIN_INTERVAL) == (3.0, 60.0)
    text = CliRunner().invoke(app, ["watch", "--help"]).output
    assert "(default: 3000)" in text and "(default: 60)" in text


def test_a_file_appended_every_two_seconds_is_compiled_once_when_it_stops() -> None:
    runs = simulate(Pacer(), every(2.0, 0.0, 36.0, "raw/articles/log.md"), until=120)
    assert runs == [36.0 + SETTLE]  # not 18 times: once, when it has been quiet for the settle time


def test_a_file_appended_forever_is_compiled_at_most_once_per_interval_and_last_when_it_stops() -> None:
    runs = simulate(Pacer(), every(2.0, 0.0, 600.0, "raw/articles/log.md"), until=800)
    assert len(runs) <= 600 / MIN_INTERVAL + 1
    assert all(later - earlier >= MIN_INTERVAL for earlier, later in itertools.pairwise(runs))
    assert 600.0 < runs[-1] <= 600.0 + SETTLE + MIN_INTERVAL  # the last change is compiled


def test_a_file_dropped_once_waits_only_for_the_settle_time() -> None:
    changes = {10.0: ["raw/articles/a.md"], 10.2: ["raw/articles/a.md"], 100.0: ["raw/articles/b.md"]}
    assert simulate(Pacer(), changes, until=200) == [13.5, 100.0 + SETTLE]  # the first look after 13.2 s


def test_a_file_edited_again_soon_is_compiled_again_after_the_interval() -> None:
    changes = {0.0: ["raw/articles/a.md"], 10.0: ["raw/articles/a.md"]}
    assert simulate(Pacer(), changes, until=200) == [SETTLE, SETTLE + MIN_INTERVAL]


def test_a_file_that_never_settles_holds_another_up_no_longer_than_the_interval() -> None:
    changes = every(1.0, 0.0, 300.0, "raw/articles/log.md")
    changes[5.0] = [*changes[5.0], "raw/articles/dropped.md"]
    runs = simulate(Pacer(), changes, until=400)
    assert runs[0] <= 0.0 + MIN_INTERVAL  # the dropped file goes with the noisy one's first forced run


def test_the_settle_time_and_interval_are_the_callers() -> None:
    runs = simulate(Pacer(settle=1.0, min_interval=5.0), every(0.5, 0.0, 20.0, "raw/articles/log.md"), until=40)
    assert runs == [5.0, 10.5, 16.0, 21.0]


# ---- the watch loop, fed its changes and its clock ----------------------------------------------------


class Feed:
    """The file system's changes for the watch loop: a file in raw/ appended every `period` seconds for
    `duration` seconds, then quiet; the loop's clock reads the time of the batch it was given last."""

    def __init__(self, path: Path, period: float, duration: float, until: float) -> None:
        self.path, self.period, self.duration, self.until = path, period, duration, until
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    def batches(self) -> Iterator[set[tuple[int, str]]]:
        next_append = 0.0
        while self.now <= self.until:
            if next_append <= self.duration and self.now >= next_append:
                with self.path.open("a", encoding="utf-8") as fh:
                    fh.write(f"At {self.now:.1f} s the service answered a request.\n")
                next_append += self.period
                yield {(2, str(self.path))}
            else:
                yield set()
            self.now += TICK


def test_the_watch_compiles_an_appended_file_once(vault: Path, llm: FakeLLM) -> None:
    log = vault / "raw" / "articles" / "log.md"
    log.parent.mkdir(parents=True, exist_ok=True)
    feed = Feed(log, period=2.0, duration=36.0, until=60.0)
    runs: list[IngestReport | WikicError] = []
    watch(vault, runs.append, llm=llm, use_palace=False, events=feed.batches(), clock=feed.clock)
    reports = [r for r in runs if isinstance(r, IngestReport)]
    assert [s.status for r in reports for s in r.sources if s.raw_path == "raw/articles/log.md"] == ["compiled"]
    assert len(runs) == 2  # the catch-up run, then the one after the appending stopped
    assert [call.schema_name for call in llm.history].count("wikic_source_plan") == 1  # extracted once
    assert "At 36.0 s" in log.read_text()  # and the last change was there to be compiled


@pytest.mark.slow  # a real watch for about ten seconds
def test_a_real_watch_compiles_a_file_being_appended_once(vault: Path, llm: FakeLLM) -> None:
    runs: queue.Queue[IngestReport | WikicError] = queue.Queue()
    stop = threading.Event()
    thread = threading.Thread(
        target=watch, args=(vault, runs.put),
        kwargs={"llm": llm, "stop": stop, "settle": 2.0, "min_interval": 600.0, "use_palace": False}, daemon=True,
    )
    thread.start()
    runs.get(timeout=60)  # the catch-up run
    log = vault / "raw" / "articles" / "log.md"
    for n in range(25):  # every 0.2 s for 5 s: never quiet for the 2 s the watch waits for
        with log.open("a", encoding="utf-8") as fh:
            fh.write(f"Line {n}: the service answered a request.\n")
        time.sleep(0.2)
    reports = [runs.get(timeout=60)]  # the run after the appending stopped
    time.sleep(4.0)  # nothing more to do: no further run
    while not runs.empty():
        reports.append(runs.get())
    stop.set()
    thread.join(timeout=30)
    compiled = [s for r in reports if isinstance(r, IngestReport) for s in r.sources if s.raw_path.endswith("log.md")]
    assert [s.status for s in compiled] == ["compiled"] and "Line 24" in log.read_text()
