"""The palace: the wiki's memory. Every page and raw source, chunked into drawers, embedded and indexed.

Public API (what ingest, query and the CLI call):

    palace = open_palace(vault)                  # settings from VAULT/wikic.toml + environment
    report = palace.sync(rebuild=False)          # whole vault; only changed drawers are embedded
    report = palace.update_paths(["entities/x.md", "raw/articles/y.md"])   # just these files
    hits = search(palace, "question", k=10, wing=None, tag=None, path=None)
    sync(vault) / update_paths(vault, paths) / search_vault(vault, query, ...)   # one-shot helpers

It needs the `palace` extra: importing the package needs numpy (which the `llm` extra brings too, for the
packaged embedders ingest compares memories with), and a `Palace` needs the rest (chromadb). A missing
extra is reported as `MissingExtra`. What `wikic status` shows of a palace is read from its manifest
without this package (`wikic.vault.state.read_palace_summary`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from wikic.errors import require_extra

require_extra("palace", only=("numpy",))  # before the imports below need it

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


def sync(vault: Path, *, rebuild: bool = False, progress: ProgressCallback | None = None) -> SyncReport:
    """Index the whole vault (incrementally unless `rebuild`); `progress` receives `embed` events."""
    with open_palace(vault) as palace:
        return palace.sync(rebuild=rebuild, progress=progress)


def update_paths(vault: Path, paths: Iterable[str | Path], *, progress: ProgressCallback | None = None) -> SyncReport:
    """Re-index the given files after they were written, moved or deleted."""
    with open_palace(vault) as palace:
        return palace.update_paths(paths, progress=progress)


def search_vault(
    vault: Path, query: str, k: int = 10, *, wing: str | None = None, tag: str | None = None, path: str | None = None
) -> list[SearchHit]:
    """Search once; long-running callers should keep a Palace open and call `search` instead."""
    with open_palace(vault) as palace:
        return search(palace, query, k, wing=wing, tag=tag, path=path)
