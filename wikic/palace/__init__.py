"""The palace: the wiki's memory. Every page and raw source, chunked into drawers, embedded and indexed.

Public API (what ingest, query and the CLI call):

    palace = open_palace(vault)                  # settings from VAULT/wikic.toml + environment
    report = palace.sync(rebuild=False)          # whole vault; only changed drawers are embedded
    report = palace.update_paths(["entities/x.md", "raw/articles/y.md"])   # just these files
    hits = search(palace, "question", k=10, wing=None, tag=None, path=None)
    sync(vault) / update_paths(vault, paths) / search_vault(vault, query, ...)   # one-shot helpers

The palace needs the `palace` extra (chromadb, numpy, the packaged embedders). The names above are
imported when first used, and that is where a missing extra is reported (`MissingExtra`); the modules that
need no extra (`summary.py`, what `wikic status` reads) can be imported without it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikic.errors import require_extra

if TYPE_CHECKING:
    from wikic.palace.batch import search_batch
    from wikic.palace.palace import Palace, SyncReport, open_palace
    from wikic.palace.search import SearchHit, search
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
    "SearchHit": "wikic.palace.search",
    "search": "wikic.palace.search",
    "search_batch": "wikic.palace.batch",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    require_extra("palace")
    return getattr(importlib.import_module(module), name)


def sync(vault: Path, *, rebuild: bool = False, progress: ProgressCallback | None = None) -> SyncReport:
    """Index the whole vault (incrementally unless `rebuild`); `progress` receives `embed` events."""
    require_extra("palace")
    from wikic.palace.palace import open_palace

    with open_palace(vault) as palace:
        return palace.sync(rebuild=rebuild, progress=progress)


def update_paths(vault: Path, paths: Iterable[str | Path], *, progress: ProgressCallback | None = None) -> SyncReport:
    """Re-index the given files after they were written, moved or deleted."""
    require_extra("palace")
    from wikic.palace.palace import open_palace

    with open_palace(vault) as palace:
        return palace.update_paths(paths, progress=progress)


def search_vault(
    vault: Path, query: str, k: int = 10, *, wing: str | None = None, tag: str | None = None, path: str | None = None
) -> list[SearchHit]:
    """Search once; long-running callers should keep a Palace open and call `search` instead."""
    require_extra("palace")
    from wikic.palace.palace import open_palace
    from wikic.palace.search import search

    with open_palace(vault) as palace:
        return search(palace, query, k, wing=wing, tag=tag, path=path)
