"""State files under `.wikic/` that make ingest idempotent and thresholds real.

- `compiled.json`: raw path -> sha256 and pages written, so an unchanged source costs nothing.
- `mentions.json`: entities and concepts seen below their SCHEMA.md threshold, with what each source said
  about them, promoted to pages when a later source crosses the threshold.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic.llm.storage import read_json
from wikic.vault.layout import STATE_DIR
from wikic.vault.write import write_atomic

COMPILED = "compiled.json"
MENTIONS = "mentions.json"


def _read(path: Path) -> dict[str, Any]:
    data = read_json(path)
    return data if isinstance(data, dict) else {}


@dataclass
class Compiled:
    root: Path
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def load(cls, root: Path) -> Compiled:
        return cls(root, _read(root / STATE_DIR / COMPILED).get("sources", {}))

    def is_current(self, raw_path: str, sha256: str) -> bool:
        entry = self.entries.get(raw_path)
        return bool(entry) and entry.get("sha256") == sha256

    def record(self, raw_path: str, sha256: str, pages: list[str], date: str, **facts: Any) -> None:
        """`facts`: what `wikic status` counts about the compilation (claims dropped by reason, quotes
        repaired, whether nothing was extracted from a source that names things, the strategy used)."""
        self.entries[raw_path] = {"sha256": sha256, "pages": sorted(set(pages)), "compiled": date, **facts}

    def save(self) -> None:
        write_atomic(self.root / STATE_DIR / COMPILED, json.dumps({"version": 1, "sources": self.entries}, indent=1, ensure_ascii=False))


@dataclass
class Mentions:
    """key -> {"kind": entity|concept, "name", "aliases", "summary", "sources": {raw: payload}}"""

    root: Path
    items: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def load(cls, root: Path) -> Mentions:
        return cls(root, _read(root / STATE_DIR / MENTIONS).get("mentions", {}))

    def add(self, key: str, kind: str, name: str, aliases: list[str], summary: str, source: str, payload: Any) -> dict[str, Any]:
        item = self.items.setdefault(key, {"kind": kind, "name": name, "aliases": [], "summary": summary, "sources": {}})
        item["aliases"] = sorted(set(item["aliases"]) | set(aliases))
        if not item.get("summary"):
            item["summary"] = summary
        item["sources"][source] = payload
        return item

    def pop(self, key: str) -> None:
        self.items.pop(key, None)

    def snapshot(self) -> dict[str, dict[str, Any]]:
        """The ledger as it is now, to `restore`. `add` changes an item's own keys and its `sources` map,
        never a payload it has stored, so copying those two levels is enough."""
        return {key: {**item, "sources": dict(item.get("sources") or {})} for key, item in self.items.items()}

    def restore(self, saved: dict[str, dict[str, Any]]) -> None:
        self.items = {key: {**item, "sources": dict(item["sources"])} for key, item in saved.items()}

    def save(self) -> None:
        write_atomic(self.root / STATE_DIR / MENTIONS, json.dumps({"version": 1, "mentions": self.items}, indent=1, ensure_ascii=False))
