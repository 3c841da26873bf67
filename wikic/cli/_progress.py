"""Progress: the core's ProgressEvents drawn as Rich progress bars on stderr when it is a terminal, and as
plain lines when it is not (a log file, a pipe, a service's journal): one per source compiled, and while the
model is asked, one every HEARTBEAT seconds saying how far it got, so a long run against a slow local model
never leaves its log empty. `--json` gets the report alone: no bars, no lines. A notice (work an interrupted
run left behind, a damaged palace set aside) is one plain line on stderr in text mode, terminal or not: it
says why the run takes longer than its sources explain.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from wikic.cli._output import say, say_on
from wikic.progress import ProgressEvent

LABELS = {
    "extract": "asking the model",
    "write": "writing pages",
    "embed": "search index",
    "conversations": "reading conversations",
}


HEARTBEAT = 30.0  # seconds between two lines saying how far the model got, when stderr is no terminal


def leftover_notice(files: int) -> str:
    return f"finishing search-index work left by an interrupted run: {files} file(s)"


class ProgressDisplay:
    """A progress callback and a context manager: leaving the block ends the bars' lines, so what is
    printed next starts on a line of its own."""

    def __init__(self, *, json_output: bool, console: Any = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """`console`: a rich Console to draw on (tests); by default stderr, when it is a terminal."""
        self.notices = not json_output
        self.bars = self.notices and (console is not None or sys.stderr.isatty())
        self.lines = self.notices and not self.bars
        self._console = console
        self._progress: Any = None  # rich.progress.Progress, created on the first event
        self._tasks: dict[str, Any] = {}
        self._clock = clock
        self._said: dict[str, float] = {}  # stage -> when its last line was written

    def __enter__(self) -> ProgressDisplay:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def __call__(self, event: ProgressEvent) -> None:
        if event.stage == "leftover":
            self.notice(leftover_notice(event.total))
            return
        if event.stage == "damaged":
            self.notice(event.note)
            return
        if self.lines:
            self._line(event)
            return
        if not self.bars:
            return
        progress = self._start()
        counts = f"{event.done:,}/{event.total:,} {event.unit}"
        if event.stage == "embed":
            counts += f", {event.drawers:,} drawers embedded"
        if event.stage == "extract" and event.tokens:
            counts += f", {event.tokens:,} tokens received"
        task = self._tasks.get(event.stage)
        if task is None:
            task = self._tasks[event.stage] = progress.add_task(
                LABELS.get(event.stage, event.stage), total=1.0, counts=""
            )
        progress.update(task, completed=event.share, counts=counts)

    def _line(self, event: ProgressEvent) -> None:
        """A plain line for a log: each source compiled (its pages are written after); the model's and the
        index's progress at most every HEARTBEAT seconds, and when the stage is done."""
        if event.stage == "write":
            say(f"[{event.done}/{event.total}] {event.note or 'a source'} compiled", err=True)
            return
        now = self._clock()
        finished = event.total > 0 and event.done >= event.total
        started = self._said.setdefault(event.stage, now)
        if not finished and now - started < HEARTBEAT:
            return
        if finished and event.stage == "extract":
            return  # the lines of the sources written say the rest
        self._said[event.stage] = now
        counts = f"{event.done:,}/{event.total:,} {event.unit}" if event.total else f"{event.done:,} {event.unit}"
        if event.stage == "extract" and event.tokens:
            counts += f", {event.tokens:,} tokens received"
        if event.stage == "embed":
            counts += f", {event.drawers:,} drawers embedded"
        say(f"{LABELS.get(event.stage, event.stage)}: {counts}", err=True)

    def notice(self, text: str) -> None:
        if not self.notices:
            return
        if self._progress is not None:
            say_on(self._progress.console, text)
        else:
            say(text, err=True)

    def _start(self) -> Any:
        if self._progress is None:
            from rich.console import Console  # only on a terminal: importing rich takes a moment
            from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

            self._progress = Progress(
                TextColumn("{task.description:<18}"), BarColumn(), TaskProgressColumn(),
                TextColumn("{task.fields[counts]}"), TimeElapsedColumn(),
                console=self._console or Console(stderr=True), redirect_stdout=False, redirect_stderr=False,
            )
            self._progress.start()
        return self._progress
