"""One source's plan placed on the pages of the subjects it names, before any page is written.

What a source says about a name goes to the page of that name, whatever kind of page it is. A name with no
page yet waits in the mentions ledger (`mentions.py`) until enough sources have said enough about it
(SCHEMA.md's thresholds); then it takes a new page, with what every one of those sources said. A name code
found in the source, not the model, waits for a second source. An alias that is another page's name is
refused: the two subjects stay apart.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from wikic.compile.plan import Comparison, Concept, Entity, Fact, Memory, Plan
from wikic.compile.result import SourceResult
from wikic.compile.tables import build_table
from wikic.facts.intervals import claim_meta
from wikic.memory.identity import Identity
from wikic.pages.render import clean_text, clean_title
from wikic.vault.formats.mentions import ClaimRow, MemoryRow, Mention, RelationRow, Said
from wikic.vault.names import is_about, lookup_keys, name_keys, normalize_name
from wikic.vault.schema_md import Schema

if TYPE_CHECKING:
    from wikic.compile.compiler import Compiler

# page title -> (aliases, kind of thing, memories as the ledger carries them)
Remembered = dict[str, tuple[list[str], str, list[MemoryRow]]]


@dataclass(frozen=True, slots=True)
class Compared:
    """A comparison placed: its table (`tables.Table.payload`) from each source, on the page of its name."""

    name: str
    summary: str
    sources: dict[str, dict[str, Any]]
    aliases: tuple[str, ...] = ()
    kind_detail: str | None = None


Item = Mention | Compared  # what one source adds to a page: a name's entry, or a comparison's table


@dataclass
class Placed:
    """What one source adds to each page it names, as (kind, item): the kind says what the item holds (an
    entity's facts, a concept's sections, a comparison's table), whatever kind of page it lands on."""

    src: str
    result: SourceResult
    touched: dict[str, list[tuple[str, Item]]] = field(default_factory=dict)
    fresh: dict[str, tuple[str, Item]] = field(default_factory=dict)  # new path -> (kind, ledger item)


@dataclass(frozen=True)
class Offer:
    """A subject a source names, offered its page: its names, the lead the source gives it, what the source
    says (`said`, as the mentions ledger keeps it), how many sources must name it before it gets a new page,
    and the kind of thing it is (tags follow it)."""

    kind: str  # entity or concept: what `said` holds
    name: str
    aliases: tuple[str, ...]
    summary: str
    said: Said
    threshold: int
    detail: str = ""


def place_plan(compiler: Compiler, plan: Plan, src: str, result: SourceResult) -> Placed:
    """Place what the source `src` says (its plan) on the pages of its subjects, planned or promoted."""
    placed = Placed(src, result)
    remembered = _memories_by_subject(plan.memories, compiler.setting.identity, compiler.setting.today, result)
    for entity in plan.entities:
        _place_entity(compiler, placed, plan, entity, remembered)
    for title, (aliases, detail, memories) in remembered.items():  # subjects only the memories name
        summary = (
            "Who the user is, and how they work."
            if detail == "person" and compiler.setting.identity.is_user(title)
            else memories[0].text
        )
        threshold = compiler.setting.schema.thresholds["entity_min_references"]
        _place(compiler, placed, Offer("entity", title, tuple(aliases), summary, Said(memories=tuple(memories)),
                                       threshold, detail))
    for concept in plan.concepts:
        _place_concept(compiler, placed, concept)
    groups = [(entity.name, *entity.aliases) for entity in plan.entities]
    for comparison in plan.comparisons:
        _place_comparison(compiler, placed, comparison, groups)
    return placed


def _place_entity(compiler: Compiler, placed: Placed, plan: Plan, entity: Entity, remembered: Remembered) -> None:
    """Offer `entity` its page, with its anchored facts, the relations it is the source of and the memories
    about it (taken out of `remembered`)."""
    facts = [f for f in entity.facts if f.anchored]
    if entity.found and not facts and compiler.names.lookup(entity.name) is not None:
        return  # a page's name written in passing: a mention, with nothing to add to the page
    placed.result.dropped_facts += len(entity.facts) - len(facts)
    rels = [r for r in plan.relations if _same(r.source, entity.name) and r.fact.anchored]
    relations = tuple(RelationRow(r.relation, r.target, str(r.fact.anchor)) for r in rels)
    memories: list[MemoryRow] = []
    mine = next(
        (title for title in remembered if _same(title, entity.name) or any(_same(title, a) for a in entity.aliases)),
        None,
    )
    aliases = list(entity.aliases)
    if mine is not None:
        title_aliases, _, memories = remembered.pop(mine)
        aliases += [a for a in title_aliases if a not in aliases]
    least = compiler.setting.schema.thresholds["entity_min_references"]
    # a name code found in the source, not the model, waits for a second source before its page
    threshold = max(least, 2) if entity.found else least
    said = Said(tuple(_claim_row(f) for f in facts), relations, tuple(memories))
    _place(compiler, placed, Offer("entity", entity.name, tuple(aliases), entity.summary, said, threshold,
                                   entity.kind))


def _place_concept(compiler: Compiler, placed: Placed, concept: Concept) -> None:
    """Offer `concept` its page, with the anchored facts of each of its sections."""
    sections: dict[str, list[ClaimRow]] = {}
    for section in concept.sections:
        facts = [f for f in section.facts if f.anchored]
        placed.result.dropped_facts += len(section.facts) - len(facts)
        if facts:
            sections.setdefault(clean_text(section.heading, 80), []).extend(_claim_row(f) for f in facts)
    said = Said(sections=tuple((heading, tuple(claims)) for heading, claims in sections.items()))
    _place(compiler, placed, Offer("concept", concept.name, (), concept.summary, said, 1))


def _claim_row(fact: Fact) -> ClaimRow:
    """An anchored fact as the ledger carries it."""
    return ClaimRow(fact.text, str(fact.anchor), claim_meta(fact))


def _memories_by_subject(memories: tuple[Memory, ...], identity: Identity, today: dt.date,
                         result: SourceResult) -> Remembered:
    """page title -> (aliases, kind of thing, memories as the ledger carries them), for the anchored
    memories of a source."""
    out: Remembered = {}
    keys: dict[str, str] = {}
    for memory in memories:
        if not memory.fact.anchored:
            result.dropped_facts += 1
            continue
        title, aliases, detail = subject_of(memory, identity)
        title = clean_title(title)
        if not title:
            continue
        key = keys.setdefault(normalize_name(title), title)
        out.setdefault(key, (aliases, detail, []))[2].append(memory_payload(memory, today))
    return out


def subject_of(memory: Memory, identity: Identity) -> tuple[str, list[str], str]:
    """(page title, aliases, kind of thing) of the page `memory` belongs on."""
    if identity.is_user(memory.subject):
        return identity.title, list(identity.aliases), "person"
    return memory.subject, [], ""


def memory_payload(memory: Memory, today: dt.date) -> MemoryRow:
    """A memory as the ledgers carry it."""
    when = memory.when or today
    return MemoryRow(memory.kind, memory.fact.text, str(memory.fact.anchor), memory.importance, when.isoformat())


def _touch(placed: Placed, path: str, kind: str, title: str, item: Item, is_query: bool) -> None:
    if is_query:
        # A query page is a filed answer, rewritten only by `wikic query --refresh`: compiled facts
        # would be lost there, and would make the answer look stale.
        placed.result.dropped_items.append(
            f"{kind} '{title}': its name is the query page {path}, which ingest does not write into"
        )
        return
    placed.touched.setdefault(path, []).append((kind, item))


def _place(compiler: Compiler, placed: Placed, offer: Offer) -> None:
    """Add what `offer` says to the page of its name, or to the mentions ledger; promote it to a new page
    once it has enough."""
    result = placed.result
    title = clean_title(offer.name)
    if not title:
        result.dropped_items.append(f"{offer.kind} with an empty name")
        return
    aliases = [a for a in dict.fromkeys(clean_title(a) for a in offer.aliases) if a]  # they reach frontmatter too
    path = compiler.names.lookup(title)
    # an alias that is another page's title or alias names that page's subject: the two stay apart
    elsewhere = [a for a in aliases if compiler.names.lookup(a) not in (None, path)]
    result.aliases_refused += [(title, a) for a in elsewhere]
    aliases = [a for a in aliases if a not in elsewhere]
    if path is not None:
        item = Mention(offer.kind, title, tuple(aliases), offer.summary, {placed.src: offer.said}, offer.detail)
        _touch(placed, path, offer.kind, title, item, compiler.disk.is_query_page(path))
        return
    key = compiler.mentions.key(offer.kind, title)
    entry = compiler.mentions.add(key, offer.kind, title, aliases, clean_text(offer.summary, 300), placed.src,
                                  offer.said, offer.detail)
    if not _enough(compiler.setting.schema, entry, offer):
        result.pending.append(title)
        return
    # the page takes the name as the first source wrote it; the other forms are its aliases
    entry = replace(entry, aliases=tuple(sorted({*entry.aliases, title} - {entry.name})))
    path = compiler.new_path(offer.kind, entry.name)
    compiler.names.add(path, entry.name, list(entry.aliases))
    placed.fresh[path] = (offer.kind, entry)
    compiler.mentions.pop(key)


def _enough(schema: Schema, entry: Mention, offer: Offer) -> bool:
    """The ledger's `entry` has what a new page needs: enough sources, and for an entity enough claims and a
    sentence about it, for a concept enough sections."""
    enough = len(entry.sources) >= max(offer.threshold, 1)
    if offer.kind == "entity":
        said = sum(len(p.facts) + len(p.memories) for p in entry.sources.values())
        enough = enough and said >= schema.thresholds["entity_min_claims"]
        # and a source has said what it is: a name written only inside sentences about other subjects
        # ("…written in Rust by Mira Okafor") waits, with what was said, for a sentence of its own
        enough = enough and (bool(entry.summary) or bool(offer.said.memories) or _said_of(entry))
    if offer.kind == "concept":  # the sections of its layout its claims fill, as the page will show them
        layout = schema.layout("concept")
        headings = {
            layout.section_for(h, claim.text) for p in entry.sources.values()
            for h, claims in p.sections or () for claim in claims
        }
        enough = len(headings) >= schema.thresholds["concept_min_sections"]
    return enough


def _place_comparison(compiler: Compiler, placed: Placed, comparison: Comparison,
                      aliases: list[tuple[str, ...]]) -> None:
    """The comparison's table on the page of its name, or on a new page: a comparison needs no second source."""
    result = placed.result
    title = clean_title(comparison.name)
    table = build_table(comparison, aliases)
    result.dropped_facts += table.unanchored
    if len(table.subjects) < 2 or table.axes < compiler.setting.schema.thresholds["comparison_min_axes"] or not title:
        result.dropped_items.append(
            f"comparison '{title}' ({len(table.subjects)} subjects with anchored cells, {table.axes} anchored axes)"
        )
        return
    item = Compared(title, f"{', '.join(table.subjects)} compared on {table.axes} axes.",
                    {placed.src: table.payload})
    path = compiler.names.lookup(title)
    if path is not None:
        _touch(placed, path, "comparison", title, item, compiler.disk.is_query_page(path))
        return
    path = compiler.new_path("comparison", title)
    compiler.names.add(path, title, [])
    placed.fresh[path] = ("comparison", item)


def _said_of(entry: Mention) -> bool:
    """A claim the ledger holds for `entry` is about its subject (`vault.names.is_about`: it opens with its name)."""
    aliases = list(entry.aliases)
    return any(is_about(claim.text, entry.name, aliases) for said in entry.sources.values() for claim in said.facts)


def _same(a: str, b: str) -> bool:
    return bool(set(name_keys(a)) & set(lookup_keys(b)))
