"""What the palace holds, read from its manifest alone: for `wikic status`, which must answer at once.

The manifest (`manifest.py`, SQLite) counts the files and drawers and records the embedding model the
vectors were made with, so nothing here starts the store's process, loads a model or imports anything
but the standard library: it works without the palace extra installed.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from wikic.settings import PalaceSettings

LEXICAL_FILE = "lexical.sqlite3"
# Manifest meta key: the embedder identity (provider, model, dimension) the palace was last written with.
IDENTITY_KEY = "identity"


def manifest_path(settings: PalaceSettings) -> Path:
    """The manifest of the palace these settings name (one per collection, so two vaults sharing a chroma
    server never mix them)."""
    if settings.collection == "wikic_drawers":
        return settings.path / LEXICAL_FILE
    return settings.path / f"lexical-{settings.collection}.sqlite3"


def read_summary(settings: PalaceSettings) -> dict[str, Any] | None:
    """Files, drawers, model and location, as `Palace.status` gives them; None when the manifest cannot
    say (no manifest, or one written before it recorded the model): then only the store knows."""
    path = manifest_path(settings)
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=10.0)
        try:
            row = db.execute("SELECT value FROM meta WHERE key=?", (IDENTITY_KEY,)).fetchone()
            if row is None:
                return None
            files = db.execute("SELECT count(*) FROM files").fetchone()[0]
            drawers = db.execute("SELECT count(*) FROM drawers").fetchone()[0]
        finally:
            db.close()
        identity = json.loads(row[0])
    except (sqlite3.Error, ValueError):
        return None
    if not isinstance(identity, dict):
        return None
    return {
        "files": files,
        "drawers": drawers,
        "model": f"{identity.get('wikic_provider')}:{identity.get('wikic_model')}",
        "dim": identity.get("wikic_dim"),
        "location": settings.url or str(settings.path),
    }
