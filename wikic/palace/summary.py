"""What `wikic status` and query's retrieval read of a palace without opening it: where its manifest is,
how many files it indexes, and the embedder it was last written with. The standard library alone (no store
process, no model, no palace extra): the package's other modules write these files (`manifest.py`,
`palace.py`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PALACE_MANIFEST = "lexical.sqlite3"
PALACE_IDENTITY = "identity"  # the manifest's meta key for the embedder the palace was last written with


def palace_manifest(palace_dir: Path, collection: str) -> Path:
    """The palace manifest of a collection (one per collection, so two vaults sharing a chroma server never
    mix them)."""
    if collection == "wikic_drawers":
        return palace_dir / PALACE_MANIFEST
    return palace_dir / f"lexical-{collection}.sqlite3"


def palace_files_indexed(manifest: Path) -> int | None:
    """How many files the palace manifest records (0: none, no manifest included); None when it cannot be
    read. Read-only, with the standard library alone."""
    import sqlite3

    if not manifest.is_file():
        return 0
    try:
        db = sqlite3.connect(f"{manifest.resolve().as_uri()}?mode=ro", uri=True, timeout=10.0)
        try:
            return int(db.execute("SELECT count(*) FROM files").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return None


def recorded_identity(manifest: Path) -> dict[str, Any] | None:
    """The embedder identity the manifest records, read-only (None: no manifest, none recorded, or one that
    cannot be read): a search compares it with the configured embedder before loading that one."""
    import sqlite3

    if not manifest.is_file():
        return None
    try:
        db = sqlite3.connect(f"{manifest.resolve().as_uri()}?mode=ro", uri=True, timeout=10.0)
        try:
            row = db.execute("SELECT value FROM meta WHERE key=?", (PALACE_IDENTITY,)).fetchone()
        finally:
            db.close()
        identity = json.loads(row[0]) if row is not None else None
    except (sqlite3.Error, ValueError, TypeError):
        return None
    return identity if isinstance(identity, dict) else None


def read_palace_summary(manifest: Path) -> dict[str, Any] | None:
    """Files, drawers and the embedder identity (`wikic_provider`, `wikic_model`, `wikic_dim`) the manifest
    records, read-only and with the standard library alone (no store process, no model, no palace extra);
    None when it cannot say: no manifest, or one written before it recorded the embedder."""
    import sqlite3

    if not manifest.is_file():
        return None
    try:
        db = sqlite3.connect(f"{manifest.resolve().as_uri()}?mode=ro", uri=True, timeout=10.0)
        try:
            row = db.execute("SELECT value FROM meta WHERE key=?", (PALACE_IDENTITY,)).fetchone()
            if row is None:
                return None
            files = db.execute("SELECT count(*) FROM files").fetchone()[0]
            drawers = db.execute("SELECT count(*) FROM drawers").fetchone()[0]
        finally:
            db.close()
        identity = json.loads(row[0])
    except (sqlite3.Error, ValueError):
        return None
    return {"files": files, "drawers": drawers, **identity} if isinstance(identity, dict) else None
