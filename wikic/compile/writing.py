"""One source's placed items written into page texts: a new page made from its ledger item, a page there
updated, and the See also of a page the source does not otherwise write brought up to date.

Each page is rendered in one place (`page.py`) from what its sources contribute; here the contributions are
made ready for it: claims linked and cited with the interval and pairing that hold up, relations linked,
tables and memories made blocks. The frontmatter follows the page: its `summary` is the lead as one line,
`contested` is set while its current claims contradict each other.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from wikic.compile.page import NewClaim, NewRelation, PageUpdate, render_page
from wikic.compile.placing import Item
from wikic.compile.result import SourceResult
from wikic.compile.siblings import see_also
from wikic.compile.tables import render_table
from wikic.compile.tags import pick_tags
from wikic.facts.intervals import checked_claim
from wikic.facts.timeline import contested
from wikic.memory.merge import memory_blocks
from wikic.pages.blocks import find_block, remove_block
from wikic.pages.frontmatter import dump_frontmatter
from wikic.pages.index_file import Entry
from wikic.pages.render import clean_text, link, linkify
from wikic.resources import page_skeleton
from wikic.vault.formats.anchors import parse_spec
from wikic.vault.formats.claims import (
    BY_SENTENCE,
    CLAIMS_KEY,
    Citation,
    Claim,
    claim_id,
    is_claim_id,
    plain_text,
)
from wikic.vault.formats.dates import VIA_CAPTURED
from wikic.vault.formats.mentions import ClaimRow, MemoryRow, RelationRow, Said
from wikic.vault.frontmatter import split_page
from wikic.vault.lead import LEAD_KEY, lead_of
from wikic.vault.names import normalize_name

if TYPE_CHECKING:
    from wikic.compile.compiler import Compiler

SUMMARY_CHARS = 300  # the frontmatter summary: the lead as one line, at most this long
TABLE_SECTION = "Comparison"  # where a comparison's table goes, on whatever kind of page

# What sources add to a page: (kind, {source: what it said}); a comparison's is its table (`tables.Table.payload`).
Contributions = list[tuple[str, Mapping[str, Said | dict[str, Any]]]]


class PageWriter:
    """Writes pages for one source; `link_names` are the names its text links (name -> link text), and what is
    written, kept or refused goes to `result`."""

    def __init__(self, compiler: Compiler, link_names: dict[str, str], result: SourceResult) -> None:
        self.compiler = compiler
        self.link_names = link_names
        self.result = result

    def write_new(self, path: str, kind: str, item: Item, extra: list[tuple[str, Item]]) -> None:
        """The new page at `path` for the ledger `item`, with what `extra` adds to it as well."""
        compiler, today = self.compiler, self.compiler.setting.today
        title = item.name
        sources: Mapping[str, Said | dict[str, Any]] = item.sources
        summary = clean_text(item.summary or title, 300)
        text_for_tags = " ".join(
            [title, summary, *_claim_text([list(_json(payload).values()) for payload in sources.values()])]
        )
        aliases = [
            a
            for a in dict.fromkeys([*item.aliases, *(a for _, more in extra for a in more.aliases)])
            if a and a.lower() != title.lower()
        ]
        data = {
            "title": title,
            "created": today,
            "updated": today,
            "type": kind,
            "tags": pick_tags(text_for_tags, item.kind_detail or "", compiler.setting.schema.tags),
            "aliases": aliases,
            "sources": sorted(compiler.drafts.sources_of(path)),
            "summary": summary,
        }
        body = page_skeleton(kind).opening(clean_text(title, 200))
        linked_summary, _ = linkify(summary, self.link_names, skip={compiler.link_text(path)})
        contributions: Contributions = [(kind, sources), *((more_kind, more.sources) for more_kind, more in extra)]
        rendered = self.render(path, kind, body, contributions, data, lead=linked_summary)
        compiler.drafts.put(path, dump_frontmatter(data) + rendered)
        self.result.created.append(path)
        compiler.drafts.index_entries.append(Entry(kind, compiler.link_text(path), summary))

    def update(self, path: str, items: list[tuple[str, Item]], src: str) -> None:
        """The page at `path` once the ledger `items` of the source `src` are on it; a page whose text or
        frontmatter does not read is left as it is, and the report says so."""
        compiler = self.compiler
        text = compiler.drafts.text(path)
        if text is None:
            self.result.dropped_items.append(f"{path}: unreadable, not updated")
            return
        data, body = split_page(text)
        if data is None:
            self.result.dropped_items.append(f"{path}: frontmatter unreadable, not updated")
            return
        sources = list(data.get("sources") or []) if isinstance(data.get("sources"), list) else []
        if src not in sources:
            sources.append(src)
        data["sources"] = sources
        data["updated"] = compiler.setting.today
        new_aliases = _new_aliases(data, items)
        if new_aliases and isinstance(data.get("aliases", []), list):
            data["aliases"] = [*(data.get("aliases") or []), *new_aliases]
        contributions: Contributions = [(kind, item.sources) for kind, item in items]
        kind = str(data.get("type") or items[0][0])
        # a page that has no lead yet takes the first one a source gives it (its first source may have named
        # the subject only inside another's lead)
        offered = next((item.summary for _, item in items if item.summary), "")
        lead = linkify(offered, self.link_names, skip={compiler.link_text(path)})[0] \
            if offered and not _has_lead(body) else None
        rendered = self.render(path, kind, body, contributions, data, lead=lead)
        new_text = dump_frontmatter(data) + rendered.lstrip("\n")
        # the frontmatter's `updated` alone is no change: a recompile that changes nothing writes nothing
        if split_page(new_text)[1].lstrip("\n") != body.lstrip("\n") or src not in (text or ""):
            compiler.drafts.put(path, new_text)
            self.result.updated.append(path)

    def render(self, path: str, kind: str, body: str, contributions: Contributions, data: dict[str, Any], *,
               lead: str | None = None) -> str:
        """`body` once `contributions` are on it (`page.py`), with `data`'s `contested` set while its current
        claims contradict each other, and cleared once they no longer do (when it was the claims, as the page
        was before, that had set it), and its `summary` the page's lead as one line."""
        compiler, today = self.compiler, self.compiler.setting.today
        claims, relations, tables = self._contributions(path, contributions)
        memories = self._memory_blocks(path, body, contributions)
        others = see_also(body, path, compiler.drafts.sources_of(path), compiler.drafts.citing, compiler.link_text)
        update = PageUpdate(
            sources=sorted({s for _, more in contributions for s in more}),
            claims=claims,
            relations=relations,
            lead=lead,
            see_also=[link(compiler.link_text(p), compiler.names.titles.get(p)) for p in others],
            extra=[*tables, *memories],
        )
        rendered = render_page(body, compiler.setting.schema.layout(kind), update, today=today,
                               title=str(data.get("title") or ""))
        self.result.superseded += rendered.moved
        self.result.kept_edits.extend(f"{path}: {key}" for key in rendered.kept)
        if rendered.conflicts:
            data["contested"] = True
            self.result.contested.append(path)
        elif data.get("contested") is True and contested(body, today):
            del data["contested"]
        shown = lead_of(None, rendered.body, limit=SUMMARY_CHARS)
        if shown:  # the frontmatter's summary says what the page's lead says, a person's edit of it included
            data["summary"] = shown
        return rendered.body

    def _contributions(
        self, path: str, contributions: Contributions
    ) -> tuple[list[NewClaim], list[NewRelation], list[tuple[str, str, str | None]]]:
        """What `contributions` (kind, {source: payload}) put on `path`, whatever the page's kind: the claims
        of entities and concepts (each with the section it belongs in), the relations, and comparison tables
        (a block per source, under Comparison)."""
        compiler = self.compiler
        me = compiler.link_text(path)
        claims: list[NewClaim] = []
        relations: list[NewRelation] = []
        tables: list[tuple[str, str, str | None]] = []
        for kind, sources in contributions:
            for source, payload in sorted(sources.items()):
                if not isinstance(payload, Said):
                    table = render_table(payload, compiler.names, compiler.link_text, compiler.disk.cite)
                    tables.append((f"table:{source}", table, TABLE_SECTION))
                elif kind == "concept":
                    for heading, items in payload.sections or ():
                        claims.extend(self._new_claim(path, item, heading, me) for item in items)
                elif kind == "entity":
                    claims.extend(self._new_claim(path, item, None, me) for item in payload.facts)
                    relations.extend(self._relation(path, row) for row in payload.relations)
        return claims, relations, tables

    def _relation(self, path: str, row: RelationRow) -> NewRelation:
        """A relation a source states of the page at `path`, its target linked when it has a page."""
        compiler = self.compiler
        target_path = compiler.names.lookup(row.target)
        label = clean_text(row.target, 120)
        shown = link(compiler.link_text(target_path), label) if target_path and target_path != path else label
        return NewRelation(shown, clean_text(row.relation, 80), compiler.disk.cite(row.anchor))

    def _new_claim(self, path: str, claim: ClaimRow, section: str | None, me: str) -> NewClaim:
        """A claim of a source on its way to page `path`: linked, cited, with the section it belongs in, and
        the interval and pairing the source states when they hold up (a refusal is recorded with its
        reason; the claim itself is written either way)."""
        today = self.compiler.setting.today
        meta = claim.carried
        linked, _ = linkify(clean_text(claim.text), self.link_names, skip={me})
        citation = Citation(
            self.compiler.disk.cite(claim.anchor),
            _day(meta.seen) or today,
            meta.via or VIA_CAPTURED,
            BY_SENTENCE if meta.by == BY_SENTENCE else None,
        )
        dated = checked_claim(Claim(claim_id(linked), linked, (citation,)), meta, today, self.result.rejected)
        topic = self._pairing(path, dated, meta.replaces) if meta.replaces else None
        said = section or meta.section
        return NewClaim(said or "", linked, citation, dated.valid_from, dated.valid_to, topic)

    def _pairing(self, path: str, claim: Claim, replaces: str) -> str | None:
        """The topic `claim` joins by replacing the claim `replaces`, or None (refused, reason recorded)."""
        wanted = replaces.strip().lstrip("^")
        said = f"'{plain_text(claim.text)[:80]}' replaces {wanted}"
        if not is_claim_id(wanted):
            self.result.rejected.append(f"{said}: not a claim id")
            return None
        home = self.compiler.drafts.claim_home(wanted)
        if home is None:
            self.result.rejected.append(f"{said}: no page has a claim with that id")
            return None
        where, topic = home
        if where != path:
            self.result.rejected.append(f"{said}: that claim is about {where}, not {path}")
            return None
        if wanted == claim.id:
            return None  # the same claim from the same source: nothing to pair
        return topic

    def _memory_blocks(self, path: str, page: str, contributions: Contributions) -> list[tuple[str, str, str | None]]:
        """The memory blocks of `path` once the memories of `contributions` joined the ones `page` has."""
        compiler = self.compiler
        new: list[MemoryRow] = [
            m for _, sources in contributions for source in sorted(sources) for m in _memories(sources[source])
        ]
        new.sort(key=lambda m: m.day)  # by day (stably): what was said first is the item, what repeats it merges
        if not new:
            return []
        me = compiler.link_text(path)
        merged = memory_blocks(
            page, new, lambda text: linkify(clean_text(text), self.link_names, skip={me})[0], compiler.disk.cite,
            compiler.dedup,
        )
        self.result.memories += merged.added
        self.result.memories_merged += merged.merged
        self.result.kept_edits.extend(f"{path}: {key}" for key in dict.fromkeys(merged.kept))
        return merged.blocks


