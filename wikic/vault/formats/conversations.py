"""The conversations ledger's rows (`.wikic/conversations.json`): what was brought in of each conversation and
each export, typed, read from and written to the file's JSON in this one place.

    "conversations": {"<tool>:<id>": {"stem": "2026-11-30-claude-code-...", "title": "...", "parts": [raw paths],
                      "turns": 12, "digest": "...", "bytes": 4096, "exports": [export sha256],
                      "started": "2026-11-30T09:00:00+00:00", "extra": {"cwd": "..."}}}
    "exports":       {export sha256: {"path": where it is kept, "tool": "chatgpt", "done": true,
                      "conversations": 3, "transcripts": [raw paths made from it]}}
    "sessions":      {capture key (a session file's): "<tool>:<id>"}

`digest` is the sha256 of the turns written, for a conversation compared by turns; `bytes` how far into an
append-only session file (JSON Lines) its parts reach. The conversations package keeps and changes the ledger
(`wikic/conversations/ledger.py`); the palace, ingest's pending sources and `wikic status` read which exports it
keeps. An entry that is no JSON object (a session that names no conversation) is left out as the file is read;
a key this version does not know, or one of another type, is kept as it was read and written back unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic.vault.formats.fields import is_bool, is_int, is_str, split_known
from wikic.vault.state import CONVERSATIONS, read_state, state_path, write_json


def _paths(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(p, str) for p in value)


@dataclass(frozen=True, slots=True)
class ConversationEntry:
    """What was brought in of one conversation: the name its transcript parts share, the parts written, and
    how much of the conversation they hold (None: the entry does not say)."""

    stem: str | None = None  # the transcript's name without its part suffix
    title: str | None = None
    parts: tuple[str, ...] | None = None  # raw paths, in order
    turns: int | None = None  # turns written
    digest: str | None = None  # sha256 of those turns
    reached: int | None = None  # bytes of an append-only session file the parts hold ("bytes")
    exports: tuple[str, ...] | None = None  # the sha256 of each export it came in
    started: str | None = None  # when it started (ISO), as the first part gave it
    extra: Mapping[str, Any] | None = None  # the context the first part gave (a session's folder...)
    others: Mapping[str, Any] = field(default_factory=dict)  # keys not read above, as the file has them

    @classmethod
    def from_json(cls, value: Any) -> ConversationEntry | None:
        if not isinstance(value, dict):
            return None
        known, others = split_known(value, _CONVERSATION)
        for key in ("parts", "exports"):
            if key in known:
                known[key] = tuple(known[key])
        if "bytes" in known:
            known["reached"] = known.pop("bytes")
        return cls(**known, others=others)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.others)
        for key in _CONVERSATION:
            value = getattr(self, "reached" if key == "bytes" else key)
            if value is not None:
                out[key] = list(value) if key in ("parts", "exports") else dict(value) if key == "extra" else value
        return out


_CONVERSATION = {"stem": is_str, "title": is_str, "parts": _paths, "turns": is_int, "digest": is_str,
                 "bytes": is_int, "exports": _paths, "started": is_str, "extra": lambda v: isinstance(v, dict)}


@dataclass(frozen=True, slots=True)
class ExportEntry:
    """One export read (a ChatGPT or Slack download, a session file dropped into raw/, the lines `wikic capture`
    queued): where it is kept, the tool it came from, whether every conversation in it was brought in, how
    many were, and the transcripts made from it."""

    path: str | None = None
    tool: str | None = None
    done: bool | None = None
    conversations: int | None = None
    transcripts: tuple[str, ...] | None = None
    others: Mapping[str, Any] = field(default_factory=dict)  # keys not read above, as the file has them

    @classmethod
    def from_json(cls, value: Any) -> ExportEntry | None:
        if not isinstance(value, dict):
            return None
        known, others = split_known(value, _EXPORT)
        if "transcripts" in known:
            known["transcripts"] = tuple(known["transcripts"])
        return cls(**known, others=others)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.others)
        for key in _EXPORT:
            value = getattr(self, key)
            if value is not None:
                out[key] = list(value) if key == "transcripts" else value
        return out


_EXPORT = {"path": is_str, "tool": is_str, "done": is_bool, "conversations": is_int, "transcripts": _paths}


@dataclass(frozen=True, slots=True)
class ConversationTables:
    """The ledger's three maps, typed: conversation key -> entry, export sha256 -> entry, capture key ->
    conversation key."""

    conversations: dict[str, ConversationEntry] = field(default_factory=dict)
    exports: dict[str, ExportEntry] = field(default_factory=dict)
    sessions: dict[str, str] = field(default_factory=dict)

    def kept_exports(self, *, done: bool = False) -> set[str]:
        """Where the exports read are kept (`done`: only those every conversation of which was brought in).
        A kept export is no source: the transcripts made from it are."""
        return {e.path for e in self.exports.values() if e.path is not None and (e.done or not done)}


def conversations_from_json(data: Any) -> ConversationTables:
    """The ledger file's JSON typed; an entry of another shape is left out."""
    data = data if isinstance(data, dict) else {}

    def table(key: str) -> dict[str, Any]:
        value = data.get(key)
        return value if isinstance(value, dict) else {}

    conversations = ((k, ConversationEntry.from_json(v)) for k, v in table("conversations").items())
    exports = ((k, ExportEntry.from_json(v)) for k, v in table("exports").items())
    return ConversationTables({k: e for k, e in conversations if e is not None},
                              {k: e for k, e in exports if e is not None},
                              {k: v for k, v in table("sessions").items() if isinstance(v, str)})


def conversations_to_json(ledger: ConversationTables) -> dict[str, Any]:
    return {"version": 1, "conversations": {k: e.to_json() for k, e in ledger.conversations.items()},
            "exports": {k: e.to_json() for k, e in ledger.exports.items()}, "sessions": dict(ledger.sessions)}


def read_conversations(root: Path) -> ConversationTables:
    """The conversations ledger of the vault at `root` (empty when it is missing or unreadable)."""
    return conversations_from_json(read_state(root, CONVERSATIONS))


def write_conversations(root: Path, ledger: ConversationTables) -> None:
    write_json(state_path(root, CONVERSATIONS), conversations_to_json(ledger), root=root)
