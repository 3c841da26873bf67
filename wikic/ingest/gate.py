"""What a review lets into a compile: a source's plan without what a person rejected, and, when a part of a
proposal is accepted, without what was not accepted yet.

The gate acts on the plan, before the compiler sees it, so every rule of the compile holds as for any
plan: an item the gate takes out is one the model never proposed, its name is not linked on the pages
written, and a name left without a page waits in the mentions ledger as any name does.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from wikic.compile.plan import Fact, Plan
from wikic.ingest.rejections import Rejections
from wikic.vault.formats.claims import claim_id
from wikic.vault.names import same_subject


@dataclass(frozen=True)
class Part:
    """The part of a proposal a person accepts: the pages taken whole (`names`: each one's title and aliases;
    `page_claims`: the ids of the claims on them, so an item the model named otherwise is known by where
    its claims landed) and the claims taken one by one (`claims`: their ids). Every other item of the
    proposal waits in it."""

    names: frozenset[str] = frozenset()
    page_claims: frozenset[str] = frozenset()
    claims: frozenset[str] = frozenset()
    every_name: frozenset[str] = frozenset()  # the titles and aliases of all the proposal's pages
    rest: bool = False  # everything but the pages left out (in conflict): a name that made no page is taken too

    def takes_whole(self, name: str, facts: tuple[Fact, ...]) -> bool:
        if any(same_subject(n, name) for n in self.names):
            return True
        if any(same_subject(n, name) for n in self.every_name):
            return False  # another page of the proposal, not taken
        return self.rest or any(f.anchored and claim_id(f.text) in self.page_claims for f in facts)


@dataclass(frozen=True)
class Gate:
    """`rejections`: the vault's, never proposed again. `part`: a part of a proposal accepted (None: all)."""

    rejections: Rejections = field(default_factory=Rejections)
    part: Part | None = None

    def __bool__(self) -> bool:
        return bool(self.rejections) or self.part is not None

    def apply(self, plan: Plan, source: str) -> Plan:
        """`plan` with what the gate keeps out taken out, counted as rejected or held in review."""
        if not self:
            return plan
        counts = {"rejected": 0, "held": 0}

        def facts_of(name: str, facts: tuple[Fact, ...]) -> tuple[Fact, ...] | None:
            """The facts of the item named `name` the gate lets in; None: the item stays out whole."""
            anchored = sum(1 for f in facts if f.anchored)
            if self.rejections.rejects_page(source, name) is not None:
                counts["rejected"] += anchored
                return None
            whole = self.part is None or self.part.takes_whole(name, facts)
            kept = []
            for f in facts:
                why = self._why_not(f, source, whole)
                if why is None:
                    kept.append(f)
                else:
                    counts[why] += 1
            if not whole and not any(f.anchored for f in kept):
                return None  # nothing of it taken: it waits in the proposal
            return tuple(kept)

        entities = []
        for entity in plan.entities:
            facts = facts_of(entity.name, entity.facts)
            if facts is not None:
                entities.append(dataclasses.replace(entity, facts=facts))
        concepts = []
        for concept in plan.concepts:
            every = tuple(f for s in concept.sections for f in s.facts)
            kept_facts = facts_of(concept.name, every)
            if kept_facts is None:
                continue
            ids = {id(f) for f in kept_facts}
            sections = tuple(dataclasses.replace(s, facts=tuple(f for f in s.facts if id(f) in ids))
                             for s in concept.sections)
            concepts.append(dataclasses.replace(concept, sections=sections))
        comparisons = [c for c in plan.comparisons if self._table_in(c.name, source)]
        gone = {e.name for e in plan.entities} - {e.name for e in entities}
        relations = [r for r in plan.relations
                     if r.source not in gone and r.target not in gone and self._why_not(r.fact, source, True) is None]
        memories = [m for m in plan.memories if self._why_not(m.fact, source, True) is None]
        return dataclasses.replace(
            plan, entities=tuple(entities), concepts=tuple(concepts), comparisons=tuple(comparisons),
            relations=tuple(relations), memories=tuple(memories),
            rejected_claims=plan.rejected_claims + counts["rejected"], held_claims=plan.held_claims + counts["held"],
        )

    def _why_not(self, fact: Fact, source: str, whole: bool) -> str | None:
        if not fact.anchored or fact.anchor is None:
            return None  # the compile drops it for its own reason
        if self.rejections.rejects_claim(source, fact.anchor.start_line, fact.anchor.end_line, fact.text):
            return "rejected"
        if not whole and self.part is not None and claim_id(fact.text) not in self.part.claims:
            return "held"
        return None

    def _table_in(self, name: str, source: str) -> bool:
        if self.rejections.rejects_page(source, name) is not None:
            return False
        return self.part is None or self.part.takes_whole(name, ())
