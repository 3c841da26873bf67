"""Content-addressed cache of validated replies, so an unchanged request never costs a second call.

The key is the sha256 of everything that shapes a reply: endpoint, model and sampling (the client's
`identity`), the messages, the schema and its name, and `max_tokens`. The API key is never part of a
request's identity, so it never reaches the key or the stored file. Entries live in
`.wikic/cache/llm/<2 hex>/<64 hex>.json` and are written atomically; a corrupt entry is a miss.

A batched cache (an ingest run's) writes each reply at once, so another process and the next run see it
even if this one is killed, but leaves the fsyncs to `sync()`, which the run calls between replies and
when its extraction ends: the parallel calls never wait on a disk flush, and the flushes come in batches.
Until then only a power cut can lose a reply (or leave it unreadable: a miss), and that costs one call again.

An entry keeps what its reply cost (the tokens of every attempt it took) and the day it was paid, and, once
a log.md row has counted those tokens, the run that counted them (`mark_counted`): a reply is counted once,
by the first source compile that uses it, also when the run that paid for it wrote nothing (it was stopped,
its source failed, it was a dry run). An entry written before entries kept their cost counts as counted.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from wikic.vault.layout import STATE_DIR
from wikic.vault.state import REPLY_CACHE, json_bytes, read_json, write_json
from wikic.vault.write import sync_files, write_bytes_atomic


@dataclass(frozen=True)
class CachedReply:
    """A stored reply: the reply object, what it cost when it was paid for, whether a log.md row has counted
    that already, and the items the reply had over its schema's limits that were left out of it."""

    data: dict[str, Any]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    paid: str = ""  # YYYY-MM-DD
    counted: bool = True
    left_out: tuple[str, ...] = ()


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
        found = self.lookup(key)
        return found.data if found is not None else None

    def lookup(self, key: str) -> CachedReply | None:
        """The stored reply with what it cost, or None on a miss (or when reading is off)."""
        if not self.read:
            return None
        entry = read_json(self.path(key))
        if not isinstance(entry, dict) or not isinstance(entry.get("data"), dict):
            return None
        cost = entry.get("usage")
        if not isinstance(cost, dict):
            return CachedReply(entry["data"])  # stored before entries kept their cost: nothing left to count
        left_out = entry.get("left_out")
        return CachedReply(
            entry["data"], _count(cost.get("prompt_tokens")), _count(cost.get("completion_tokens")),
            str(entry.get("stored", ""))[:10], counted=bool(entry.get("counted")),
            left_out=tuple(str(item) for item in left_out) if isinstance(left_out, list) else (),
        )

    def put(self, key: str, data: Mapping[str, Any], *, model: str, schema_name: str,
            prompt_tokens: int = 0, completion_tokens: int = 0, left_out: Sequence[str] = ()) -> None:
        """Store a reply, with what it cost (not counted in log.md yet) and the items it left out."""
        entry: dict[str, Any] = {
            "data": dict(data),
            "model": model,
            "schema_name": schema_name,
            "stored": datetime.now(UTC).isoformat(timespec="seconds"),
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
        }
        if left_out:
            entry["left_out"] = list(left_out)
        self._write(self.path(key), entry)

    def mark_counted(self, keys: Iterable[str], run: str) -> None:
        """Record that `run`'s log.md rows counted these replies' tokens, so no later row counts them again."""
        for key in dict.fromkeys(keys):
            path = self.path(key)
            entry = read_json(path)
            if isinstance(entry, dict) and isinstance(entry.get("data"), dict) and not entry.get("counted"):
                self._write(path, {**entry, "counted": run})

    def _write(self, path: Path, entry: Mapping[str, Any]) -> None:
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


def _count(value: Any) -> int:
    """A token count as stored, or 0 for anything that is not one (a hand-edited or damaged entry)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
