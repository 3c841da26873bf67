"""The extraction plan: what the model proposes for one source, and the anchored plan the compiler consumes.

Two layers, on purpose:
- `ChunkPlan` and its parts are the *wire* model: pydantic, `extra="forbid"`, every list and string capped.
  Its JSON schema is what the model decodes under; the caps keep small models under a grammar from
  looping, and keep a reply inside `max_output_tokens`. A server that does not hold a reply to the schema
  lets a list run past its cap: the reply keeps the items whose quotes the window writes most, and the
  report names the rest (`extract/limits.py`). The names-first strategy builds its chunk plan from
  replies each within its own caps, and keeps every name it found, past `MAX_ENTITIES` too.
- `Plan`, `Entity`, `Fact`... are the *merged, anchored* result: frozen dataclasses without caps (merging
  chunk plans can exceed them), where every fact keeps its verbatim quote and, when the quote was found in
  the raw text, an `Anchor` (`raw/articles/x.md:L12-L14`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from wikic.vault.formats.memory_items import MemoryKind

# ---------------------------------------------------------------------------------------------------------
# Wire model (what the LLM returns for one chunk)

Name = Annotated[str, Field(min_length=1, max_length=80)]
Short = Annotated[str, Field(max_length=60)]
Summary = Annotated[str, Field(max_length=300, description="one sentence of what the source says that names the "
                                                            "item and says what it is (\"X is a ...\")")]
Quote = Annotated[
    str,
    Field(max_length=300, description="copied character for character from the source: no paraphrase, no ellipsis"),
]

MAX_ENTITIES = 12
MAX_CONCEPTS = 8
MAX_COMPARISONS = 3
MAX_RELATIONS = 20


class _Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


PartialDate = Annotated[
    str | None,
    Field(max_length=10, description="YYYY, YYYY-MM or YYYY-MM-DD, only when the quote states it; else null"),
]


class WireFact(_Wire):
    text: Annotated[str, Field(min_length=1, max_length=300, description="one self-contained claim")]
    quote: Quote
    # Time and change: optional, so a plan from before they existed (or a model that ignores them) is valid.
    valid_from: PartialDate = None  # when what the claim says began to hold
    valid_to: PartialDate = None  # when it stopped holding
    replaces: Annotated[
        str | None,
        Field(
            max_length=12,
            description="the id of a listed existing claim that this claim gives a new value for "
            "(same subject, same attribute, different value); else null",
        ),
    ] = None


class WireEntity(_Wire):
    name: Name
    kind: Annotated[
        str, Field(max_length=40, description="person, organization, product, model, dataset, place, event, other")
    ]
    aliases: Annotated[list[Name], Field(max_length=4)]
    summary: Summary
    facts: Annotated[list[WireFact], Field(max_length=6)]


class WireSection(_Wire):
    heading: Name
    facts: Annotated[list[WireFact], Field(max_length=5)]


class WireConcept(_Wire):
    name: Name
    summary: Summary
    sections: Annotated[list[WireSection], Field(max_length=5)]


class WireCell(_Wire):
    subject: Name
    value: Annotated[str, Field(min_length=1, max_length=200)]
    quote: Quote


class WireAxis(_Wire):
    axis: Name
    values: Annotated[list[WireCell], Field(max_length=5)]


class WireComparison(_Wire):
    name: Name
    subjects: Annotated[list[Name], Field(max_length=5)]  # fewer than 2: dropped at merge, not re-asked
    axes: Annotated[list[WireAxis], Field(max_length=6)]


class WireRelation(_Wire):
    source: Name
    relation: Annotated[str, Field(min_length=1, max_length=60, description="a short verb phrase, e.g. 'developed by'")]
    target: Name
    quote: Quote


class ChunkPlan(_Wire):
    """The reply for one chunk of one source."""

    summary: Annotated[str, Field(max_length=500, description="what this part of the source is about")]
    entities: Annotated[list[WireEntity], Field(max_length=MAX_ENTITIES)]
    concepts: Annotated[list[WireConcept], Field(max_length=MAX_CONCEPTS)]
    comparisons: Annotated[list[WireComparison], Field(max_length=MAX_COMPARISONS)]
    relations: Annotated[list[WireRelation], Field(max_length=MAX_RELATIONS)]


SCHEMA_NAME = "wikic_source_plan"

# Transcripts (conversations) are asked for memories too: what the assistant should remember of the
# conversation, each with the verbatim quote of the turn it comes from. Articles keep the schema above.
MAX_MEMORIES = 12


class WireMemory(_Wire):
    kind: Annotated[
        MemoryKind,
        Field(description="persona: who the user is, their preferences; episodic: what happened or was decided; "
                          "instruction: how the user wants things done; lesson: a lesson learned"),
    ]
    text: Annotated[str, Field(min_length=1, max_length=300, description="the memory, one self-contained sentence")]
    quote: Quote
    # no bounds in the schema (not every server's grammar takes them): the merge clamps it to 0..1
    importance: Annotated[float, Field(description="from 0 (trivial) to 1 (essential to remember)")]
    subject: Annotated[
        str,
        Field(
            min_length=1, max_length=80, description="whom or what it is about: the user, a project, a tool, a person"
        ),
    ]


class TranscriptPlan(ChunkPlan):
    """The reply for one chunk of a transcript: the plan of any source, and the memories."""

    memories: Annotated[list[WireMemory], Field(max_length=MAX_MEMORIES)]


class MemoriesPlan(_Wire):
    """The two-pass strategy's last ask for a transcript chunk: its memories alone."""

    memories: Annotated[list[WireMemory], Field(max_length=MAX_MEMORIES)]