def with_see_also(compiler: Compiler, path: str, text: str) -> str:
    """`text` of a page this run does not otherwise write, with its Related section brought up to date
    (a page built on one of its sources was added)."""
    data, body = split_page(text)
    if data is None:
        return text
    kind = str(data.get("type") or "entity")
    rendered = PageWriter(compiler, {}, SourceResult(path)).render(path, kind, body, [], dict(data))
    return dump_frontmatter(data) + rendered.lstrip("\n") if rendered != body else text


def without_source(compiler: Compiler, path: str, src: str, data: dict[str, Any], result: SourceResult) -> str | None:
    """The page at `path` once what `src` said on it is taken off (it no longer cites `src`), planned; None
    when the page cannot be written (left as it is)."""
    text = compiler.drafts.text(path)
    if text is None or not compiler.drafts.writable(path):
        return None
    body = split_page(text)[1]
    kind = str(data.get("type") or "entity")
    sources = [s for s in data.get("sources") or [] if isinstance(s, str) and s != src]
    new_data = {**data, "sources": sources, "updated": compiler.setting.today}
    nothing: Contributions = [(kind, {src: Said()})]
    rendered = PageWriter(compiler, {}, result).render(path, kind, body, nothing, new_data)
    lead = find_block(rendered, LEAD_KEY)
    held = find_block(rendered, CLAIMS_KEY)
    lead_ids = set(re.findall(r"\^(c[0-9a-f]{8})\b", lead[3])) if lead is not None else set()
    if lead_ids and not any(i in (held[3] if held is not None else "") for i in lead_ids):
        rendered = remove_block(rendered, LEAD_KEY)[0]  # it was a claim of `src` alone: it goes with it
    new_text = dump_frontmatter(new_data) + rendered.lstrip("\n")
    compiler.drafts.put(path, new_text)
    compiler.drafts.cite_only(path, sources)
    return new_text


