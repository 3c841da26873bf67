"""The extraction plan as the model is asked for it: what the model proposes for one window of a source.

Two layers, on purpose:
- `ChunkPlan` and its parts, here, are the *wire* model: pydantic, `extra="forbid"`, every list and string capped.
  Its JSON schema is what the model decodes under; the caps keep small models under a grammar from
  looping, and keep a reply inside `max_output_tokens`. A server that does not hold a reply to the schema
  lets a list run past its cap: the reply keeps the items whose quotes the window writes most, and the
  report names the rest (`extract/limits.py`). The names-first strategy builds its chunk plan from
  replies each within its own caps, and keeps every name it found, past `MAX_ENTITIES` too.
- `Plan`, `Entity`, `Fact`... are the *merged, anchored* result (`wikic/compile/plan.py`): frozen
  dataclasses without caps (merging chunk plans can exceed them), where every fact keeps its verbatim quote
  and, when the quote was found in the raw text, an `Anchor` (`raw/articles/x.md:L12-L14`).
"""

from __future__ import annotations

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
