"""Content-addressed cache of validated replies, so an unchanged request never costs a second call.

The key is the sha256 of everything that shapes a reply: endpoint, model and sampling (the client's
`identity`), the messages, the schema and its name, and `max_tokens`. The API key is never part of a
request's identity, so it never reaches the key or the stored file. Entries live in
`.wikic/cache/llm/<2 hex>/<64 hex>.json` and are written atomically; a corrupt entry is a miss.

A batched cache (an ingest run's) writes each reply at once, so another process and the next run see it
even if this one is killed, but leaves the fsyncs to `sync()`, which the run calls between replies and
when its extraction ends: the parallel calls never wait on a disk flush, and the flushes come in batches.
Until then only a power cut can lose a reply (or leave it unreadable: a miss), and that costs one call again.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from wikic.vault.layout import STATE_DIR
from wikic.vault.state import REPLY_CACHE, json_bytes, read_json, write_json
from wikic.vault.write import sync_files, write_bytes_atomic


class ReplyCache:
    """`read=False` is `--no-cache`: never answer from the cache, but still store fresh replies.
    `batched=True`: replies are made durable by `sync()`, not one by one (see above)."""

    def __init__(self, root: Path, *, vault: Path | None = None, read: bool = True, batched: bool = False) -> None:
        self.root = root
        self.vault = vault or root  # every entry stays inside it (no folder on the way may lead out)
        self.read = read
        self.batched = batched
        self._unsynced: list[Path] = []
        self._lock = threading.Lock()  # puts come from the threads of parallel calls

    @classmethod
    def for_vault(cls, vault: Path, *, read: bool = True, batched: bool = False) -> ReplyCache:
        return cls(Path(vault) / STATE_DIR / REPLY_CACHE, vault=vault, read=read, batched=batched)

    @staticmethod
    def key(
        identity: Mapping[str, Any],
        messages: Sequence[Mapping[str, str]],
        schema_name: str,
        schema: Mapping[str, Any],
        max_tokens: int,
    ) -> str:
        payload = {
            "identity": dict(identity),
            "messages": [dict(m) for m in messages],
            "schema_name": schema_name,
            "schema": schema,
            "params": {"max_tokens": max_tokens},
        }
        canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored reply object, or None on a miss (or when reading is off)."""
        if not self.read:
            return None
        entry = read_json(self.path(key))
        if not isinstance(entry, dict) or not isinstance(entry.get("data"), dict):
            return None
        data: dict[str, Any] = entry["data"]
        return data

    def put(self, key: str, data: Mapping[str, Any], *, model: str, schema_name: str) -> None:
        entry = {
            "data": dict(data),
            "model": model,
            "schema_name": schema_name,
            "stored": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        path = self.path(key)
        if not self.batched:
            write_json(path, entry, root=self.vault, private=True)
            return
        write_bytes_atomic(path, json_bytes(entry), root=self.vault, durable=False, private=True)
        with self._lock:
            self._unsynced.append(path)

    def sync(self) -> None:
        """Make every reply stored since the last sync durable."""
        with self._lock:
            paths, self._unsynced = self._unsynced, []
        if paths:
            sync_files(paths)
