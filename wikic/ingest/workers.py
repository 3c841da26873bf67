"""A thread pool for model calls that never keeps the process alive.

`concurrent.futures.ThreadPoolExecutor` joins its threads when the interpreter exits, and a thread waiting
for an HTTP reply cannot be woken (closing the client does not interrupt a blocked read): after Ctrl-C the
process would sit until every reply in flight had arrived. These workers are daemon threads, so a call
abandoned after an interrupt ends with the process. Leaving a `with` block by KeyboardInterrupt cancels the
queued work and does not wait for the running calls; any other way waits for them, as the standard pool does.

What the workers run imports nothing on its way: whatever a call needs is imported before the pool starts,
by the thread that starts it (the model client does so when it is built, see `wikic.llm.client.http_stack`).
Workers importing a module at once raced each other, and some saw it half-initialised; a test watches the
imports of an ingest's workers (`tests/guarantees/test_parallel_calls.py`).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

_Item = tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]]


class DaemonPool(Executor):
    """At most `max_workers` daemon threads, started as work comes, running what is submitted in order."""

    def __init__(self, max_workers: int, name: str = "wikic-worker") -> None:
        self._max = max(1, max_workers)
        self._name = name
        self._queue: queue.SimpleQueue[_Item | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot submit to a pool that was shut down")
            self._queue.put((future, fn, args, kwargs))
            if len(self._threads) < self._max:
                thread = threading.Thread(target=self._work, name=f"{self._name}-{len(self._threads)}", daemon=True)
                self._threads.append(thread)
                thread.start()
        return future

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            future, fn, args, kwargs = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as exc:  # noqa: BLE001 - handed to whoever waits on the future
                future.set_exception(exc)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._closed = True
            threads = list(self._threads)
        if cancel_futures:
            while True:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    item[0].cancel()
        for _ in threads:
            self._queue.put(None)
        if wait:
            for thread in threads:
                thread.join()

    def __exit__(self, exc_type: type[BaseException] | None, exc: object, tb: object) -> None:
        interrupted = exc_type is not None and not issubclass(exc_type, Exception)  # Ctrl-C, SystemExit
        self.shutdown(wait=not interrupted, cancel_futures=interrupted)
