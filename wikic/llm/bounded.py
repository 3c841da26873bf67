"""A run's bound on the model: at most `[llm] concurrency` requests in flight whatever asks (ingest extracts
sources in parallel and each source its chunks), one at a time once the endpoint turned out to serve one
request at a time, and no new call after `stop()` (Ctrl-C)."""

from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING, Any

from wikic.errors import Interrupted, StreamCut

if TYPE_CHECKING:
    from wikic.llm.client import LLM


class BoundedLLM:
    """At most `limit` requests in flight across every source and every chunk of a run: sources are
    extracted in parallel and each splits its chunks in parallel, and `[llm] concurrency` bounds the sum.
    After `stop()` no call starts."""

    def __init__(self, llm: LLM, limit: int) -> None:
        self._llm = llm
        self._limit = max(1, limit)
        self._slots = threading.BoundedSemaphore(self._limit)
        self._stopped = threading.Event()
        self._count = threading.Lock()
        self._in_flight = 0
        self._started = 0
        # Taken by every call once the endpoint turned out to serve one request at a time.
        self._one_at_a_time = threading.Lock()
        self._serial = self._limit > 1 and bool(getattr(llm, "serial", False))

    @property
    def identity(self) -> Any:
        return self._llm.identity

    def complete_json(self, *args: Any, **kwargs: Any) -> Any:
        with self._slots:
            serial = self._serial
            # Each call that was already on its way when the run turned serial can cut one more reply.
            for attempt in range(self._limit):
                try:
                    return self._call(serial, *args, **kwargs)
                except StreamCut as exc:
                    if not exc.crowded or attempt == self._limit - 1:
                        raise  # cut although nothing else was asked meanwhile: a real drop, reported as such
                    # Cut while another request was in flight: the server gives a request up when another
                    # arrives (llama-cpp-python's does by default). From now on, and in later runs, one at a time.
                    serial = True
                    self._go_serial()
            raise AssertionError("unreachable")  # the last attempt returns or raises

    def _go_serial(self) -> None:
        with self._count:
            if self._serial:
                return
            self._serial = True
        remember = getattr(self._llm, "remember_serial", None)
        if remember is not None:
            remember()

    def _call(self, serial: bool, *args: Any, **kwargs: Any) -> Any:
        if self._stopped.is_set():
            raise Interrupted("interrupted: no more model calls")
        with self._one_at_a_time if serial else contextlib.nullcontext():
            with self._count:  # counted once the request is really sent, not while it waits its turn
                self._in_flight += 1
                self._started += 1
                crowded = self._in_flight > 1  # another request was in flight when this one was sent...
                mark = self._started
            try:
                return self._llm.complete_json(*args, **kwargs)
            except StreamCut as exc:
                with self._count:
                    exc.crowded = crowded or self._started != mark  # ...or was sent while it ran
                raise
            finally:
                with self._count:
                    self._in_flight -= 1

    def stop(self) -> None:
        """Start no more calls, and close the client: a call in flight that fails is then not retried by
        the SDK (a retry of a closed client sends nothing)."""
        self._stopped.set()
        close = getattr(self._llm, "close", None)
        if close is not None:
            close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llm, name)
