"""The palace's to-do: paths a writer left for the palace to re-read (`.wikic/palace-todo/`, see
`wikic/vault/state.py`), done here after the vault lock is released."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from wikic.progress import ProgressCallback, ProgressEvent
from wikic.vault import state

if TYPE_CHECKING:
    from wikic.palace.palace import Palace


def update_palace(
    root: Path, paths: list[str], palace: Callable[[], Palace], *, run: str | None = None,
    progress: ProgressCallback | None = None,
) -> int:
    """Index `paths`, and every palace update a run planned and has not done; then drop those to-dos.
    `palace` gives the run's palace (its context's `palace`), opened only when there is something to index.
    `run` names the caller's own journal run. A to-do of another process's run still going is left to that
    run (a second ingest beside a first); every other one was left by a run that was interrupted or failed,
    and is announced to `progress` as a `leftover` event before the work starts.
    Returns how many files those other to-dos held. Raises what the palace raises (Ctrl-C included); the
    to-dos then stay for the next run."""
    todos = [(todo, ps) for todo, ps in state.palace_todos(root) if not state.todo_in_progress(root, todo)]
    wanted = sorted({*paths, *(p for _, ps in todos for p in ps)})
    if not wanted:
        return 0
    leftover = len({p for todo, ps in todos if todo.stem != run for p in ps})
    if leftover and progress is not None:
        progress(ProgressEvent("leftover", 0, leftover, "files"))
    palace().update_paths(wanted, progress=progress)
    for todo, _ in todos:
        state.drop_palace_todo(todo)
    return leftover
