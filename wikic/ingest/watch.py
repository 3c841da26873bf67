"""`wikic watch`: compile what arrives, as it arrives. It watches raw/ (a file dropped there) and the
capture queue (what hooks queue), waits until the changes settle (debounced), then runs the same ingest
as `wikic ingest` with no argument: the queue becomes transcripts and every uncompiled raw file compiles,
under the vault lock like any other writer. Ctrl-C stops it between runs or inside one (an interrupted
ingest is finished by the next run, as always).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from wikic.context import VaultContext
from wikic.errors import WikicError
from wikic.ingest.pipeline import IngestOptions, IngestReport, ingest
from wikic.llm.client import LLM
from wikic.vault.layout import RAW_DIR, is_export, require_vault
from wikic.vault.state import CAPTURE_QUEUE, state_path

DEBOUNCE_MS = 1500  # a burst of files (an export unpacking, eight sessions ending) is one run


def watch(vault: VaultContext | Path, on_run: Callable[[IngestReport | WikicError], None], *, llm: LLM | None = None,
          stop: threading.Event | None = None, debounce_ms: int = DEBOUNCE_MS, use_palace: bool = True,
          on_start: Callable[[], None] | None = None) -> None:
    """Run an ingest now (to catch up), then after every settled batch of changes, until `stop` is set
    (or Ctrl-C: KeyboardInterrupt propagates). `on_run` gets each run's report, or the error that stopped
    a run (the watch goes on: the next change tries again). `on_start` is called once the vault and its
    configuration passed their checks, just before the first run: a watch that cannot start raises first."""
    with VaultContext.using(vault) as context:
        _watch(context, on_run, llm, stop, debounce_ms, use_palace, on_start)


def _watch(context: VaultContext, on_run: Callable[[IngestReport | WikicError], None], llm: LLM | None,
           stop: threading.Event | None, debounce_ms: int, use_palace: bool,
           on_start: Callable[[], None] | None) -> None:
    from watchfiles import watch as watch_changes  # imported here: other commands never need it

    root = Path(context.root).resolve()
    require_vault(root)
    context.checked_schema()  # as are a SCHEMA.md it cannot read and a bad wikic.toml: they stop it before it starts
    llm = llm or context.llm()
    queue = state_path(root, CAPTURE_QUEUE)
    for folder in (root / RAW_DIR, queue):
        folder.mkdir(parents=True, exist_ok=True)

    def run() -> None:
        try:
            report = ingest(context, IngestOptions(use_palace=use_palace), llm=llm)
        except WikicError as exc:
            on_run(exc)
            return
        on_run(report)
        if report.interrupted:
            raise KeyboardInterrupt  # Ctrl-C during the run stopped the run; it stops the watch too

    def relevant(_change: object, path: str) -> bool:
        rel = Path(path)
        if rel.name.startswith(".") or rel.suffix == ".tmp":
            return False  # a file still being written under a temporary name
        try:
            vault_rel = rel.resolve().relative_to(root).as_posix()
        except ValueError:
            return False
        return (vault_rel.startswith(f"{RAW_DIR}/") and not is_export(vault_rel)) or rel.parent == queue

    if on_start is not None:
        on_start()
    run()
    for _changes in watch_changes(root / RAW_DIR, queue, watch_filter=relevant, debounce=debounce_ms,
                                  stop_event=stop, rust_timeout=500, yield_on_timeout=False):
        run()
        if stop is not None and stop.is_set():
            break
