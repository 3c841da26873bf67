"""What a run writes into the hubs, planned beside its own writes and handed to the same journal.

An ingest plans its pages, then plans, from the vault as those pages leave it: the source page of every
source it compiled (and of any compiled source that has none yet: a vault an earlier version made gets its
source pages from the next ingest), overview.md, and the index.md entries of the pages whose lead may have
changed. A saved answer or `lint --fix` asks for less. Nothing here writes: the caller's journal does.

    hubs = HubPlanner(root, schema, today, planned=texts, compiled=entries)
    pages = hubs.source_pages(sources)         # raw path -> its source page (new ones named here)
    hubs.log(rows)                              # rows that link those pages: the overview's latest changes
    plan = hubs.plan(changed=old_texts)         # the hub texts and index entries, for the journal
"""

from __future__ import annotations

import datetime as dt
import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic.hubs.overview import render_overview
from wikic.hubs.source_page import render_source_page, shown_of, source_page_name
from wikic.hubs.view import SOURCE_TYPE, build_view, listed_sources
from wikic.pages.index_file import Entry
from wikic.pages.log_file import read_rows
from wikic.vault.formats.compiled import CompiledEntry
from wikic.vault.formats.mentions import Mention
from wikic.vault.frontmatter import split_page
from wikic.vault.layout import OVERVIEW_FILE, PAGE_FOLDERS, RAW_DIR
from wikic.vault.lead import page_lead
from wikic.vault.load import Vault
from wikic.vault.paths import read_text_inside
from wikic.vault.schema_md import Schema


@dataclass
class HubPlan:
    pages: dict[str, tuple[str | None, str]] = field(default_factory=dict)  # path -> (text on disk, new text)
    entries: list[Entry] = field(default_factory=list)  # index.md entries to add or rewrite
    was: dict[str, list[str]] = field(default_factory=dict)  # link -> what its entry said before (rewritable)


