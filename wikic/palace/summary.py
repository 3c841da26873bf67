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
# The collection's metadata key that every write changes, so readers in other processes know to catch up (the
# manifest keeps the value it was last made for under "generation").
GENERATION_KEY = "wikic_generation"


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
    read = _read_manifest(manifest, counts=False)
    return read[1] if read is not None else None


def read_palace_summary(manifest: Path) -> dict[str, Any] | None:
    """Files, drawers and the embedder identity (`wikic_provider`, `wikic_model`, `wikic_dim`) the manifest
    records, read-only and with the standard library alone (no store process, no model, no palace extra);
    None when it cannot say: no manifest, or one written before it recorded the embedder."""
    read = _read_manifest(manifest, counts=True)
    if read is None or read[1] is None:
        return None
    return {**read[2], **read[1]}


def read_server_summary(host: str, port: int, ssl: bool, collection: str, manifest: Path) -> dict[str, Any] | None:
    """`read_palace_summary` of a palace on a chroma server: the embedder identity from the collection's
    metadata (one HTTP request), the counts from this machine's manifest while it is of the collection's
    current generation (another machine's writes since then leave it behind). None when it cannot say: the
    server does not answer as expected, the collection is missing, the manifest is behind; the caller then
    asks through the store, which says why."""
    import urllib.parse
    import urllib.request

    address = (f"{'https' if ssl else 'http'}://{host}:{port}/api/v2/tenants/default_tenant/databases/"
               f"default_database/collections/{urllib.parse.quote(collection, safe='')}")
    try:
        with urllib.request.urlopen(address, timeout=_SERVER_S) as reply:
            data = json.loads(reply.read(_MAX_REPLY))
    except (OSError, ValueError, RecursionError):
        return None
    meta = data.get("metadata") if isinstance(data, dict) else None
    if not isinstance(meta, dict):
        return None
    read = _read_manifest(manifest, counts=True)
    if read is None or meta.get(GENERATION_KEY) is None or read[0] != meta[GENERATION_KEY]:
        return None
    identity = {key: meta.get(key) for key in ("wikic_provider", "wikic_model", "wikic_dim")}
    return {**read[2], **identity} if identity["wikic_model"] else None


_SERVER_S = 5.0  # a chroma server that has not answered by then is asked through the store
_MAX_REPLY = 1 << 20  # bytes of a collection's description read


def _read_manifest(manifest: Path, *, counts: bool) -> tuple[str | None, dict[str, Any] | None, dict[str, int]] | None:
    """(the generation the manifest was last made for, the embedder identity it records, and with `counts`
    its files and drawers), read-only; None when there is no manifest or it cannot be read."""
    import sqlite3

    if not manifest.is_file():
        return None
    try:
        db = sqlite3.connect(f"{manifest.resolve().as_uri()}?mode=ro", uri=True, timeout=10.0)
        try:
            meta = dict(db.execute("SELECT key, value FROM meta WHERE key IN (?, ?)", (PALACE_IDENTITY, "generation")))
            sizes = {"files": db.execute("SELECT count(*) FROM files").fetchone()[0],
                     "drawers": db.execute("SELECT count(*) FROM drawers").fetchone()[0]} if counts else {}
        finally:
            db.close()
        identity = json.loads(meta[PALACE_IDENTITY]) if PALACE_IDENTITY in meta else None
    except (sqlite3.Error, ValueError, TypeError, RecursionError):
        return None
    return meta.get("generation"), identity if isinstance(identity, dict) else None, sizes
