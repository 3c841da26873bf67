"""Writing conversations' new turns as transcript parts, and remembering what each part holds, so the same
export costs nothing twice and a grown conversation adds only what it said since.

A conversation from a document (a ChatGPT or Claude.ai conversation, a Slack day, a chat log, a Gemini CLI
session) is compared by turns: the turns already written (their count and a digest of them) are skipped.
An append-only session file (Claude Code, Codex, Gemini CLI JSON Lines) is compared by bytes: what lies
past the last line already read. When a conversation's earlier turns changed (an edited message, another
branch), the whole conversation is written again as a further part: nothing is lost, nothing rewritten.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from wikic.conversations.raw_files import choose_stem, part_path, write_part
from wikic.conversations.turns import parse_time
from wikic.vault.formats.conversations import (
    ConversationEntry,
    ConversationTables,
    ExportEntry,
    read_conversations,
    write_conversations,
)
from wikic.vault.formats.transcript import Conversation, Turn, clean, cleaned, render


class ConversationLedger:
    """What was brought in of each conversation and each export (`vault/formats/conversations.py`: its rows and
    its file), so the same export costs nothing twice and a grown conversation adds only its new turns.
    Changed under `state.conversations_lock`."""

    def __init__(self, root: Path, tables: ConversationTables | None = None) -> None:
        tables = tables if tables is not None else ConversationTables()
        self.root = root
        self.conversations: dict[str, ConversationEntry] = tables.conversations  # "<tool>:<id>" -> entry
        self.exports: dict[str, ExportEntry] = tables.exports  # export sha256 -> entry
        self.sessions: dict[str, str] = tables.sessions  # capture key -> "<tool>:<id>", for captures with no id

    @classmethod
    def load(cls, root: Path) -> ConversationLedger:
        return cls(root, read_conversations(root))

    def save(self) -> None:
        write_conversations(self.root, ConversationTables(self.conversations, self.exports, self.sessions))


def turns_digest(turns: tuple[Turn, ...] | list[Turn]) -> str:
    digest = hashlib.sha256()
    for turn in turns:
        when = turn.when.isoformat() if turn.when else ""
        digest.update(f"{turn.speaker}\0{when}\0{turn.text}\0".encode())
    return digest.hexdigest()


@dataclass
class Added:
    path: str | None  # the part written, or None: nothing new
    key: str  # "<tool>:<id>"


class PartWriter:
    """Writes parts into raw/transcripts/ and records them in the ledger (saved by the caller). What a
    conversation says is written `transcript.clean`: an export's control characters and lone surrogates
    never reach a file."""

    def __init__(self, root: Path, ledger: ConversationLedger, today: datetime | None = None) -> None:
        self.root, self.ledger, self.today = root, ledger, today
        self.stems = {e.stem for e in ledger.conversations.values() if e.stem is not None}
        self.changed = False

    def entry(self, tool: str, ident: str) -> ConversationEntry | None:
        return self.ledger.conversations.get(f"{tool}:{clean(ident)}")

    def add_document(self, conversation: Conversation, export: str, export_sha: str) -> Added:
        """A conversation read whole: writes the turns not written before."""
        conversation = cleaned(conversation)
        entry = self.entry(conversation.tool, conversation.id)
        turns = conversation.turns
        new: tuple[Turn, ...] = turns
        if entry is not None:
            count = entry.turns or 0
            if count <= len(turns) and turns_digest(turns[:count]) == entry.digest:
                new = turns[count:]
        added = self._write(conversation, new, export, export_sha)
        if added.path is not None:
            written = self.ledger.conversations[added.key]
            self.ledger.conversations[added.key] = replace(written, turns=len(turns), digest=turns_digest(turns))
        return added

    def add_lines(self, conversation: Conversation, export: str, export_sha: str, reached: int) -> Added:
        """New turns of an append-only session file, read up to byte `reached` of it."""
        conversation = cleaned(conversation)
        added = self._write(conversation, conversation.turns, export, export_sha)
        entry = self.ledger.conversations.get(added.key)
        if entry is not None and entry.reached != reached:
            turns = (entry.turns or 0) + (len(conversation.turns) if added.path else 0)
            self.ledger.conversations[added.key] = replace(entry, reached=reached, turns=turns)
            self.changed = True
        return added

    def _write(self, conversation: Conversation, new: tuple[Turn, ...], export: str, export_sha: str) -> Added:
        key = f"{conversation.tool}:{conversation.id}"
        entry = self.entry(conversation.tool, conversation.id)
        if not new:
            return Added(None, key)
        stem = entry.stem if entry is not None else None
        if entry is None or stem is None:  # an entry that names no stem has no part to follow
            text = render(conversation, export=export, turns=new)
            stem = choose_stem(self.root, conversation, text, self.stems, self.today)
            self.stems.add(stem)
            started = conversation.started or next((t.when for t in conversation.turns if t.when), None)
            entry = ConversationEntry(stem, conversation.title, parts=(), turns=0, exports=(),
                                      started=started.isoformat() if started else None, extra=dict(conversation.extra))
        # a later part is the same conversation: its title, start and context as the first part gave them
        same = replace(conversation, title=entry.title or conversation.title,
                       started=parse_time(entry.started) or conversation.started,
                       extra={**{k: str(v) for k, v in (entry.extra or {}).items()}, **conversation.extra})
        parts, exports = entry.parts or (), entry.exports or ()
        part = len(parts) + 1
        while True:
            rel = part_path(stem, part)
            try:
                write_part(self.root, rel, render(same, part=part, export=export, turns=new))
                break
            except FileExistsError:
                part += 1  # a part a killed run wrote and never recorded holds other turns: keep it, go on
        exports = exports if export_sha in exports else (*exports, export_sha)
        self.ledger.conversations[key] = replace(entry, parts=(*parts, rel), exports=exports)
        self.changed = True
        return Added(rel, key)
