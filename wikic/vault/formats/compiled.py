"""The compiled ledger's rows (`.wikic/compiled.json`): what each source compiled to, typed, read from and
written to the file's JSON in this one place.

    "raw/articles/x.md": {"sha256": "...", "pages": [...], "compiled": "2026-01-02", "strategy": "whole",
                          "dropped": {reason: n}, "repaired": 0, "sentences": 0, "nothing_extracted": false,
                          "superseded": 0, "refused": 0, "names_refused": {reason: n},
                          "aliases_refused": {reason: n}}

An entry rebuilt from the pages (`wikic/ingest/rebuild.py`) says `"rebuilt": true` and counts nothing.
Ingest keeps and changes the ledger (`wikic/ingest/compiled.py`); the hubs and `wikic status` read it. An
entry that is no JSON object is left out as the file is read; a key this version does not know, or one of
another type, is kept as it was read and written back unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic.vault.formats.fields import is_bool, is_int, is_str, split_known
from wikic.vault.state import COMPILED, read_ledger, write_ledger

LEDGER_KEY = "sources"  # the map the file holds, beside its version


@dataclass(frozen=True, slots=True)
class CompiledEntry:
    """What one source compiled to: its sha256 then, the pages written and the day, and what `wikic status`
    counts about the compilation (None: the entry does not say)."""

    sha256: str | None
    pages: tuple[str, ...] | None = None
    compiled: str | None = None  # the day it was compiled
    strategy: str | None = None  # how the model was asked
    dropped: Mapping[str, int] | None = None  # claims dropped, by reason
    repaired: int | None = None  # quotes snapped to the source span they nearly copied
    sentences: int | None = None  # the source's own sentences found by code for names the model could not quote
    nothing_extracted: bool | None = None  # the source names things and the model proposed none of them
    superseded: int | None = None
    refused: int | None = None  # pairings refused
    rebuilt: bool | None = None  # rebuilt from the pages, not compiled
    names_refused: Mapping[str, int] | None = None  # names refused, by reason
    aliases_refused: Mapping[str, int] | None = None  # aliases refused, by reason
    others: Mapping[str, Any] = field(default_factory=dict)  # keys not read above, as the file has them

    @classmethod
    def from_json(cls, value: Any) -> CompiledEntry | None:
        if not isinstance(value, dict):
            return None
        read, others = split_known(value, _FIELDS)
        if "pages" in read:
            read["pages"] = tuple(read["pages"])
        return cls(sha256=read.pop("sha256", None), **read, others=others)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.others)
        for key in _FIELDS:
            value = getattr(self, key)
            if value is not None:
                out[key] = list(value) if key == "pages" else dict(value) if key in _BY_REASON else value
        return out


def _by_reason(value: Any) -> bool:
    return isinstance(value, dict) and all(type(n) is int for n in value.values())


_FIELDS = {
    "sha256": is_str,
    "pages": lambda v: isinstance(v, list) and all(isinstance(p, str) for p in v),
    "compiled": is_str,
    "strategy": is_str,
    "dropped": _by_reason,
    "repaired": is_int,
    "sentences": is_int,
    "nothing_extracted": is_bool,
    "superseded": is_int,
    "refused": is_int,
    "rebuilt": is_bool,
    "names_refused": _by_reason,
    "aliases_refused": _by_reason,
}
_BY_REASON = ("dropped", "names_refused", "aliases_refused")


def compiled_from_json(value: Mapping[str, Any]) -> dict[str, CompiledEntry]:
    """The ledger's map (raw path -> entry JSON) typed; an entry that is no JSON object is left out."""
    typed = ((raw, CompiledEntry.from_json(entry)) for raw, entry in value.items())
    return {raw: entry for raw, entry in typed if entry is not None}


def compiled_to_json(entries: Mapping[str, CompiledEntry]) -> dict[str, Any]:
    return {raw: entry.to_json() for raw, entry in entries.items()}


def read_compiled(root: Path) -> dict[str, CompiledEntry]:
    """The compiled ledger of the vault at `root` ({} when it is missing or unreadable)."""
    return compiled_from_json(read_ledger(root, COMPILED, LEDGER_KEY))


def write_compiled(root: Path, entries: Mapping[str, CompiledEntry]) -> None:
    write_ledger(root, COMPILED, LEDGER_KEY, compiled_to_json(entries))