TRANSCRIPT_SCHEMA_NAME = "wikic_transcript_plan"
MEMORIES_SCHEMA_NAME = "wikic_transcript_memories"

# The two-pass strategy for small models: first the names in a chunk (short and cheap), then, for a few
# names at a time, the claims about them. Every field is one a small model can fill from the text: no
# summary to invent (a page's summary comes from its first claim), no kind from a closed list.
MAX_NAMES = 30
NAMES_PER_ASK = 4


class WireName(_Wire):
    name: Annotated[str, Field(min_length=1, max_length=80, description="the name exactly as the source writes it")]
    kind: Annotated[
        str,
        Field(
            max_length=40,
            description="what it is, in a word or two: a person, a company, a product, a model, a method...",
        ),
    ]


class NamesPlan(_Wire):
    """Pass one: the named things in one chunk."""

    names: Annotated[list[WireName], Field(max_length=MAX_NAMES)]


class WireClaims(_Wire):
    name: Name
    facts: Annotated[list[WireFact], Field(max_length=8)]


class ClaimsPlan(_Wire):
    """Pass two: what the chunk says about a few of its names."""

    items: Annotated[list[WireClaims], Field(max_length=NAMES_PER_ASK)]


NAMES_SCHEMA_NAME = "wikic_source_names"
CLAIMS_SCHEMA_NAME = "wikic_source_claims"

# ---------------------------------------------------------------------------------------------------------
# Merged, anchored plan (what the compiler consumes)


@dataclass(frozen=True)
class Anchor:
    """Where a quote sits in the raw text file: vault-relative path and 1-based inclusive line range."""

    path: str
    start_line: int
    end_line: int

    def __str__(self) -> str:
        if self.start_line == self.end_line:
            return f"{self.path}:L{self.start_line}"
        return f"{self.path}:L{self.start_line}-L{self.end_line}"


# Why a claim is not written: its quote is not in the source, or the quote does not state what the
# claim says (a number, date, version or name of the claim missing from it).
NO_QUOTE = "no quote"
UNSUPPORTED = "unsupported"
OFF_SUBJECT = "not about its subject"  # an entity's claim whose passage never names it (`subjects.py`)
INVENTED_NAME = "invented name"  # an item whose name the source never writes: counted, with its claims
REFUSED_NAME = "no subject"  # an item named by a word the source does not use as a name (`text/name_use.py`)
# A page summary is model text too: one whose specifics no anchored quote of its item states is replaced by
# the item's first anchored claim (or left out), and counted under this reason.
UNSUPPORTED_SUMMARY = "unsupported summary"


def dropped_claims(dropped: dict[str, int]) -> dict[str, int]:
    """The claims among `Plan.dropped()`'s counts: a replaced summary loses no claim."""
    return {reason: n for reason, n in dropped.items() if reason != UNSUPPORTED_SUMMARY}


@dataclass(frozen=True)
class Fact:
    text: str
    quote: str
    anchor: Anchor | None = None  # where the quote is in the source; None: not found
    repaired: bool = False  # the model's quote was snapped to the source span it nearly copied
    missing: tuple[str, ...] = ()  # specifics of the claim its quote does not state
    valid_from: str | None = None  # the interval the source states, as the model proposed it
    valid_to: str | None = None
    replaces: str | None = None  # the id of an existing claim this one is a new value of
    seen: date | None = None  # the day the source was observed (None: the day it was captured)
    via: str = ""  # how `seen` was found: frontmatter, filename, transcript (empty: captured)
    extracted: bool = False  # the source's own sentence, found by code for a name the model could not quote
    completed: bool = False  # the model's claim, cut inside a sentence, made that whole sentence (and `extracted`)
    off_subject: bool = False  # filed under an entity its passage of the source never names

    @property
    def anchored(self) -> bool:
        """Found in the source, supported by its quote and about its subject: the only claims written as fact."""
        return self.anchor is not None and not self.missing and not self.off_subject

    @property
    def problem(self) -> str | None:
        if self.anchor is None:
            return NO_QUOTE
        if self.missing:
            return UNSUPPORTED
        return OFF_SUBJECT if self.off_subject else None


