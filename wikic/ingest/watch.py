"""`wikic watch`: compile what arrives, as it arrives. It watches raw/ (a file dropped there) and the
capture queue (what hooks queue), and runs the same ingest as `wikic ingest` with no argument: the queue
becomes transcripts and every uncompiled raw file compiles, under the vault lock like any other writer.
Ctrl-C stops it between runs or inside one (an interrupted ingest is finished by the next run, as always).

When it runs is the `Pacer`'s to say, so a file that keeps changing costs the model little: a changed file
is compiled once it has been quiet for SETTLE seconds (not half-written, not at every line a log gets), and
a file compiled before is compiled again at most once per MIN_INTERVAL seconds, however often it changes;
its last change is always compiled, once both hold. A file appended to every 2 s for 36 s is compiled once,
when the appending stops (it was 18 times, with 71 model calls).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from wikic.context import VaultContext
from wikic.errors import WikicError
from wikic.ingest.pipeline import IngestOptions, IngestReport, ingest
from wikic.llm.client import LLM
from wikic.vault.layout import RAW_DIR, is_export, require_vault
from wikic.vault.state import CAPTURE_QUEUE, state_path

# one run of the watch: (the vault, the run's options, the model) -> its report
RunIngest = Callable[[VaultContext, IngestOptions, LLM | None], IngestReport]

SETTLE = 3.0  # seconds a changed file must have been quiet before it is compiled
MIN_INTERVAL = 60.0  # seconds between two compiles of one file (a session's captures count as one file)
TICK_MS = 500  # how often the watch looks whether a run is due while nothing changes

# A batch of changes as watchfiles reports them: (kind of change, absolute path).
Changes = set[tuple[Any, str]]


class Pacer:
    """When the watch runs an ingest, from the changes it saw and the clock.

    A run compiles everything that changed, so it starts when every changed file is ready (quiet for `settle`
    seconds, and compiled last `min_interval` seconds ago or more), or when one of them has waited
    `min_interval` seconds: a file that never goes quiet holds the others up no longer than that, and is
    itself compiled at most once per `min_interval` (each run takes every change seen before it)."""

    def __init__(self, settle: float = SETTLE, min_interval: float = MIN_INTERVAL) -> None:
        self.settle = settle
        self.min_interval = min_interval
        self._last_change: dict[str, float] = {}  # file -> its last change not compiled yet
        self._waiting_since: dict[str, float] = {}  # file -> its first change not compiled yet
        self._compiled: dict[str, float] = {}  # file -> when the last run that took it started

    def changed(self, key: str, now: float) -> None:
        self._last_change[key] = now
        self._waiting_since.setdefault(key, now)

    def ready(self, key: str, now: float) -> bool:
        quiet = now - self._last_change[key] >= self.settle
        return quiet and now - self._compiled.get(key, -math.inf) >= self.min_interval

    def due(self, now: float) -> bool:
        if not self._last_change:
            return False
        if all(self.ready(key, now) for key in self._last_change):
            return True
        return any(now - since >= self.min_interval for since in self._waiting_since.values())

    def started(self, now: float) -> None:
        """A run starts: it takes every change seen so far."""
        for key in self._last_change:
            self._compiled[key] = now
        self._last_change.clear()
        self._waiting_since.clear()


def watch(context: VaultContext, on_run: Callable[[IngestReport | WikicError], None], *, llm: LLM | None = None,
          stop: threading.Event | None = None, settle: float = SETTLE, min_interval: float = MIN_INTERVAL,
          use_palace: bool = True, on_start: Callable[[], None] | None = None,
          events: Iterable[Changes] | None = None, clock: Callable[[], float] = time.monotonic,
          run_ingest: RunIngest | None = None) -> None:
    """Run an ingest now (to catch up), then whenever the `Pacer` says, until `stop` is set (or Ctrl-C:
    KeyboardInterrupt propagates). `on_run` gets each run's report, or the error that stopped a run (the watch
    goes on: the next change tries again). `on_start` is called once the vault and its configuration passed
    their checks, just before the first run: a watch that cannot start raises first. `events` and `clock`
    stand in for the file system's changes and the time (tests): the batches are read in turn, each at the
    clock's time, an empty one when nothing changed for a while. `run_ingest` makes each run (the faces pass
    the one that keeps a run for review when `[ingest] review` says so); by default `ingest`."""
    _watch(context, on_run, llm, stop, Pacer(settle, min_interval), use_palace, on_start, events, clock,
           run_ingest or _direct)


def _direct(context: VaultContext, options: IngestOptions, llm: LLM | None) -> IngestReport:
    return ingest(context, options, llm=llm)


def _watch(context: VaultContext, on_run: Callable[[IngestReport | WikicError], None], llm: LLM | None,
           stop: threading.Event | None, pacer: Pacer, use_palace: bool, on_start: Callable[[], None] | None,
           events: Iterable[Changes] | None, clock: Callable[[], float], run_ingest: RunIngest) -> None:
    root = Path(context.root).resolve()
    require_vault(root)
    context.checked_schema()  # as are a SCHEMA.md it cannot read and a bad wikic.toml: they stop it before it starts
    llm = llm or context.llm()
    queue = state_path(root, CAPTURE_QUEUE)
    for folder in (root / RAW_DIR, queue):
        folder.mkdir(parents=True, exist_ok=True)

    def run() -> None:
        try:
            report = run_ingest(context, IngestOptions(use_palace=use_palace), llm)
        except WikicError as exc:
            on_run(exc)
            return
        on_run(report)
        if report.interrupted:
            raise KeyboardInterrupt  # Ctrl-C during the run stopped the run; it stops the watch too

    def key_of(path: str) -> str | None:
        """The file a change is paced as (a session's captures are one), or None for one the watch ignores."""
        rel = Path(path)
        if rel.name.startswith(".") or rel.suffix == ".tmp":
            return None  # a file still being written under a temporary name
        if rel.parent == queue:
            return f"capture:{rel.name.rsplit('-', 1)[0]}"  # `<session key>-<offset>.jsonl`
        try:
            vault_rel = rel.resolve().relative_to(root).as_posix()
        except ValueError:
            return None
        return vault_rel if vault_rel.startswith(f"{RAW_DIR}/") and not is_export(vault_rel) else None

    if events is None:
        from watchfiles import watch as watch_changes  # imported here: other commands never need it

        events = watch_changes(root / RAW_DIR, queue, watch_filter=lambda _change, path: key_of(path) is not None,
                               debounce=TICK_MS, stop_event=stop, rust_timeout=TICK_MS, yield_on_timeout=True)
    if on_start is not None:
        on_start()
    run()
    for changes in events:
        now = clock()
        for _change, path in changes:
            key = key_of(path)
            if key is not None:
                pacer.changed(key, now)
        if pacer.due(now):
            pacer.started(now)
            run()
        if stop is not None and stop.is_set():
            break
