"""The mentions ledger's rows (`.wikic/mentions.json`): a name waiting below its SCHEMA.md threshold, and what
each source said of it, typed, read from and written to the file's JSON in this one place.

    "entity:hnsw": {"kind": "entity", "name": "HNSW", "aliases": [...], "summary": "...", "kind_detail": "",
                    "sources": {raw path: what it said}}

What a source said of an entity is {"facts": [claim, ...], "relations": [[relation, target, anchor], ...]} and,
when it remembered something of it, "memories": [[kind, text, anchor, importance, day], ...]; of a concept,
{"sections": {heading: [claim, ...]}}. A claim is [text, anchor, meta]: meta is what the claim carries besides
its text and anchor (`ClaimMeta`, made by `facts.intervals.claim_meta`: the day seen, the interval stated, the
claim it replaces), {"seen": day, "via": how, "by": "sentence", "from": date, "to": date, "replaces": claim,
"years": [the years its quote states]}, each key there only when it says something.

The compiler keeps and changes the ledger (`wikic/compile/mentions.py`); the hubs and the briefing read it.
A row of another shape is left out as the file is read (the ledger is wikic's: nothing else writes it).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic.vault.formats.fields import is_str, split_known
from wikic.vault.formats.memory_items import KINDS
from wikic.vault.state import MENTIONS, read_ledger, write_ledger

LEDGER_KEY = "mentions"  # the map the file holds, beside its version


@dataclass(frozen=True, slots=True)
class ClaimMeta:
    """What a claim carries besides its text and anchor (None: it does not say). The interval and the pairing
    are the model's proposal, checked as the claim is written (`facts.intervals.checked_claim`)."""

    seen: str | None = None  # the day its source was seen (ISO)
    via: str | None = None  # how that day is known (the source's frontmatter, its capture...)
    by: str | None = None  # "sentence": the source's own sentence, found by code
    valid_from: str | None = None  # "from": the start of the interval it states
    valid_to: str | None = None  # "to": its end
    replaces: str | None = None  # the claim it replaces
    years: tuple[str, ...] | None = None  # the years its quote states, kept where it states an interval
    section: str | None = None  # the section it belongs in (a row of an early ledger)
    others: Mapping[str, Any] = field(default_factory=dict)  # keys not read above, as the file has them

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> ClaimMeta:
        known, others = split_known(value, _META)
        if "years" in known:
            known["years"] = tuple(known["years"])
        return cls(**{_META_AS.get(key, key): v for key, v in known.items()}, others=others)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.others)
        for key in _META:
            value = getattr(self, _META_AS.get(key, key))
            if value is not None:
                out[key] = list(value) if key == "years" else value
        return out


_META = {"seen": is_str, "via": is_str, "by": is_str, "from": is_str, "to": is_str, "replaces": is_str,
         "years": lambda v: isinstance(v, list) and all(isinstance(y, str) for y in v), "section": is_str}
_META_AS = {"from": "valid_from", "to": "valid_to"}  # the JSON keys whose field is named otherwise


@dataclass(frozen=True, slots=True)
class ClaimRow:
    """One claim a source states, as the compiler will write it: its text, the anchor of its quote, and its
    bookkeeping (None: a row written before claims carried any)."""

    text: str
    anchor: str
    meta: ClaimMeta | None = None

    @classmethod
    def from_json(cls, row: Any) -> ClaimRow | None:
        if not isinstance(row, list) or len(row) not in (2, 3) or not all(isinstance(v, str) for v in row[:2]):
            return None
        text, anchor, *meta = row
        if not meta:
            return cls(text, anchor)
        return cls(text, anchor, ClaimMeta.from_json(meta[0] if isinstance(meta[0], dict) else {}))

    def to_json(self) -> list[Any]:
        return [self.text, self.anchor] if self.meta is None else [self.text, self.anchor, self.meta.to_json()]

    @property
    def carried(self) -> ClaimMeta:
        """The claim's bookkeeping, empty where the row has none."""
        return self.meta if self.meta is not None else ClaimMeta()


@dataclass(frozen=True, slots=True)
class RelationRow:
    """A relation a source states of its subject: how it relates to `target`, anchored."""

    relation: str
    target: str
    anchor: str

    @classmethod
    def from_json(cls, row: Any) -> RelationRow | None:
        if not isinstance(row, list) or len(row) != 3 or not all(isinstance(v, str) for v in row):
            return None
        return cls(*row)

    def to_json(self) -> list[Any]:
        return [self.relation, self.target, self.anchor]


@dataclass(frozen=True, slots=True)
class MemoryRow:
    """A memory a source holds about a subject, until it lands on the subject's page: its kind (one of
    `memory_items.KINDS`), text, anchor, importance and the day it was said (ISO)."""

    kind: str
    text: str
    anchor: str
    importance: float
    day: str

    @property
    def date(self) -> dt.date:
        return dt.date.fromisoformat(self.day)

    @classmethod
    def from_json(cls, row: Any) -> MemoryRow | None:
        if not isinstance(row, list) or len(row) != 5:
            return None
        kind, text, anchor, importance, day = row
        if kind not in KINDS or not isinstance(text, str) or not isinstance(anchor, str) or not isinstance(day, str) \
                or isinstance(importance, bool) or not isinstance(importance, (int, float)):
            return None
        try:
            dt.date.fromisoformat(day)
        except ValueError:
            return None
        return cls(kind, text, anchor, importance, day)

    def to_json(self) -> list[Any]:
        return [self.kind, self.text, self.anchor, self.importance, self.day]


