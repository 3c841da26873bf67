"""Chunk plans merged into one plan per source: items with the same normalised name (or a form of it) merged,
duplicate facts dropped, comparisons with fewer than two subjects dropped with a note. Names stay as the
model wrote them (first spelling wins); resolving them to pages is the compiler's job."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from wikic.compile.plan import Axis, Cell, Comparison, Concept, Entity, Fact, Memory, Plan, Relation, Section
from wikic.ingest.plan_model import ChunkPlan, WireFact
from wikic.vault.names import is_person, normalize_name, same_subject


@dataclass
class _EntitySlot:
    name: str
    kind: str = ""
    summary: str = ""
    aliases: dict[str, str] = field(default_factory=dict)
    facts: dict[tuple[str, str], Fact] = field(default_factory=dict)


@dataclass
class _SectionSlot:
    heading: str
    facts: dict[tuple[str, str], Fact] = field(default_factory=dict)


@dataclass
class _ConceptSlot:
    name: str
    summary: str = ""
    sections: dict[str, _SectionSlot] = field(default_factory=dict)


@dataclass
class _AxisSlot:
    axis: str
    cells: dict[tuple[str, tuple[str, str]], Cell] = field(default_factory=dict)


@dataclass
class _ComparisonSlot:
    name: str
    subjects: dict[str, str] = field(default_factory=dict)
    axes: dict[str, _AxisSlot] = field(default_factory=dict)


def merge_plans(plans: Iterable[ChunkPlan], *, source_path: str) -> Plan:
    """One plan from chunk plans: items with the same normalised name (or a form of it) merged, duplicates dropped.

    Names stay as the model wrote them (first spelling wins); resolving them to pages is the compiler's job.
    """

    entities: dict[str, _EntitySlot] = {}
    alias_of: dict[str, str] = {}
    concepts: dict[str, _ConceptSlot] = {}
    comparisons: dict[str, _ComparisonSlot] = {}
    relations: dict[tuple[str, str, str], Relation] = {}
    memories: dict[tuple[str, str, tuple[str, str]], Memory] = {}
    summaries: list[str] = []

    for plan in plans:
        if plan.summary.strip() and plan.summary.strip() not in summaries:
            summaries.append(plan.summary.strip())
        for e in plan.entities:
            # an alias joins two items only when it is plainly a form of the name ("ChromaDB" of "Chroma"): a
            # model gives other names of the same source as aliases, and whether the source says they are one
            # is for anchoring to see (`anchor.kept_aliases`)
            forms = (e.name, *(a for a in e.aliases if same_subject(e.name, a, person=is_person(e.kind))))
            keys = [k for k in (normalize_name(n) for n in forms) if k]
            if not keys:
                continue
            key = next((alias_of[k] for k in keys if k in alias_of), keys[0])
            entity = entities.setdefault(key, _EntitySlot(e.name.strip()))
            for k in keys:
                alias_of.setdefault(k, key)
            if not entity.kind or entity.kind == "other":
                entity.kind = e.kind.strip()
            entity.summary = entity.summary or e.summary.strip()
            for alias in (e.name, *e.aliases):
                if normalize_name(alias) != normalize_name(entity.name):
                    entity.aliases.setdefault(normalize_name(alias), alias.strip())
            _add_facts(entity.facts, e.facts)
        for c in plan.concepts:
            key = normalize_name(c.name)
            if not key:
                continue
            concept = concepts.setdefault(key, _ConceptSlot(c.name.strip()))
            concept.summary = concept.summary or c.summary.strip()
            for sec in c.sections:
                section = concept.sections.setdefault(normalize_name(sec.heading), _SectionSlot(sec.heading.strip()))
                _add_facts(section.facts, sec.facts)
        for comp in plan.comparisons:
            key = normalize_name(comp.name)
            if not key:
                continue
            comparison = comparisons.setdefault(key, _ComparisonSlot(comp.name.strip()))
            for subject in comp.subjects:
                comparison.subjects.setdefault(normalize_name(subject), subject.strip())
            for axis in comp.axes:
                slot = comparison.axes.setdefault(normalize_name(axis.axis), _AxisSlot(axis.axis.strip()))
                for cell in axis.values:
                    fact = Fact(cell.value.strip(), cell.quote)
                    slot.cells.setdefault(
                        (normalize_name(cell.subject), _fact_key(fact)), Cell(cell.subject.strip(), fact)
                    )
        for r in plan.relations:
            key3 = (normalize_name(r.source), normalize_name(r.relation), normalize_name(r.target))
            if all(key3) and key3 not in relations:
                source, verb, target = r.source.strip(), r.relation.strip(), r.target.strip()
                relations[key3] = Relation(source, verb, target, Fact(f"{source} {verb} {target}", r.quote))
        for m in getattr(plan, "memories", ()):  # a transcript's plan
            memory = Memory(m.kind, m.subject.strip(), min(1.0, max(0.0, m.importance)), Fact(m.text.strip(), m.quote))
            key4 = (m.kind, normalize_name(memory.subject), _fact_key(memory.fact))
            if all(key4[:2]) and (key4 not in memories or memories[key4].importance < memory.importance):
                memories[key4] = memory  # the same memory from overlapping windows: the higher importance

    notes: list[str] = []
    kept: list[Comparison] = []
    for comparison in comparisons.values():
        if len(comparison.subjects) < 2:
            notes.append(f"comparison {comparison.name!r} dropped: fewer than two subjects")
            continue
        axes = tuple(Axis(a.axis, tuple(a.cells.values())) for a in comparison.axes.values())
        kept.append(Comparison(comparison.name, tuple(comparison.subjects.values()), axes))

    return Plan(
        source_path=source_path,
        summary=_cap(" ".join(summaries), 600),
        entities=tuple(
            Entity(e.name, e.kind or "other", tuple(e.aliases.values()), e.summary, tuple(e.facts.values()))
            for e in entities.values()
        ),
        concepts=tuple(
            Concept(
                c.name,
                c.summary,
                tuple(Section(sec.heading, tuple(sec.facts.values())) for sec in c.sections.values()),
            )
            for c in concepts.values()
        ),
        comparisons=tuple(kept),
        relations=tuple(relations.values()),
        notes=tuple(notes),
        memories=tuple(memories.values()),
    )


def _fact_key(fact: Fact) -> tuple[str, str]:
    return normalize_name(fact.text), normalize_name(fact.quote)


def _add_facts(into: dict[tuple[str, str], Fact], facts: Iterable[WireFact]) -> None:
    for wire in facts:
        fact = Fact(wire.text.strip(), wire.quote, valid_from=wire.valid_from, valid_to=wire.valid_to,
                    replaces=wire.replaces)
        into.setdefault(_fact_key(fact), fact)


def _cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + " …"
