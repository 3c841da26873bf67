"""The compiler: an anchored plan becomes pages. Code decides every file name, link, tag and line of
frontmatter; the model's words only fill compiler-owned blocks (see `wikic/pages/blocks.py`).

One `Compiler` serves a whole run: it keeps the texts it has planned in memory, so a later source in the
same run sees the pages an earlier one created (gather, then write). Each source is compiled all or
nothing: if compiling it raises, the compiler is back where it was before it, and the caller fails that
source alone.

What a source says about a name lands on the page of that name, whatever kind of page it is: an entity's
facts, a concept's sections and a comparison's table are blocks of their own, keyed by source, and the
page keeps its kind. Only query pages (filed answers) are never written into. Pages built on the same raw
source link to each other (`siblings.py`), also when they were written by different runs.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic.compile.page import NewClaim, NewRelation, render_page
from wikic.compile.plan import Comparison, Memory, Plan
from wikic.compile.repair import Removed, repair_names, unlinked
from wikic.compile.siblings import see_also
from wikic.compile.tables import build_table, render_table
from wikic.errors import VaultError
from wikic.facts.intervals import checked_claim, claim_meta
from wikic.facts.timeline import contested
from wikic.memory.identity import Identity
from wikic.memory.kept_vectors import KeptVectors
from wikic.memory.merge import Deduplicator, Embed, memory_blocks
from wikic.pages.blocks import find_block, remove_block
from wikic.pages.frontmatter import dump_frontmatter
from wikic.pages.index_file import Entry
from wikic.pages.render import clean_text, clean_title, link, linkify
from wikic.resources import page_skeleton
from wikic.vault import frontmatter as fm_parser
from wikic.vault.formats.anchors import parse_spec, render as render_anchor
from wikic.vault.formats.claims import (
    BY_SENTENCE,
    CLAIMS_KEY,
    Citation,
    Claim,
    claim_id,
    is_claim_id,
    plain_text,
    scan,
)
from wikic.vault.formats.dates import VIA_CAPTURED
from wikic.vault.frontmatter import split_page
from wikic.vault.layout import RAW_DIR
from wikic.vault.lead import LEAD_KEY, lead_of
from wikic.vault.link_text import LinkNames
from wikic.vault.load import Vault, load_vault, walk
from wikic.vault.names import PageNames, base_name, is_about, lookup_keys, name_keys, normalize_name
from wikic.vault.paths import read_text_inside
from wikic.vault.resolve import fold_name
from wikic.vault.schema_md import Schema
from wikic.vault.slug import slugify
from wikic.vault.state import Mentions

SUMMARY_CHARS = 300  # the frontmatter summary: the lead as one line, at most this long
TABLE_SECTION = "Comparison"  # where a comparison's table goes, on whatever kind of page

KIND_TAGS = {
    "person": ("person", "people"),
    "organization": ("organization", "org", "company"),
    "product": ("product", "tool", "tooling"),
    "model": ("model", "llm"),
    "dataset": ("dataset", "data"),
    "place": ("place", "location"),
    "event": ("event",),
}
# The words that say a page's subject is of the kind, for the kinds a model gives what it cannot place.
KIND_WORDS = {
    "product": ("product", "tool", "app", "application", "software", "service", "library", "framework", "platform"),
}


def subject_of(memory: Memory, identity: Identity) -> tuple[str, list[str], str]:
    """(page title, aliases, kind of thing) of the page `memory` belongs on."""
    if identity.is_user(memory.subject):
        return identity.title, list(identity.aliases), "person"
    return memory.subject, [], ""


def memory_payload(memory: Memory, today: dt.date) -> list[Any]:
    """A memory as the ledgers carry it: [kind, text, anchor, importance, day]."""
    when = memory.when or today
    return [memory.kind, memory.fact.text, str(memory.fact.anchor), memory.importance, when.isoformat()]


@dataclass
class SourceResult:
    raw_path: str
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)  # names waiting below a threshold
    dropped_facts: int = 0  # claims whose quote was not found in the source
    dropped_items: list[str] = field(default_factory=list)
    kept_edits: list[str] = field(default_factory=list)  # "path: block" left alone (a person edited it)
    linked: list[str] = field(default_factory=list)  # in `updated` for a See also to a new page only
    memories: int = 0  # memories written on pages as new items
    memories_merged: int = 0  # memories that matched an item already there (its anchor added)
    rejected: list[str] = field(default_factory=list)  # a proposed pairing or interval refused, with the reason
    superseded: int = 0  # claims that moved to a page's history (a later value holds now)
    contested: list[str] = field(default_factory=list)  # pages whose current claims contradict each other
    aliases_refused: list[tuple[str, str]] = field(default_factory=list)  # (name, alias another page holds)
    removed: list[Removed] = field(default_factory=list)  # pages named by a word now refused, nothing left on

    @property
    def compiled_pages(self) -> list[str]:
        """The pages this source wrote what it says into (each cites it)."""
        return [p for p in [*self.created, *self.updated] if p not in self.linked]


def pick_tags(text: str, kind: str, taxonomy: tuple[str, ...], limit: int = 3) -> list[str]:
    """The taxonomy tags the page's own text or kind supports: the one tag of its kind of thing (a product's
    `product`, not `tool` as well), and the tags whose words the text writes. "Product" is what a small model
    calls whatever it cannot place (an icon, a field of study): that kind gives its tag only when the text says
    what kind of thing it is in one of its words."""
    chosen: list[str] = []
    low = text.lower()

    def writes(words: str) -> bool:
        return re.search(r"(?<!\w)" + re.escape(words) + r"(?!\w)", low) is not None

    wanted = KIND_TAGS.get(kind.lower(), (kind.lower(),)) if kind else ()
    said = KIND_WORDS.get(kind.lower())
    if said is None or any(writes(word) for word in said):
        chosen += [tag for tag in wanted if tag in taxonomy][:1]
    for tag in taxonomy:
        if tag not in chosen and writes(tag.replace("-", " ").replace("_", " ").replace("/", " ")):
            chosen.append(tag)
    return chosen[:limit]


class Compiler:
    def __init__(
        self,
        root: Path,
        schema: Schema,
        names: PageNames,
        mentions: Mentions,
        links: LinkNames,
        today: dt.date,
        *,
        identity: Identity | None = None,
        embed: Callable[[], Embed | None] | None = None,
        kept: KeptVectors | None = None,
        vault: Vault | None = None,
    ) -> None:
        """`identity`: who the user is (whose page their memories go on); `embed`: loads the embedding model
        that tells duplicate memories apart (none: only the same words are a duplicate), and `kept` the
        vectors it made in earlier runs; `vault`: the vault on disk, when the caller has read it
        (`disk_vault`)."""
        self.root = root
        self.identity = identity or Identity()
        self.dedup = Deduplicator(embed, kept)
        self.schema = schema
        self.names = names
        self.mentions = mentions
        self.links = links  # every note name of the vault, and of the pages planned: for unambiguous link text
        self.today = today
        self.folder_types = schema.folder_types()
        self.texts: dict[str, str] = {}  # path -> planned text
        self.originals: dict[str, str | None] = {}  # path -> text on disk before this run (None: new)
        self.index_entries: list[Entry] = []
        self.planned_sources: dict[str, frozenset[str]] = {}  # path -> raw sources of a page planned in this run
        self._citing: dict[str, tuple[str, ...]] = {}  # raw source -> the pages citing it (`citing`), as planned
        self._disk_sources: dict[str, frozenset[str]] | None = None  # page -> raw sources it cites on disk
        self._disk_citing: dict[str, set[str]] = {}  # raw source -> pages citing it on disk
        self._raw_names: Counter[str] | None = None  # folded raw file name -> how many raw files carry it
        self._block_pages: dict[str, str] | None = None  # claim block id -> the page it is on, as on disk
        self._vault: Vault | None = vault  # the vault on disk, once read
        self._rejected: list[str] = []  # pairings and intervals refused while compiling the current source
        self.removed: dict[str, Removed] = {}  # pages this run removes: named by a word that is no subject
        self._page_stems: set[str] | None = None  # the note names of the subject pages on disk

    # -- reading ---------------------------------------------------------------------------------------

    def text(self, path: str) -> str | None:
        """The page's text as this run leaves it; None for no page, or one that cannot be read (not UTF-8, a
        link leading outside the vault: never read, and never written into)."""
        if path in self.texts:
            return self.texts[path]
        try:
            text = read_text_inside(self.root, self.root / path)
        except (OSError, UnicodeDecodeError, VaultError):
            return None
        if text is not None:
            self.originals.setdefault(path, text)
        return text

    def _put(self, path: str, text: str) -> None:
        if path not in self.originals:
            self.originals[path] = read_text_inside(self.root, self.root / path, errors="replace")
        self.texts[path] = text

    def _writable(self, path: str) -> bool:
        """The page can be written into: its text and its frontmatter read. Any other page is left byte for
        byte as it is (`_update` says why in the source's report)."""
        text = self.text(path)
        return text is not None and split_page(text)[0] is not None

    def sources_of(self, path: str) -> frozenset[str]:
        """The raw sources page `path` cites, as planned so far."""
        if path in self.planned_sources:
            return self.planned_sources[path]
        return self._sources_on_disk().get(path, frozenset())

    def citing(self, source: str) -> tuple[str, ...]:
        """The pages (query pages aside) that cite the raw file `source`, as planned so far, in path order. Worked
        out once until a page is planned to cite more (`_join`): every page a source writes asks for the pages
        citing each of its sources, and a source many pages cite has thousands."""
        known = self._citing.get(source)
        if known is not None:
            return known
        self._sources_on_disk()
        pages = {p for p in self._disk_citing.get(source, ()) if p not in self.planned_sources}
        pages.update(p for p, sources in self.planned_sources.items() if source in sources)
        found = self._citing[source] = tuple(sorted(p for p in pages if not self._is_query_page(p)))
        return found

    def _sources_on_disk(self) -> dict[str, frozenset[str]]:
        """page -> the raw sources its frontmatter lists, read once (pages do not change on disk during a
        compile: the vault lock is held, and everything is written after)."""
        if self._disk_sources is None:
            self._disk_sources = {}
            vault = self.disk_vault()
            for path in vault.subject_pages:  # a source page cites its source too, and is no sibling
                listed = (vault.notes[path].frontmatter or {}).get("sources")
                sources = (
                    frozenset(fm_parser.unwrap_link(s) for s in listed if isinstance(s, str))
                    if isinstance(listed, list)
                    else frozenset()
                )
                self._disk_sources[path] = sources
                for source in sources:
                    self._disk_citing.setdefault(source, set()).add(path)
        return self._disk_sources

    def disk_vault(self) -> Vault:
        """The vault as it is on disk, read once (the run writes nothing before its compile is done, and the
        hubs are planned from this same reading)."""
        if self._vault is None:
            self._vault = load_vault(self.root, use_cache=True, schema=self.schema)
        return self._vault

    def _join(self, path: str, sources: set[str] | frozenset[str]) -> set[str]:
        """Record that `path` cites `sources` from now on; returns the sources it did not cite before."""
        before = self.sources_of(path)
        self.planned_sources[path] = before | frozenset(sources)
        joined = set(sources) - before
        # only these sources gain a page citing them: a page many sources feed would otherwise have the pages
        # citing each of its sources worked out again, for its See also, every time a source names it
        for source in joined:
            self._citing.pop(source, None)
        return joined

    def link_text(self, path: str) -> str:
        return self.links.link_text(path)

    # -- naming ----------------------------------------------------------------------------------------

    def new_path(self, page_type: str, name: str) -> str:
        folder = self.schema.page_folders.get(page_type, page_type + "s")
        base = slugify(name) or "page"
        candidate = f"{folder}/{base}.md"
        n = 2
        while (
            (self.root / candidate).exists()
            or candidate in self.texts
            or self._page_name_taken(posixpath.basename(candidate)[:-3])
        ):
            candidate = f"{folder}/{base}-{n}.md"
            n += 1
        self.links.add(candidate)
        return candidate

    def _page_name_taken(self, stem: str) -> bool:
        """Another page about a subject (on disk or planned) has the note name `stem`. A raw source or a source
        page of that name does not take it: "Graph view" is `entities/graph-view.md` beside
        `raw/articles/graph-view.md`, and the links to either are written with their folder."""
        if self._page_stems is None:
            self._page_stems = {fold_name(posixpath.basename(p)[:-3]) for p in self.disk_vault().files
                                if p.endswith(".md") and not self.is_hub_or_query(p)}
        planned = {fold_name(posixpath.basename(p)[:-3]) for p in self.texts if not self.is_hub_or_query(p)}
        return fold_name(stem) in self._page_stems | planned

    # -- compiling ------------------------------------------------------------------------------------

    def compile(self, plan: Plan, raw_path: str) -> SourceResult:
        """Plan, in memory, what the source `raw_path` (whose plan is `plan`) changes.

        All or nothing: when compiling the source raises, the compiler is left exactly as it was before
        the call (planned texts, page names, the mentions ledger, index entries, note names) and the
        exception propagates, so the caller can fail that source alone and go on with the next.
        """
        saved = _Checkpoint(
            dict(self.texts),
            dict(self.originals),
            list(self.index_entries),
            dict(self.planned_sources),
            self.links.copy(),
            self.names.snapshot(),
            self.mentions.snapshot(),
            dict(self.removed),
        )
        try:
            return self._compile(plan, raw_path)
        except BaseException:
            self.texts, self.originals, self.index_entries = saved.texts, saved.originals, saved.index_entries
            self.planned_sources, self.removed = saved.planned_sources, saved.removed
            self._citing = {}
            self.links = saved.links
            self.names.restore(saved.names)
            self.mentions.restore(saved.mentions)
            raise

    def _compile(self, plan: Plan, raw_path: str) -> SourceResult:
        result = SourceResult(raw_path)
        self._rejected = result.rejected
        src = raw_path
        t = self.schema.thresholds
        repair_names(self, plan, src, result)  # what an earlier compile wrote for names it refuses now
        # What this source adds to each page it names, as (kind, item): the kind says what the item holds
        # (an entity's facts, a concept's sections, a comparison's table), whatever kind of page it lands on.
        touched: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        fresh: dict[str, tuple[str, dict[str, Any]]] = {}  # new path -> (kind, ledger item)

        remembered = self._memories_by_subject(plan.memories, result)
        for entity in plan.entities:
            facts = [f for f in entity.facts if f.anchored]
            if entity.found and not facts and self.names.lookup(entity.name) is not None:
                continue  # a page's name written in passing: a mention, with nothing to add to the page
            result.dropped_facts += len(entity.facts) - len(facts)
            rels = [r for r in plan.relations if _same(r.source, entity.name) and r.fact.anchored]
            payload: dict[str, Any] = {
                "facts": [[f.text, str(f.anchor), claim_meta(f)] for f in facts],
                "relations": [[r.relation, r.target, str(r.fact.anchor)] for r in rels],
            }
            mine = next(
                (
                    title
                    for title in remembered
                    if _same(title, entity.name) or any(_same(title, a) for a in entity.aliases)
                ),
                None,
            )
            aliases = list(entity.aliases)
            if mine is not None:
                title_aliases, _, memories = remembered.pop(mine)
                payload["memories"] = memories
                aliases += [a for a in title_aliases if a not in aliases]
            self._place(
                "entity",
                entity.name,
                aliases,
                entity.summary,
                payload,
                src,
                # a name code found in the source, not the model, waits for a second source before its page
                max(t["entity_min_references"], 2) if entity.found else t["entity_min_references"],
                touched,
                fresh,
                result,
                entity,
            )
        for title, (aliases, detail, memories) in remembered.items():  # subjects only the memories name
            summary = (
                "Who the user is, and how they work."
                if detail == "person" and self.identity.is_user(title)
                else memories[0][1]
            )
            payload = {"facts": [], "relations": [], "memories": memories}
            self._place(
                "entity",
                title,
                aliases,
                summary,
                payload,
                src,
                t["entity_min_references"],
                touched,
                fresh,
                result,
                _Kind(detail),
            )

        for concept in plan.concepts:
            sections: dict[str, list[list[Any]]] = {}
            for section in concept.sections:
                facts = [f for f in section.facts if f.anchored]
                result.dropped_facts += len(section.facts) - len(facts)
                if facts:
                    sections.setdefault(clean_text(section.heading, 80), []).extend(
                        [f.text, str(f.anchor), claim_meta(f)] for f in facts
                    )
            payload = {"sections": sections}
            self._place("concept", concept.name, [], concept.summary, payload, src, 1, touched, fresh, result, concept)

        groups = [(entity.name, *entity.aliases) for entity in plan.entities]
        for comparison in plan.comparisons:
            self._comparison(comparison, groups, src, touched, fresh, result)

        # Link names: every page this source touches, and existing pages its relations name.
        link_names: dict[str, str] = {}
        for path in [*touched, *fresh]:
            for label in self.names.labels.get(path, []):
                if label:
                    link_names.setdefault(label, self.link_text(path))
        for relation in plan.relations:
            target = self.names.lookup(relation.target)
            if target:
                link_names.setdefault(relation.target, self.link_text(target))

        # Every page this source writes cites it (and a promoted page, the sources its ledger entry kept):
        # known before any page is rendered, so each page's See also lists all of them.
        grown: set[str] = set()  # raw sources that have a new page citing them
        for path, (_kind, item) in fresh.items():
            grown |= self._join(
                path, {*item["sources"], *(s for _, more in touched.get(path, []) for s in more["sources"])}
            )
        for path in touched:
            # a page `_update` skips (unreadable, or frontmatter unreadable: a person's) stays as it is, so it
            # does not cite the source, and its siblings do not list it
            if path not in fresh and self._writable(path):
                grown |= self._join(path, {src})

        for path, (kind, item) in fresh.items():
            self._write_new(path, kind, item, touched.get(path, []), link_names, result)
        for path, items in touched.items():
            if path not in fresh:
                self._update(path, items, src, link_names, result)
        # Pages written earlier from a source that has a new page now link to it too.
        written = set(result.created) | set(result.updated)
        for path in sorted({p for source in grown for p in self.citing(source)} - written):
            text = self.text(path)
            if text is None or not self._writable(path):
                continue
            new_text = self._see_also(path, text)
            if new_text != text:
                self._put(path, new_text)
                result.updated.append(path)
                result.linked.append(path)
        return result

    def _memories_by_subject(
        self, memories: tuple[Memory, ...], result: SourceResult
    ) -> dict[str, tuple[list[str], str, list[list[Any]]]]:
        """page title -> (aliases, kind of thing, memories as the ledger carries them), for the anchored
        memories of a source."""
        out: dict[str, tuple[list[str], str, list[list[Any]]]] = {}
        keys: dict[str, str] = {}
        for memory in memories:
            if not memory.fact.anchored:
                result.dropped_facts += 1
                continue
            title, aliases, detail = subject_of(memory, self.identity)
            title = clean_title(title)
            if not title:
                continue
            key = keys.setdefault(normalize_name(title), title)
            out.setdefault(key, (aliases, detail, []))[2].append(memory_payload(memory, self.today))
        return out

    def _memory_blocks(self, path: str, page: str, contributions: list[tuple[str, dict[str, Any]]],
                       link_names: dict[str, str], result: SourceResult) -> list[tuple[str, str, str | None]]:
        """The memory blocks of `path` once the memories of `contributions` joined the ones `page` has."""
        new = [
            m for _, sources in contributions for source in sorted(sources) for m in sources[source].get("memories", [])
        ]
        new.sort(key=lambda m: m[4])  # by day (stably): what was said first is the item, what repeats it merges
        if not new:
            return []
        me = self.link_text(path)
        merged = memory_blocks(
            page, new, lambda text: linkify(clean_text(text), link_names, skip={me})[0], self._cite, self.dedup
        )
        result.memories += merged.added
        result.memories_merged += merged.merged
        result.kept_edits.extend(f"{path}: {key}" for key in dict.fromkeys(merged.kept))
        return merged.blocks

    def _see_also(self, path: str, text: str) -> str:
        """`text` of a page this run does not otherwise write, with its Related section brought up to date
        (a page built on one of its sources was added)."""
        data, body = split_page(text)
        if data is None:
            return text
        kind = str(data.get("type") or "entity")
        rendered = self._render(path, kind, body, [], dict(data), {}, SourceResult(path))
        return dump_frontmatter(data) + rendered.lstrip("\n") if rendered != body else text

    def _is_query_page(self, path: str) -> bool:
        return self.folder_types.get(path.split("/", 1)[0]) == "query"

    def is_hub_or_query(self, path: str) -> bool:
        """Not a subject page: a source page, a query page, or a file outside the page folders."""
        return self.folder_types.get(path.split("/", 1)[0]) in (None, "query", "source")

    # -- repairing what an earlier compile wrote for names now refused (`repair.py`) ----------------------

    def rename(self, path: str, text: str | None, data: dict[str, Any], title: str) -> None:
        """Give the page at `path` the names in `data` (its title, its aliases), on the page and for lookups."""
        aliases = [a for a in data.get("aliases") or [] if isinstance(a, str)]
        self.names.drop(path)
        self.names.add(path, title, aliases)
        if text is not None:
            self._put(path, dump_frontmatter(data) + split_page(text)[1].lstrip("\n"))

    def without_source(self, path: str, src: str, data: dict[str, Any], result: SourceResult) -> str | None:
        """The page at `path` once what `src` said on it is taken off (it no longer cites `src`), planned; None
        when the page cannot be written (left as it is)."""
        text = self.text(path)
        if text is None or not self._writable(path):
            return None
        body = split_page(text)[1]
        kind = str(data.get("type") or "entity")
        sources = [s for s in data.get("sources") or [] if isinstance(s, str) and s != src]
        new_data = {**data, "sources": sources, "updated": self.today}
        rendered = self._render(path, kind, body, [(kind, {src: {"facts": [], "relations": []}})], new_data, {},
                                result)
        lead = find_block(rendered, LEAD_KEY)
        held = find_block(rendered, CLAIMS_KEY)
        lead_ids = set(re.findall(r"\^(c[0-9a-f]{8})\b", lead[3])) if lead is not None else set()
        if lead_ids and not any(i in (held[3] if held is not None else "") for i in lead_ids):
            rendered = remove_block(rendered, LEAD_KEY)[0]  # it was a claim of `src` alone: it goes with it
        new_text = dump_frontmatter(new_data) + rendered.lstrip("\n")
        self._put(path, new_text)
        self.planned_sources[path] = frozenset(sources)
        self._citing.clear()
        return new_text

    def remove(self, path: str, removed: Removed) -> None:
        """Remove the page at `path` (planned: the journal deletes it) and the links the compiler wrote to it."""
        target = self.link_text(path)
        self.removed[path] = removed
        self.names.drop(path)
        self.texts.pop(path, None)
        for other in self._linking_to(path):
            text = self.text(other)
            if text is None or not self._writable(other):
                continue
            new_text = unlinked(text, target)
            if new_text != text:
                self._put(other, new_text)

    def _linking_to(self, path: str) -> list[str]:
        """The pages (planned or on disk) whose text links to the page at `path`."""
        vault = self.disk_vault()
        stem = posixpath.basename(path)[:-3].casefold()
        on_disk = {p for p, note in vault.notes.items() if p.split("/", 1)[0] in self.folder_types
                   for link in note.links if posixpath.basename(link.target).casefold().removesuffix(".md") == stem}
        planned = {p for p, text in self.texts.items() if f"[[{self.link_text(path)}".casefold() in text.casefold()}
        return sorted((on_disk | planned) - {path} - set(self.removed))

    def _touch(
        self,
        path: str,
        kind: str,
        title: str,
        item: dict[str, Any],
        touched: dict[str, list[tuple[str, dict[str, Any]]]],
        result: SourceResult,
    ) -> None:
        if self._is_query_page(path):
            # A query page is a filed answer, rewritten only by `wikic query --refresh`: compiled facts
            # would be lost there, and would make the answer look stale.
            result.dropped_items.append(
                f"{kind} '{title}': its name is the query page {path}, which ingest does not write into"
            )
            return
        touched.setdefault(path, []).append((kind, item))

    def _place(
        self,
        kind: str,
        name: str,
        aliases: list[str],
        summary: str,
        payload: dict[str, Any],
        src: str,
        threshold: int,
        touched: dict[str, list[tuple[str, dict[str, Any]]]],
        fresh: dict[str, tuple[str, dict[str, Any]]],
        result: SourceResult,
        item: Any,
    ) -> None:
        title = clean_title(name)
        if not title:
            result.dropped_items.append(f"{kind} with an empty name")
            return
        aliases = [a for a in dict.fromkeys(clean_title(a) for a in aliases) if a]  # they reach frontmatter too
        path = self.names.lookup(title)
        # an alias that is another page's title or alias names that page's subject: the two stay apart
        elsewhere = [a for a in aliases if self.names.lookup(a) not in (None, path)]
        result.aliases_refused += [(title, a) for a in elsewhere]
        aliases = [a for a in aliases if a not in elsewhere]
        if path is not None:
            self._touch(
                path,
                kind,
                title,
                {
                    "name": title,
                    "aliases": aliases,
                    "summary": summary,
                    "sources": {src: payload},
                    "kind_detail": getattr(item, "kind", ""),
                },
                touched,
                result,
            )
            return
        key = self._mention_key(kind, title)
        entry = self.mentions.add(key, kind, title, aliases, clean_text(summary, 300), src, payload)
        entry["kind_detail"] = getattr(item, "kind", "") or entry.get("kind_detail", "")
        enough = len(entry["sources"]) >= max(threshold, 1)
        if kind == "entity":
            said = sum(len(p.get("facts", [])) + len(p.get("memories", [])) for p in entry["sources"].values())
            enough = enough and said >= self.schema.thresholds["entity_min_claims"]
            # and a source has said what it is: a name written only inside sentences about other subjects
            # ("…written in Rust by Mira Okafor") waits, with what was said, for a sentence of its own
            enough = enough and (bool(entry.get("summary")) or "memories" in payload or _said_of(entry))
        if kind == "concept":  # the sections of its layout its claims fill, as the page will show them
            layout = self.schema.layout("concept")
            headings = {
                layout.section_for(h, str(claim[0])) for p in entry["sources"].values()
                for h, claims in p.get("sections", {}).items() for claim in claims
            }
            enough = len(headings) >= self.schema.thresholds["concept_min_sections"]
        if not enough:
            result.pending.append(title)
            return
        # the page takes the name as the first source wrote it; the other forms are its aliases
        name = entry["name"]
        entry["aliases"] = sorted({*entry["aliases"], title} - {name})
        path = self.new_path(kind, name)
        self.names.add(path, name, entry["aliases"])
        fresh[path] = (kind, entry)
        self.mentions.pop(key)

    def _mention_key(self, kind: str, title: str) -> str:
        """The ledger key of a name waiting for its page: its base form ("Chroma" for "ChromaDB"), so every
        form a source writes counts towards one subject. An entry a ledger holds under the name's full form
        (written before forms were merged) is moved to it."""
        key = f"{kind}:{slugify(base_name(title)) or title.lower()}"
        older = f"{kind}:{slugify(title) or title.lower()}"
        if older != key and older in self.mentions.items and key not in self.mentions.items:
            self.mentions.items[key] = self.mentions.items.pop(older)
        return key

    def _comparison(
        self,
        comparison: Comparison,
        aliases: list[tuple[str, ...]],
        src: str,
        touched: dict[str, list[tuple[str, dict[str, Any]]]],
        fresh: dict[str, tuple[str, dict[str, Any]]],
        result: SourceResult,
    ) -> None:
        title = clean_title(comparison.name)
        table = build_table(comparison, aliases)
        result.dropped_facts += table.unanchored
        if len(table.subjects) < 2 or table.axes < self.schema.thresholds["comparison_min_axes"] or not title:
            result.dropped_items.append(
                f"comparison '{title}' ({len(table.subjects)} subjects with anchored cells, {table.axes} anchored axes)"
            )
            return
        item = {
            "name": title,
            "aliases": [],
            "summary": f"{', '.join(table.subjects)} compared on {table.axes} axes.",
            "sources": {src: table.payload},
        }
        path = self.names.lookup(title)
        if path is not None:
            self._touch(path, "comparison", title, item, touched, result)
            return
        path = self.new_path("comparison", title)
        self.names.add(path, title, [])
        fresh[path] = ("comparison", item)

    # -- rendering -----------------------------------------------------------------------------------

    def _contributions(
        self, path: str, contributions: list[tuple[str, dict[str, Any]]], link_names: dict[str, str]
    ) -> tuple[list[NewClaim], list[NewRelation], list[tuple[str, str, str | None]]]:
        """What `contributions` (kind, {source: payload}) put on `path`, whatever the page's kind: the claims
        of entities and concepts (each with the section it belongs in), the relations, and comparison tables
        (a block per source, under Comparison)."""
        me = self.link_text(path)
        claims: list[NewClaim] = []
        relations: list[NewRelation] = []
        tables: list[tuple[str, str, str | None]] = []
        for kind, sources in contributions:
            for source, payload in sorted(sources.items()):
                if kind == "comparison":
                    table = render_table(payload, self.names, self.link_text, self._cite)
                    tables.append((f"table:{source}", table, TABLE_SECTION))
                elif kind == "concept":
                    for heading, items in payload.get("sections", {}).items():
                        claims.extend(self._new_claim(path, item, heading, link_names, me) for item in items)
                elif kind == "entity":
                    facts = payload.get("facts", [])
                    claims.extend(self._new_claim(path, item, None, link_names, me) for item in facts)
                    for how, target, anchor in payload.get("relations", []):
                        target_path = self.names.lookup(target)
                        label = clean_text(target, 120)
                        shown = (
                            link(self.link_text(target_path), label) if target_path and target_path != path else label
                        )
                        relations.append(NewRelation(shown, clean_text(how, 80), self._cite(anchor)))
        return claims, relations, tables

    def _cite(self, anchor: str, *, in_table: bool = False) -> str:
        """The anchor for a claim: a link to the raw file (its name as text, or its path when another raw
        file has the same name) and the line range."""
        cited = parse_spec(anchor)
        if self._raw_names is None:
            files, _ = walk(self.root / RAW_DIR)
            self._raw_names = Counter(fold_name(posixpath.basename(p)) for p in files)
        shared = cited is not None and self._raw_names.get(fold_name(posixpath.basename(cited.path)), 0) > 1
        return render_anchor(anchor, label=cited.path if cited is not None and shared else None, in_table=in_table)

    def _new_claim(
        self, path: str, claim: list[Any], section: str | None, link_names: dict[str, str], me: str
    ) -> NewClaim:
        """A claim of a source on its way to page `path`: linked, cited, with the section it belongs in, and
        the interval and pairing the source states when they hold up (a refusal is recorded with its
        reason; the claim itself is written either way)."""
        text, anchor = claim[0], claim[1]
        meta: dict[str, Any] = claim[2] if len(claim) > 2 and isinstance(claim[2], dict) else {}
        linked, _ = linkify(clean_text(text), link_names, skip={me})
        citation = Citation(
            self._cite(anchor),
            _day(meta.get("seen")) or self.today,
            meta.get("via") or VIA_CAPTURED,
            BY_SENTENCE if meta.get("by") == BY_SENTENCE else None,
        )
        dated = checked_claim(Claim(claim_id(linked), linked, (citation,)), meta, self.today, self._rejected)
        replaces = meta.get("replaces")
        topic = self._pairing(path, dated, str(replaces)) if replaces else None
        said = section or (meta.get("section") if isinstance(meta.get("section"), str) else None)
        return NewClaim(said or "", linked, citation, dated.valid_from, dated.valid_to, topic)

    def _pairing(self, path: str, claim: Claim, replaces: str) -> str | None:
        """The topic `claim` joins by replacing the claim `replaces`, or None (refused, reason recorded)."""
        wanted = replaces.strip().lstrip("^")
        said = f"'{plain_text(claim.text)[:80]}' replaces {wanted}"
        if not is_claim_id(wanted):
            self._rejected.append(f"{said}: not a claim id")
            return None
        home = self._claim_home(wanted)
        if home is None:
            self._rejected.append(f"{said}: no page has a claim with that id")
            return None
        where, topic = home
        if where != path:
            self._rejected.append(f"{said}: that claim is about {where}, not {path}")
            return None
        if wanted == claim.id:
            return None  # the same claim from the same source: nothing to pair
        return topic

    def _claim_home(self, wanted: str) -> tuple[str, str] | None:
        """(the page the claim `wanted` is on, its topic), as planned in this run or else on disk, or None.
        The page is found by its block id in the parsed vault (cached), and only that page is read."""
        for path, text in self.texts.items():
            if wanted in text:
                found = next((c for c in scan(text) if c.id == wanted), None)
                if found is not None:
                    return path, found.topic_id
        if self._block_pages is None:
            vault = self.disk_vault()
            self._block_pages = {
                block.id: path for path in vault.pages for block in vault.notes[path].blocks if is_claim_id(block.id)
            }
        page = self._block_pages.get(wanted)
        if page is None:
            return None
        found = next((c for c in scan(self.text(page) or "") if c.id == wanted), None)
        return (page, found.topic_id) if found is not None else None

    def _render(
        self,
        path: str,
        kind: str,
        body: str,
        contributions: list[tuple[str, dict[str, Any]]],
        data: dict[str, Any],
        link_names: dict[str, str],
        result: SourceResult,
        *,
        lead: str | None = None,
    ) -> str:
        """`body` once `contributions` are on it (`wikic/compile/page.py`), with `data`'s `contested` set while
        its current claims contradict each other, and cleared once they no longer do (when it was the
        claims, as the page was before, that had set it), and its `summary` the page's lead as one line."""
        claims, relations, tables = self._contributions(path, contributions, link_names)
        memories = self._memory_blocks(path, body, contributions, link_names, result)
        sources = sorted({s for _, more in contributions for s in more})
        others = see_also(body, path, self.sources_of(path), self.citing, self.link_text)
        rendered = render_page(
            body,
            self.schema.layout(kind),
            sources,
            claims,
            relations,
            today=self.today,
            lead=lead,
            title=str(data.get("title") or ""),
            see_also=[link(self.link_text(p), self.names.titles.get(p)) for p in others],
            extra=[*tables, *memories],
        )
        result.superseded += rendered.moved
        result.kept_edits.extend(f"{path}: {key}" for key in rendered.kept)
        if rendered.conflicts:
            data["contested"] = True
            result.contested.append(path)
        elif data.get("contested") is True and contested(body, self.today):
            del data["contested"]
        shown = lead_of(None, rendered.body, limit=SUMMARY_CHARS)
        if shown:  # the frontmatter's summary says what the page's lead says, a person's edit of it included
            data["summary"] = shown
        return rendered.body

    def _write_new(
        self,
        path: str,
        kind: str,
        item: dict[str, Any],
        extra: list[tuple[str, dict[str, Any]]],
        link_names: dict[str, str],
        result: SourceResult,
    ) -> None:
        title = item["name"]
        sources = item["sources"]
        summary = clean_text(item.get("summary") or title, 300)
        text_for_tags = " ".join(
            [title, summary, *_claim_text([list(payload.values()) for payload in sources.values()])]
        )
        aliases = [
            a
            for a in dict.fromkeys(
                [*(item.get("aliases") or []), *(a for _, more in extra for a in more.get("aliases", []))]
            )
            if a and a.lower() != title.lower()
        ]
        data = {
            "title": title,
            "created": self.today,
            "updated": self.today,
            "type": kind,
            "tags": pick_tags(text_for_tags, item.get("kind_detail", ""), self.schema.tags),
            "aliases": aliases,
            "sources": sorted(self.sources_of(path)),
            "summary": summary,
        }
        body = page_skeleton(kind).opening(clean_text(title, 200))
        linked_summary, _ = linkify(summary, link_names, skip={self.link_text(path)})
        contributions = [(kind, sources), *((more_kind, more["sources"]) for more_kind, more in extra)]
        rendered = self._render(path, kind, body, contributions, data, link_names, result, lead=linked_summary)
        self._put(path, dump_frontmatter(data) + rendered)
        result.created.append(path)
        self.index_entries.append(Entry(kind, self.link_text(path), summary))

    def _update(
        self,
        path: str,
        items: list[tuple[str, dict[str, Any]]],
        src: str,
        link_names: dict[str, str],
        result: SourceResult,
    ) -> None:
        text = self.text(path)
        if text is None:
            result.dropped_items.append(f"{path}: unreadable, not updated")
            return
        data, body = split_page(text)
        if data is None:
            result.dropped_items.append(f"{path}: frontmatter unreadable, not updated")
            return
        sources = list(data.get("sources") or []) if isinstance(data.get("sources"), list) else []
        if src not in sources:
            sources.append(src)
        data["sources"] = sources
        data["updated"] = self.today
        known = {normalize_name(str(x)) for x in [*(data.get("aliases") or []), data.get("title", "")]}
        # the names this source gave the page's subject: its aliases, and another form of its name ("ChromaDB")
        given = (a for _, item in items for a in [item.get("name", ""), *item.get("aliases", [])])
        new_aliases = [a for a in dict.fromkeys(given) if a and normalize_name(a) not in known]
        if new_aliases and isinstance(data.get("aliases", []), list):
            data["aliases"] = [*(data.get("aliases") or []), *new_aliases]
        contributions = [(kind, item["sources"]) for kind, item in items]
        kind = str(data.get("type") or items[0][0])
        # a page that has no lead yet takes the first one a source gives it (its first source may have named
        # the subject only inside another's lead)
        offered = next((str(item.get("summary") or "") for _, item in items if item.get("summary")), "")
        lead = linkify(offered, link_names, skip={self.link_text(path)})[0] \
            if offered and not _has_lead(body) else None
        rendered = self._render(path, kind, body, contributions, data, link_names, result, lead=lead)
        new_text = dump_frontmatter(data) + rendered.lstrip("\n")
        # the frontmatter's `updated` alone is no change: a recompile that changes nothing writes nothing
        if split_page(new_text)[1].lstrip("\n") != body.lstrip("\n") or src not in (text or ""):
            self._put(path, new_text)
            result.updated.append(path)


@dataclass
class _Checkpoint:
    """The compiler's state before a source, to return to if compiling the source fails."""

    texts: dict[str, str]
    originals: dict[str, str | None]
    index_entries: list[Entry]
    planned_sources: dict[str, frozenset[str]]
    links: LinkNames
    names: PageNames
    mentions: dict[str, dict[str, Any]]
    removed: dict[str, Removed]


def _said_of(entry: dict[str, Any]) -> bool:
    """A claim the ledger holds for `entry` is about its subject (`vault.names.is_about`: it opens with its name)."""
    name, aliases = str(entry.get("name", "")), [str(a) for a in entry.get("aliases") or []]
    return any(claim and is_about(str(claim[0]), name, aliases)
               for payload in entry.get("sources", {}).values() if isinstance(payload, dict)
               for claim in payload.get("facts", []))


def _has_lead(body: str) -> bool:
    """The page's lead block holds text (a person's own paragraph before the first section counts too)."""
    if lead_of(None, body):
        return True
    head = body.split("\n## ", 1)[0]
    return any(line.strip() and not line.startswith(("#", "<!--", "%%")) for line in head.split("\n"))


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


@dataclass(frozen=True)
class _Kind:
    """What `_place` reads of an item: the kind of thing it is (tags follow it)."""

    kind: str


def _day(value: Any) -> dt.date | None:
    try:
        return dt.date.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _same(a: str, b: str) -> bool:
    return bool(set(name_keys(a)) & set(lookup_keys(b)))

