"""The compiler: an anchored plan becomes pages. Code decides every file name, link, tag and line of
frontmatter; the model's words only fill compiler-owned blocks (see `wikic/pages/blocks.py`).

One `Compiler` serves a whole run: it keeps the texts it has planned in memory (`drafts.py`), so a later
source in the same run sees the pages an earlier one created. A source is compiled in steps: what an earlier
compile wrote for names now refused is undone (`repair.py`), its plan is placed on the pages of its subjects
(`placing.py`), then those pages are written (`writing.py`) and the pages built on the same raw sources
linked. Each source is compiled all or nothing: if compiling it raises, the compiler is back where it was
before it, and the caller fails that source alone.

What a source says about a name lands on the page of that name, whatever kind of page it is: an entity's
facts, a concept's sections and a comparison's table are blocks of their own, keyed by source, and the
page keeps its kind. Only query pages (filed answers) are never written into. Pages built on the same raw
source link to each other (`siblings.py`), also when they were written by different runs.
"""

from __future__ import annotations

import datetime as dt
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from wikic.compile.drafts import Drafts, DraftsSaved
from wikic.compile.mentions import Mentions
from wikic.compile.on_disk import OnDisk
from wikic.compile.placing import Placed, place_plan
from wikic.compile.plan import Plan
from wikic.compile.repair import repair_names
from wikic.compile.result import Removed, SourceResult
from wikic.compile.writing import PageWriter, with_see_also
from wikic.memory.identity import Identity
from wikic.memory.kept_vectors import KeptVectors
from wikic.memory.merge import Deduplicator, Embed
from wikic.pages.index_file import Entry
from wikic.vault.formats.mentions import Mention
from wikic.vault.link_text import LinkNames
from wikic.vault.load import Vault
from wikic.vault.names import PageNames
from wikic.vault.resolve import fold_name
from wikic.vault.schema_md import Schema
from wikic.vault.slug import slugify


@dataclass(frozen=True)
class CompileSetting:
    """What holds for a whole run's compile: the vault, its SCHEMA.md, the day, and who the user is (whose
    page their memories go on)."""

    root: Path
    schema: Schema
    today: dt.date
    identity: Identity = field(default_factory=Identity)


