"""The model-call pool: daemon threads (a call in flight never keeps the process alive), and leaving it by
Ctrl-C neither waits for running calls nor starts queued ones."""

from __future__ import annotations

import threading
import time

import pytest

from wikic.ingest.workers import DaemonPool


def _blocking(started: threading.Event, release: threading.Event):
    def call() -> str:
        started.set()
        release.wait(10)
        return "answered"

    return call


def test_leaving_by_ctrl_c_cancels_the_queue_and_waits_for_nothing() -> None:
    started, release = threading.Event(), threading.Event()
    call = _blocking(started, release)
    begun = time.monotonic()
    with pytest.raises(KeyboardInterrupt), DaemonPool(1, "pool-under-test") as pool:
        running, queued = pool.submit(call), pool.submit(call)
        assert started.wait(5)
        raise KeyboardInterrupt
    assert time.monotonic() - begun < 1
    assert queued.cancelled() and not running.done()
    workers = [t for t in threading.enumerate() if t.name.startswith("pool-under-test")]
    assert workers and all(t.daemon for t in workers)  # the interpreter exits without them
    release.set()
    assert running.result(timeout=5) == "answered"


def test_leaving_normally_or_by_an_error_waits_for_the_calls_as_the_standard_pool_does() -> None:
    with DaemonPool(2) as pool:
        futures = [pool.submit(lambda n=n: n * n) for n in range(5)]
    assert [f.result(timeout=0) for f in futures] == [0, 1, 4, 9, 16]

    started, release = threading.Event(), threading.Event()
    with pytest.raises(ValueError), DaemonPool(1) as pool:
        running = pool.submit(_blocking(started, release))
        assert started.wait(5)
        threading.Timer(0.2, release.set).start()
        raise ValueError("a failing chunk")
    assert running.done() and running.result() == "answered"
    with pytest.raises(RuntimeError):
        pool.submit(print)