class HubPlanner:
    """The hubs of one run, planned from the vault as the run's `planned` texts (path -> text), compiled
    ledger entries (`compiled`, laid over the ledger) and mentions ledger (`mentions`, None: as it is) leave
    it."""

    def __init__(
        self,
        root: Path,
        schema: Schema,
        today: dt.date,
        *,
        planned: Mapping[str, str] | None = None,
        compiled: Mapping[str, CompiledEntry] | None = None,
        mentions: Mapping[str, Mention] | None = None,
        vault: Vault | None = None,
        removed: Iterable[str] = (),
    ) -> None:
        """`vault`: the vault as on disk, when the run has read it already (it is taken over); `removed`: the
        pages the run removes."""
        self.root = Path(root)
        self.schema = schema
        self.today = today
        self.view = build_view(self.root, schema, planned=planned, compiled=compiled, mentions=mentions,
                               vault=vault, removed=removed)
        self._known = dict(self.view.source_pages)  # raw path -> the source page it has already
        self._wanted: dict[str, str] = {}  # raw path -> the source page to write
        self._rendered: dict[str, tuple[str, str | None, str]] | None = None  # raw -> (path, current, new)
        self._create_only = False

    def source_pages(self, sources: Iterable[str] = (), *, missing: bool = True) -> dict[str, str]:
        """raw path -> source page, for `sources` and (`missing`) every source that is compiled, or that a
        subject page is built on, and has no source page yet: these are the ones `plan` writes. A new page
        takes a name no file of the vault has, and is listed among its files at once (links to it resolve)."""
        view = self.view
        wanted = list(dict.fromkeys(sources))
        if missing:
            wanted += [r for r in sorted({*view.fed, *view.compiled}) if r not in self._known]
        folder = self.schema.page_folders.get(SOURCE_TYPE, PAGE_FOLDERS[SOURCE_TYPE])
        taken = {p.casefold() for p in view.vault.files}
        for raw in dict.fromkeys(wanted):
            if raw in self._wanted or not view.exists(raw):
                continue
            path = self._known.get(raw)
            if path is None:
                base = source_page_name(raw)
                path, n = f"{folder}/{base}.md", 2
                while path.casefold() in taken:
                    path = f"{folder}/{base}-{n}.md"
                    n += 1
                taken.add(path.casefold())
                view.reserve(path)
            self._wanted[raw] = path
        return {raw: self._wanted[raw] for raw in dict.fromkeys(wanted) if raw in self._wanted}

    def sources_shown_otherwise(self, changed: Mapping[str, str | None]) -> list[str]:
        """The raw sources whose pages may read otherwise once these pages changed (path -> the page's text
        before, None: new; the text after is the view's, None: gone). A page changes what a source page shows
        of it when the source's points or anchors on it change, when it starts or stops listing the source,
        or, for all its sources, when it is new or gone, retitled or retyped, or bears the name of a page the
        run added or removed (links to it may be written otherwise). Any other source page would be
        rendered the same: a page that many sources fed and one source changed rewrites one source page."""
        after = {path: self.view.text(path) for path in changed}
        names = {_name(path) for path, before in changed.items() if before is None or after[path] is None}
        out: dict[str, None] = {}
        for path, before in changed.items():
            now = after[path]
            was = (split_page(before)[0] or {}) if before is not None else {}
            is_now = self.view.frontmatter(path) if now is not None else {}
            listed_before, listed_now = set(listed_sources(was)), set(listed_sources(is_now))
            if before is None or now is None or _name(path) in names or _identity(was) != _identity(is_now):
                out.update(dict.fromkeys(sorted(listed_before | listed_now)))
                continue
            shown_before, shown_now = shown_of(self.view, path, before), shown_of(self.view, path)
            shown = {raw for raw in (*shown_before, *shown_now) if raw.startswith(RAW_DIR + "/")}
            for raw in sorted(listed_before | listed_now | shown):
                if (raw in listed_before) != (raw in listed_now) or shown_before.get(raw) != shown_now.get(raw):
                    out[raw] = None
        return list(out)

    def source_page(self, raw: str) -> str | None:
        """The source page `raw` has, or gets from this plan."""
        return self._wanted.get(raw) or self._known.get(raw)

    def link(self, path: str, label: str | None = None) -> str:
        """A link to `path` as the hubs write it (in the vault as this plan leaves it)."""
        return self.view.link(path, label)

    def log(self, rows: Iterable[str]) -> None:
        """Rows the run appends to log.md: the overview's latest changes show them."""
        self.view.rows.extend(read_rows("\n".join(rows)))

    def render_sources(self, *, create_only: bool = False) -> None:
        """Write the source pages `source_pages` named (in memory: the vault seen from here holds them, so a
        link to one carries its title). `create_only`: none that exists already."""
        if self._rendered is not None:
            return
        self._rendered = {}
        known = set(self._known.values())
        for raw, path in self._wanted.items():
            current = self.view.text(path) if path in known else None
            if create_only and current is not None:
                continue
            self._rendered[raw] = (path, current, render_source_page(self.view, raw, path, self.today, current))
        for path, current, new in self._rendered.values():
            if new != current:
                self.view.put(path, new)

    def plan(
        self, *, overview: bool = True, changed: Mapping[str, str | None] | None = None, create_only: bool = False
    ) -> HubPlan:
        """The source pages `source_pages` named, overview.md (`overview`), and the index.md entries of those
        and of the subject pages `changed` (path -> its text before, None for a new page); `create_only`:
        no hub that exists already is written (`wikic init`)."""
        view = self.view
        out = HubPlan()
        self.render_sources(create_only=create_only)
        assert self._rendered is not None
        for path, current, new in self._rendered.values():
            if new == current:
                continue
            out.pages[path] = (_disk(self.root, path), new)
            link = view.link_names.link_text(path)
            out.entries.append(Entry(SOURCE_TYPE, link, page_lead(new)))
            if current is not None:
                out.was[link] = _was(current)
        if overview:
            current = view.text(OVERVIEW_FILE)
            if not (create_only and current is not None):
                new = render_overview(view, current)
                if new != current:
                    out.pages[OVERVIEW_FILE] = (_disk(self.root, OVERVIEW_FILE), new)
        for path, before in (changed or {}).items():
            text = view.text(path)
            if text is None or not view.vault.is_page(path) or view.vault.is_hub(path):
                continue
            link = view.link_names.link_text(path)
            out.entries.append(Entry(view.kind(path), link, page_lead(text)))
            if before is not None:
                out.was[link] = _was(before)
        return out


def plan_hubs(
    root: Path,
    schema: Schema,
    today: dt.date,
    *,
    planned: Mapping[str, str] | None = None,
    sources: Iterable[str] = (),
    missing: bool = True,
    overview: bool = True,
    rows: Iterable[str] = (),
    changed: Mapping[str, str | None] | None = None,
    create_only: bool = False,
) -> HubPlan:
    """The hubs of a run whose source pages need no link in its log rows (a saved answer, `lint --fix`,
    `init`): `HubPlanner` in one call."""
    planner = HubPlanner(root, schema, today, planned=planned)
    planner.source_pages(sources, missing=missing)
    planner.log(rows)
    return planner.plan(overview=overview, changed=changed, create_only=create_only)


def _name(path: str) -> str:
    return posixpath.basename(path).casefold().removesuffix(".md")


def _identity(frontmatter: Mapping[str, Any]) -> tuple[object, ...]:
    """What a source page's lines about a page read from its frontmatter: its title and type."""
    return frontmatter.get("title"), frontmatter.get("type")


def _was(text: str) -> list[str]:
    """What an index.md entry written for the page `text` may say: its lead, its summary, its title (the
    forms this and earlier versions wrote)."""
    data, _ = split_page(text)
    said = [page_lead(text)]
    for key in ("summary", "title"):
        value = (data or {}).get(key)
        if isinstance(value, str) and value.strip():
            said.append(" ".join(value.split()))
    return list(dict.fromkeys(said))


def _disk(root: Path, path: str) -> str | None:
    try:
        return read_text_inside(root, root / path)
    except (OSError, UnicodeDecodeError):
        return None