class Compiler:
    def __init__(
        self,
        setting: CompileSetting,
        names: PageNames,
        mentions: Mentions,
        links: LinkNames,
        *,
        embed: Callable[[], Embed | None] | None = None,
        kept: KeptVectors | None = None,
        vault: Vault | None = None,
    ) -> None:
        """`embed`: loads the embedding model that tells duplicate memories apart (none: only the same words
        are a duplicate), and `kept` the vectors it made in earlier runs; `vault`: the vault on disk, when the
        caller has read it (`disk_vault`)."""
        self.setting = setting
        self.names = names
        self.mentions = mentions
        self.links = links  # every note name of the vault, and of the pages planned: for unambiguous link text
        self.dedup = Deduplicator(embed, kept)
        self.disk = OnDisk(setting.root, setting.schema, vault)
        self.drafts = Drafts(self.disk)

    # -- what the run plans, for the write -------------------------------------------------------------

    @property
    def texts(self) -> dict[str, str]:
        """path -> the text this run plans for it."""
        return self.drafts.texts

    @property
    def originals(self) -> dict[str, str | None]:
        """path -> the text on disk before this run (None: new)."""
        return self.drafts.originals

    @property
    def index_entries(self) -> list[Entry]:
        return self.drafts.index_entries

    @property
    def removed(self) -> dict[str, Removed]:
        """The pages this run removes: named by a word that is no subject."""
        return self.drafts.removed

    # -- reading ---------------------------------------------------------------------------------------

    def text(self, path: str) -> str | None:
        """The page's text as this run leaves it; None for no page, or one that cannot be read (not UTF-8, a
        link leading outside the vault: never read, and never written into)."""
        return self.drafts.text(path)

    def sources_of(self, path: str) -> frozenset[str]:
        """The raw sources page `path` cites, as planned so far."""
        return self.drafts.sources_of(path)

    def citing(self, source: str) -> tuple[str, ...]:
        """The pages (query pages aside) that cite the raw file `source`, as planned so far, in path order."""
        return self.drafts.citing(source)

    def disk_vault(self) -> Vault:
        """The vault as it is on disk, read once."""
        return self.disk.vault()

    def is_hub_or_query(self, path: str) -> bool:
        """Not a subject page: a source page, a query page, or a file outside the page folders."""
        return self.disk.is_hub_or_query(path)

    def link_text(self, path: str) -> str:
        return self.links.link_text(path)

    # -- naming ----------------------------------------------------------------------------------------

    def new_path(self, page_type: str, name: str) -> str:
        folder = self.setting.schema.page_folders.get(page_type, page_type + "s")
        base = slugify(name) or "page"
        candidate = f"{folder}/{base}.md"
        n = 2
        while (
            (self.setting.root / candidate).exists()
            or candidate in self.drafts.texts
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
        planned = {fold_name(posixpath.basename(p)[:-3]) for p in self.drafts.texts if not self.is_hub_or_query(p)}
        return fold_name(stem) in self.disk.page_stems() | planned

    # -- compiling ------------------------------------------------------------------------------------

    def compile(self, plan: Plan, raw_path: str) -> SourceResult:
        """Plan, in memory, what the source `raw_path` (whose plan is `plan`) changes.

        All or nothing: when compiling the source raises, the compiler is left exactly as it was before
        the call (planned texts, page names, the mentions ledger, index entries, note names) and the
        exception propagates, so the caller can fail that source alone and go on with the next.
        """
        saved = _Checkpoint(self.drafts.save(), self.links.copy(), self.names.snapshot(), self.mentions.snapshot())
        try:
            return self._compile(plan, raw_path)
        except BaseException:
            self.drafts.restore(saved.drafts)
            self.links = saved.links
            self.names.restore(saved.names)
            self.mentions.restore(saved.mentions)
            raise

    def _compile(self, plan: Plan, src: str) -> SourceResult:
        result = SourceResult(src)
        repair_names(self, plan, src, result)  # what an earlier compile wrote for names it refuses now
        placed = place_plan(self, plan, src, result)
        writer = PageWriter(self, self._link_names(plan, placed), result)
        grown = self._join(placed)
        for path, (kind, item) in placed.fresh.items():
            writer.write_new(path, kind, item, placed.touched.get(path, []))
        for path, items in placed.touched.items():
            if path not in placed.fresh:
                writer.update(path, items, src)
        self._link_new_siblings(grown, result)
        return result

    def _link_names(self, plan: Plan, placed: Placed) -> dict[str, str]:
        """name -> link text, for the names the source's text links: every page it touches, and the pages
        there are of the names its relations give."""
        link_names: dict[str, str] = {}
        for path in [*placed.touched, *placed.fresh]:
            for label in self.names.labels.get(path, []):
                if label:
                    link_names.setdefault(label, self.link_text(path))
        for relation in plan.relations:
            target = self.names.lookup(relation.target)
            if target:
                link_names.setdefault(relation.target, self.link_text(target))
        return link_names

    def _join(self, placed: Placed) -> set[str]:
        """Record that every page the source writes cites it (and a promoted page, the sources its ledger entry
        kept), before any page is rendered, so each page's See also lists all of them; returns the raw sources
        that have a new page citing them."""
        grown: set[str] = set()
        for path, (_kind, item) in placed.fresh.items():
            more = {s for _, extra in placed.touched.get(path, []) for s in extra.sources}
            grown |= self.drafts.join(path, {*item.sources, *more})
        for path in placed.touched:
            # a page the writer skips (unreadable, or frontmatter unreadable: a person's) stays as it is, so it
            # does not cite the source, and its siblings do not list it
            if path not in placed.fresh and self.drafts.writable(path):
                grown |= self.drafts.join(path, {placed.src})
        return grown

    def _link_new_siblings(self, grown: set[str], result: SourceResult) -> None:
        """Pages written earlier from a source that has a new page now link to it too."""
        written = set(result.created) | set(result.updated)
        for path in sorted({p for source in grown for p in self.citing(source)} - written):
            text = self.text(path)
            if text is None or not self.drafts.writable(path):
                continue
            new_text = with_see_also(self, path, text)
            if new_text != text:
                self.drafts.put(path, new_text)
                result.updated.append(path)
                result.linked.append(path)


@dataclass(frozen=True)
class _Checkpoint:
    """The compiler's state before a source, to return to if compiling the source fails."""

    drafts: DraftsSaved
    links: LinkNames
    names: PageNames
    mentions: dict[str, Mention]