def _new_aliases(data: dict[str, Any], items: list[tuple[str, Item]]) -> list[str]:
    """The names the source gave the page's subject that the page has not: its aliases, and another form of
    its name ("ChromaDB")."""
    known = {normalize_name(str(x)) for x in [*(data.get("aliases") or []), data.get("title", "")]}
    given = (a for _, item in items for a in [item.name, *item.aliases])
    return [a for a in dict.fromkeys(given) if a and normalize_name(a) not in known]


def _has_lead(body: str) -> bool:
    """The page's lead block holds text (a person's own paragraph before the first section counts too)."""
    if lead_of(None, body):
        return True
    head = body.split("\n## ", 1)[0]
    return any(line.strip() and not line.startswith(("#", "<!--", "%%")) for line in head.split("\n"))


def _memories(said: Said | dict[str, Any]) -> tuple[MemoryRow, ...]:
    return said.memories if isinstance(said, Said) else ()


def _json(said: Said | dict[str, Any]) -> dict[str, Any]:
    """What a source said, as the ledger's JSON holds it (a comparison's table is JSON already)."""
    return said.to_json() if isinstance(said, Said) else said


def _claim_text(value: Any) -> list[str]:
    """The words in a ledger item's payloads (claims, headings, axes, subjects), without their anchors: an
    anchor names a raw file, and a taxonomy word in a file name says nothing about the page."""
    if isinstance(value, str):
        return [] if parse_spec(value) is not None else [value]
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in (*_claim_text(key), *_claim_text(item))]
    if isinstance(value, (list, tuple)):
        return [text for item in value for text in _claim_text(item)]
    return []


def _day(value: Any) -> dt.date | None:
    try:
        return dt.date.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None
