"""Progress of long work, as data: the core reports events through a callback, and the caller decides what
to show (the CLI draws a progress bar on a terminal and nothing on a pipe; the library never prints).

Stages:
- `extract`  (ingest) model calls: `done` of `total` chunks answered, over every source of the run, and
             `tokens` of reply received so far (a slow local model shows it is writing);
- `write`    (ingest) sources compiled and recorded, to be written (`note`: the one just compiled);
- `leftover` (palace) work an interrupted run left for the search index is about to run: `total` files;
- `conversations` (ingest) conversations of an export read into transcripts so far (`total` 0: a streamed
             export's count is known only at its end), or queued captures read (`done` of `total`);
- `embed`    (palace) indexing: `done` of `total` changed files written, `drawers` embedded so far, and
             `fraction` the share of the work done (a file half embedded counts by half);
- `damaged`  (palace) the palace could not be read and is rebuilt from the vault: `note` says why, and
             where the damaged one was moved.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class ProgressEvent:
    stage: str
    done: int = 0
    total: int = 0
    unit: str = ""  # what done and total count: "chunks", "sources", "files"
    fraction: float | None = None  # finer than done / total, when the stage knows better
    drawers: int = 0  # embed: drawers embedded so far
    tokens: int = 0  # extract: reply tokens received so far
    note: str = ""  # damaged: the one line to show; write: the source just compiled

    @property
    def share(self) -> float:
        """The finished share of the stage, 0..1."""
        if self.fraction is not None:
            return min(1.0, max(0.0, self.fraction))
        return min(1.0, self.done / self.total) if self.total else 0.0


ProgressCallback = Callable[[ProgressEvent], None]