@dataclass(frozen=True)
class Entity:
    name: str
    kind: str
    aliases: tuple[str, ...]
    summary: str
    facts: tuple[Fact, ...]
    found: bool = False  # named by code, not the model: a name the source writes that the model passed over


@dataclass(frozen=True)
class Section:
    heading: str
    facts: tuple[Fact, ...]


@dataclass(frozen=True)
class Concept:
    name: str
    summary: str
    sections: tuple[Section, ...]


@dataclass(frozen=True)
class Cell:
    """One subject's value on one axis; the value is a claim, so it carries a fact with a quote."""

    subject: str
    fact: Fact


@dataclass(frozen=True)
class Axis:
    axis: str
    values: tuple[Cell, ...]


@dataclass(frozen=True)
class Comparison:
    name: str
    subjects: tuple[str, ...]
    axes: tuple[Axis, ...]


@dataclass(frozen=True)
class Relation:
    source: str
    relation: str
    target: str
    fact: Fact  # fact.text is "source relation target"; its quote supports the link


@dataclass(frozen=True)
class Memory:
    """What to remember of a conversation, about `subject`, anchored like any claim. `when` is the time of
    the turn its quote is in (from the transcript's turn header), set once the quote is anchored."""

    kind: str  # one of KINDS (wikic/vault/formats/memory_items.py)
    subject: str
    importance: float
    fact: Fact
    when: date | None = None


@dataclass(frozen=True)
class Plan:
    source_path: str  # the raw/ text file the anchors point into
    summary: str
    entities: tuple[Entity, ...] = ()
    concepts: tuple[Concept, ...] = ()
    comparisons: tuple[Comparison, ...] = ()
    relations: tuple[Relation, ...] = ()
    notes: tuple[str, ...] = field(default=())  # merge and anchoring remarks worth logging
    invented: tuple[str, ...] = ()  # names the model proposed that the source never writes (dropped)
    invented_claims: int = 0  # the claims those items carried
    memories: tuple[Memory, ...] = ()  # transcripts only
    summaries_replaced: int = 0  # item summaries no anchored quote supported (see UNSUPPORTED_SUMMARY)
    sentences_found: int = 0  # claims that are the source's own sentences, found by code (`sentences.py`)
    refiled: int = 0  # claims the model filed under one entity that open with another's name (`subjects.py`)
    titles: tuple[str, ...] = ()  # names that are the source's own title, which its source page covers (dropped)
    rules_found: int = 0  # rules the user set in so many words, remembered by code (`standing.py`)
    refused: tuple[tuple[str, str], ...] = ()  # (name, reason): names the source does not use as a subject's
    refused_claims: int = 0  # the claims those items carried
    refused_aliases: tuple[tuple[str, str, str], ...] = ()  # (name, alias, reason): aliases not kept

    @property
    def missed(self) -> tuple[str, ...]:
        """The names code found in the source that the model did not propose (with a claim: anchored)."""
        return tuple(e.name for e in self.entities if e.found and any(f.anchored for f in e.facts))

    def facts(self) -> list[Fact]:
        """Every fact in the plan, in order."""
        out: list[Fact] = []
        for entity in self.entities:
            out.extend(entity.facts)
        for concept in self.concepts:
            for section in concept.sections:
                out.extend(section.facts)
        for comparison in self.comparisons:
            for axis in comparison.axes:
                out.extend(cell.fact for cell in axis.values)
        out.extend(relation.fact for relation in self.relations)
        out.extend(memory.fact for memory in self.memories)
        return out

    @property
    def anchored_count(self) -> int:
        return sum(1 for fact in self.facts() if fact.anchored)

    def dropped(self) -> dict[str, int]:
        """Claims not written, and summaries replaced, by reason."""
        out: dict[str, int] = {INVENTED_NAME: self.invented_claims} if self.invented_claims else {}
        if self.refused_claims:
            out[REFUSED_NAME] = self.refused_claims
        if self.summaries_replaced:
            out[UNSUPPORTED_SUMMARY] = self.summaries_replaced
        for fact in self.facts():
            if fact.problem:
                out[fact.problem] = out.get(fact.problem, 0) + 1
        return out

    @property
    def repaired_count(self) -> int:
        return sum(1 for fact in self.facts() if fact.repaired and fact.anchored)
