"""The palace's to-do: work another run left is done by the next run, and announced as left by an interrupted
run only when its run is over; the to-do of a run still going (a second ingest beside a first) is its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from wikic.palace.todo import update_palace
from wikic.progress import ProgressEvent
from wikic.vault import state


class _Palace:
    def __init__(self) -> None:
        self.indexed: list[str] = []

    def update_paths(self, paths: list[str], progress: Any = None) -> None:
        self.indexed += paths


def _todo(root: Path, run: str, paths: list[str], writer: dict[str, Any] | None) -> Path:
    """A to-do as the process `writer` names would have written it (None: as a wikic that named none)."""
    path = root / ".wikic" / "palace-todo" / f"{run}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"paths": paths, **({"writer": writer} if writer else {})}), encoding="utf-8")
    return path


def test_a_to_do_of_a_run_still_going_is_left_to_it_and_no_leftover(tmp_path: Path) -> None:
    root = tmp_path
    (root / "SCHEMA.md").write_text("# Wiki Schema\n", encoding="utf-8")
    ended = subprocess.Popen([sys.executable, "-c", ""])
    ended.wait()
    unreaped = subprocess.Popen([sys.executable, "-c", ""])  # ended, not waited for yet: a zombie
    deadline = time.monotonic() + 60
    while sys.platform == "linux" and not state._process_stat(unreaped.pid)[1] and time.monotonic() < deadline:
        time.sleep(0.02)
    going = os.getppid()  # the process that started this test: running, and another process than this one
    started = state._process_started(going)
    running = _todo(root, "a-running", ["entities/running.md"], {"pid": going, "started": started})
    _todo(root, "b-killed", ["entities/killed.md", "index.md"], {"pid": ended.pid, "started": None})
    _todo(root, "c-older", ["entities/older.md"], None)
    _todo(root, "e-unreaped", ["entities/unreaped.md"], {"pid": unreaped.pid, "started": None})
    if started is not None:  # a later process given the pid of the one that wrote it: that run is over
        _todo(root, "d-reused", ["entities/reused.md"], {"pid": going, "started": started + 1})
    events: list[ProgressEvent] = []
    palace = _Palace()

    # a stand-in palace that records what it is asked to index: no other method of a palace is called
    left = update_palace(root, ["entities/mine.md"], lambda: palace,  # type: ignore[arg-type, return-value]
                         run="mine", progress=events.append)

    others = ["entities/killed.md", "entities/older.md", "entities/unreaped.md", "index.md",
              *(["entities/reused.md"] if started else [])]
    assert left == len(others) and events == [ProgressEvent("leftover", 0, len(others), "files")]
    assert palace.indexed == sorted(["entities/mine.md", *others])
    assert [todo for todo, _ in state.palace_todos(root)] == [running]  # its own run does it
    unreaped.wait()


def test_a_to_do_names_the_process_that_wrote_it(tmp_path: Path) -> None:
    (tmp_path / "SCHEMA.md").write_text("# Wiki Schema\n", encoding="utf-8")
    state.add_palace_todo(tmp_path, "r1", ["entities/a.md"])
    [(todo, paths)] = state.palace_todos(tmp_path)
    writer = json.loads(todo.read_text(encoding="utf-8"))["writer"]
    assert paths == ["entities/a.md"] and writer["pid"] == os.getpid()
    assert not state.todo_in_progress(tmp_path, todo)  # this process's own: no other run's
