"""SIGTERM stops a command as Ctrl-C does.

A service manager, `timeout` and a CI runner stop a process with SIGTERM, whose default ends it where it
stands: an ingest then kept nothing, not even the sources whose replies had all arrived. Within
`terminated_as_interrupted`, SIGTERM raises KeyboardInterrupt in the main thread instead, so the command
stops the way Ctrl-C stops it (what is finished is kept, the report says what is not), and exits with the
shell's code for a process ended by SIGTERM (128 + 15) rather than Ctrl-C's 130, so whoever sent it can
tell the two apart.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType

from wikic.errors import Interrupted

TERMINATED_EXIT = 128 + signal.SIGTERM  # 143


@dataclass
class Stop:
    """Whether SIGTERM came while the block ran."""

    terminated: bool = False

    @property
    def exit_code(self) -> int:
        """The exit code of a command stopped by a signal: 143 for SIGTERM, else Ctrl-C's."""
        return TERMINATED_EXIT if self.terminated else Interrupted.exit_code

    @property
    def cause(self) -> str:
        """How the stop is named to the person: `Stopped (SIGTERM)` or `Interrupted` (Ctrl-C)."""
        return "Stopped (SIGTERM)" if self.terminated else "Interrupted"


@contextmanager
def terminated_as_interrupted() -> Iterator[Stop]:
    """Within the block, the first SIGTERM raises KeyboardInterrupt (a second one is ignored: the stop it
    asks for is under way, and a KeyboardInterrupt inside the writing it finishes would only cut it short);
    the handler before is restored after. Call from the main thread."""
    stop = Stop()

    def terminate(signum: int, frame: FrameType | None) -> None:
        if not stop.terminated:
            stop.terminated = True
            raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, terminate)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGTERM, before)
