"""The palace: the wiki's memory. Every page and raw source, chunked into drawers, embedded and indexed.

Public API (what ingest, query and the CLI call):

    palace = open_palace(vault)                  # settings from VAULT/wikic.toml + environment
    report = palace.sync(rebuild=False)          # whole vault; only changed drawers are embedded
    report = palace.update_paths(["entities/x.md", "raw/articles/y.md"])   # just these files
    hits = search(palace, "question", k=10, wing=None, tag=None, path=None)
    sync(vault) / update_paths(vault, paths) / search_vault(vault, query, ...)   # one-shot helpers

The package is lazy: importing it (or `summary.py`, what `wikic status` reads of a palace with the standard
library alone) needs no extra. The names above need the `palace` extra: the first use of one checks that
numpy (which the `llm` extra brings too) can be imported, and a `Palace` needs the rest (chromadb); a missing
extra is reported as `MissingExtra`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikic.errors import require_extra

if TYPE_CHECKING:
    from wikic.palace.batch import search_batch
    from wikic.palace.hybrid import SearchHit, search
    from wikic.palace.palace import Palace, SyncReport, open_palace
    from wikic.progress import ProgressCallback

__all__ = [
    "Palace",
    "SearchHit",
    "SyncReport",
    "open_palace",
    "search",
    "search_batch",
    "search_vault",
    "sync",
    "update_paths",
]

_LAZY = {
    "Palace": "wikic.palace.palace",
    "SyncReport": "wikic.palace.palace",
    "open_palace": "wikic.palace.palace",
    "SearchHit": "wikic.palace.hybrid",
    "search": "wikic.palace.hybrid",
    "search_batch": "wikic.palace.batch",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    require_extra("palace", only=("numpy",))  # before the modules that need it are imported
    return getattr(importlib.import_module(module), name)


def sync(vault: Path, *, rebuild: bool = False, progress: ProgressCallback | None = None) -> SyncReport:
    """Index the whole vault (incrementally unless `rebuild`); `progress` receives `embed` events."""
    with __getattr__("open_palace")(vault) as palace:
        return palace.sync(rebuild=rebuild, progress=progress)


def update_paths(vault: Path, paths: Iterable[str | Path], *, progress: ProgressCallback | None = None) -> SyncReport:
    """Re-index the given files after they were written, moved or deleted."""
    with __getattr__("open_palace")(vault) as palace:
        return palace.update_paths(paths, progress=progress)


def search_vault(
    vault: Path, query: str, k: int = 10, *, wing: str | None = None, tag: str | None = None, path: str | None = None
) -> list[SearchHit]:
    """Search once; long-running callers should keep a Palace open and call `search` instead."""
    with __getattr__("open_palace")(vault) as palace:
        return __getattr__("search")(palace, query, k, wing=wing, tag=tag, path=path)
