"""The anchored plan of one source: what extraction hands the compiler. Frozen dataclasses without caps (merging
the model's window plans can exceed the wire model's, `wikic/ingest/plan_model.py`), where every fact keeps its
verbatim quote and, when the quote was found in the raw text, an `Anchor` (`raw/articles/x.md:L12-L14`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date


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
# claim says (a number, date, version or name of the claim missing from it; or, beyond a small share, its
# content words: `text/support.unquoted`).
NO_QUOTE = "no quote"
UNSUPPORTED = "unsupported"
UNQUOTED = "says what its quote does not"
# What a model judging the claim against its quote answered, when the run is judged (`compile/judge.py`) and
# the claim is kept out for it: the reason is "judged unsupported" or "judged contradicted".
JUDGED = "judged"
OFF_SUBJECT = "not about its subject"  # an entity's claim whose passage never names it (`ingest/subjects.py`)
INVENTED_NAME = "invented name"  # an item whose name the source never writes: counted, with its claims
REJECTED = "rejected in review"  # what a person rejected in review (`ingest/rejections.py`)
HELD = "held in review"  # not in the part of a proposal accepted (`ingest/gate.py`): it waits there
FRAGMENT = "not a statement"  # a claim of a word or two ("Show backlinks"): a label, not something said
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
    unquoted: tuple[str, ...] = ()  # content words of the claim its quote does not hold, past the share allowed
    judged: str = ""  # the judge's verdict when it kept the claim out: unsupported or contradicted
    valid_from: str | None = None  # the interval the source states, as the model proposed it
    valid_to: str | None = None
    replaces: str | None = None  # the id of an existing claim this one is a new value of
    seen: date | None = None  # the day the source was observed (None: the day it was captured)
    via: str = ""  # how `seen` was found: frontmatter, filename, transcript (empty: captured)
    extracted: bool = False  # the source's own sentence, found by code for a name the model could not quote
    completed: bool = False  # the model's claim, cut inside a sentence, made that whole sentence (and `extracted`)
    off_subject: bool = False  # filed under an entity its passage of the source never names
    fragment: bool = False  # too short to say anything (`FRAGMENT`)

    @property
    def anchored(self) -> bool:
        """Found in the source, supported by its quote and about its subject: the only claims written as fact."""
        return (self.anchor is not None and not self.missing and not self.unquoted and not self.off_subject
                and not self.fragment and not self.judged)

    @property
    def problem(self) -> str | None:
        if self.anchor is None:
            return NO_QUOTE
        if self.missing:
            return UNSUPPORTED
        if self.fragment:
            return FRAGMENT
        if self.off_subject:
            return OFF_SUBJECT
        if self.unquoted:
            return UNQUOTED
        return f"{JUDGED} {self.judged}" if self.judged else None


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
    sentences_found: int = 0  # claims that are the source's own sentences, found by code (`ingest/found_claims.py`)
    refiled: int = 0  # claims the model filed under one entity that open with another's name (`ingest/subjects.py`)
    titles: tuple[str, ...] = ()  # names that are the source's own title, which its source page covers (dropped)
    rules_found: int = 0  # rules the user set in so many words, remembered by code (`ingest/standing.py`)
    refused: tuple[tuple[str, str], ...] = ()  # (name, reason): names the source does not use as a subject's
    refused_claims: int = 0  # the claims those items carried
    refused_aliases: tuple[tuple[str, str, str], ...] = ()  # (name, alias, reason): aliases not kept
    rejected_claims: int = 0  # claims a person rejected in review, kept out (`ingest/gate.py`)
    held_claims: int = 0  # claims of a proposal not in the part accepted, kept out

    @property
    def missed(self) -> tuple[str, ...]:
        """The names code found in the source that the model did not propose (with a claim: anchored)."""
        return tuple(e.name for e in self.entities if e.found and any(f.anchored for f in e.facts))

    def with_facts(self, change: Callable[[Fact], Fact]) -> Plan:
        """The plan with each of its facts made `change(fact)`, in place."""
        return replace(
            self,
            entities=tuple(replace(e, facts=tuple(map(change, e.facts))) for e in self.entities),
            concepts=tuple(replace(c, sections=tuple(replace(s, facts=tuple(map(change, s.facts)))
                                                      for s in c.sections)) for c in self.concepts),
            comparisons=tuple(replace(c, axes=tuple(replace(a, values=tuple(Cell(cell.subject, change(cell.fact))
                                                                             for cell in a.values))
                                                     for a in c.axes)) for c in self.comparisons),
            relations=tuple(replace(r, fact=change(r.fact)) for r in self.relations),
            memories=tuple(replace(m, fact=change(m.fact)) for m in self.memories),
        )

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
        if self.rejected_claims:
            out[REJECTED] = self.rejected_claims
        if self.held_claims:
            out[HELD] = self.held_claims
        for fact in self.facts():
            if fact.problem:
                out[fact.problem] = out.get(fact.problem, 0) + 1
        return out

    @property
    def repaired_count(self) -> int:
        return sum(1 for fact in self.facts() if fact.repaired and fact.anchored)