Sections = tuple[tuple[str, tuple[ClaimRow, ...]], ...]  # (heading, its claims), in the order the source gave them


@dataclass(frozen=True, slots=True)
class Said:
    """What one source said of a name: an entity's facts, relations and memories, or a concept's sections
    (`sections` is None for an entity)."""

    facts: tuple[ClaimRow, ...] = ()
    relations: tuple[RelationRow, ...] = ()
    memories: tuple[MemoryRow, ...] = ()
    sections: Sections | None = None

    @property
    def claims(self) -> Iterator[ClaimRow]:
        """Every claim, an entity's facts or a concept's claims section by section."""
        yield from self.facts
        for _, claims in self.sections or ():
            yield from claims

    @classmethod
    def from_json(cls, value: Any) -> Said | None:
        if not isinstance(value, dict):
            return None
        if "sections" in value:
            given = value["sections"]
            if not isinstance(given, dict):
                return None
            return cls(sections=tuple((str(h), _rows(ClaimRow, claims)) for h, claims in given.items()))
        return cls(_rows(ClaimRow, value.get("facts")), _rows(RelationRow, value.get("relations")),
                   _rows(MemoryRow, value.get("memories")))

    def to_json(self) -> dict[str, Any]:
        if self.sections is not None:
            return {"sections": {heading: [c.to_json() for c in claims] for heading, claims in self.sections}}
        out: dict[str, Any] = {"facts": [c.to_json() for c in self.facts],
                               "relations": [r.to_json() for r in self.relations]}
        if self.memories:
            out["memories"] = [m.to_json() for m in self.memories]
        return out


@dataclass(frozen=True, slots=True)
class Mention:
    """A name waiting for its page: entity or concept, the name as the first source wrote it, its other forms,
    the first lead a source gave it, what each source said (raw path -> `Said`) and the kind of thing it is
    (tags follow it; None: an entry written before the ledger kept it)."""

    kind: str
    name: str
    aliases: tuple[str, ...]
    summary: str
    sources: Mapping[str, Said]
    kind_detail: str | None = None

    @classmethod
    def from_json(cls, value: Any) -> Mention | None:
        if not isinstance(value, dict):
            return None
        kind, name, summary = value.get("kind"), value.get("name"), value.get("summary", "")
        aliases, sources, detail = value.get("aliases", []), value.get("sources"), value.get("kind_detail")
        if not (isinstance(kind, str) and isinstance(name, str) and name and isinstance(summary, str)
                and isinstance(aliases, list) and isinstance(sources, dict)
                and (detail is None or isinstance(detail, str))):
            return None
        said = {str(raw): s for raw, s in ((raw, Said.from_json(v)) for raw, v in sources.items()) if s is not None}
        return cls(kind, name, tuple(str(a) for a in aliases), summary, said, detail)

    def to_json(self) -> dict[str, Any]:
        sources = {raw: said.to_json() for raw, said in self.sources.items()}
        out: dict[str, Any] = {"kind": self.kind, "name": self.name, "aliases": list(self.aliases),
                               "summary": self.summary, "sources": sources}
        if self.kind_detail is not None:
            out["kind_detail"] = self.kind_detail
        return out


def _rows(kind: Any, value: Any) -> tuple[Any, ...]:
    """The rows of the list `value` that read as `kind` (a row class with `from_json`), in order."""
    rows = (kind.from_json(row) for row in value) if isinstance(value, list) else ()
    return tuple(row for row in rows if row is not None)


def mentions_from_json(value: Mapping[str, Any]) -> dict[str, Mention]:
    """The ledger's map (key -> entry JSON) typed; an entry of another shape is left out."""
    return {key: entry for key, entry in ((k, Mention.from_json(v)) for k, v in value.items()) if entry is not None}


def mentions_to_json(items: Mapping[str, Mention]) -> dict[str, Any]:
    return {key: entry.to_json() for key, entry in items.items()}


def read_mentions(root: Path) -> dict[str, Mention]:
    """The mentions ledger of the vault at `root` ({} when it is missing or unreadable)."""
    return mentions_from_json(read_ledger(root, MENTIONS, LEDGER_KEY))


def write_mentions(root: Path, items: Mapping[str, Mention]) -> None:
    write_ledger(root, MENTIONS, LEDGER_KEY, mentions_to_json(items))


def waiting_memories(items: Mapping[str, Mention]) -> Iterator[tuple[str, str, tuple[MemoryRow, ...]]]:
    """(subject, raw source, the memories it said of the subject) for the names of the mentions ledger, by
    key then source."""
    for key in sorted(items):
        entry = items[key]
        for raw in sorted(entry.sources):
            memories = entry.sources[raw].memories
            if memories:
                yield entry.name, raw, memories
