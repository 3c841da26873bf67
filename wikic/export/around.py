"""What the site shows around a page: its backlinks, the pages of its cluster and the sources that fed it.

Clusters are the overview's groups (`hubs/groups.py`: Louvain communities of the links between subject
pages, seeded, else the pages' first tags), so the site and `overview.md` group a wiki the same way. They
travel in the graph's data, from which each page lists its cluster and draws its neighbourhood: a link
added anywhere may move pages between communities, and then the graph's data is written again, not every
page of the clusters that moved. A page's sources are the raw files its frontmatter lists and those its
citations quote, each with the source page that describes it when the vault has one.
"""

from __future__ import annotations

import hashlib
import html
import posixpath
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from wikic.hubs.groups import Group, group_pages
from wikic.hubs.view import SOURCE_TYPE, listed_sources
from wikic.vault.graph import is_citation
from wikic.vault.load import Vault

if TYPE_CHECKING:
    from wikic.export.site import Site


@dataclass(frozen=True)
class Parts:
    """The lists around one page: `inputs` is what they are made from (for the page's digest)."""

    host: str
    backlinks: tuple[str, ...]
    sources: tuple[tuple[str, str | None], ...]  # (raw path, its source page)
    site: Site

    @property
    def inputs(self) -> list[Any]:
        title = self.site.title
        return [[(p, title(p)) for p in self.backlinks],
                [(raw, page, title(page) if page else "") for raw, page in self.sources]]

    def _link(self, path: str, text: str | None = None) -> str:
        shown = html.escape(self.site.title(path) if text is None else text)
        return f'<a class="internal" href="{html.escape(self.site.href(self.host, path))}">{shown}</a>'

    def html(self) -> dict[str, str]:
        backlinks = "".join(f"<li>{self._link(p)}</li>" for p in self.backlinks)
        sources = []
        for raw, page in self.sources:
            shown = self._link(raw, posixpath.basename(raw)) if raw in self.site.outputs else (
                f'<a class="broken">{html.escape(posixpath.basename(raw))}</a>')
            sources.append(f"<li>{shown}" + (f" ({self._link(page)})" if page else "") + "</li>")
        return {
            "backlinks": f'<ul class="backlinks">{backlinks}</ul>' if backlinks else
            '<p class="none">No page links here.</p>',
            "sources": f'<ul class="sources">{"".join(sources)}</ul>' if sources else
            '<p class="none">No source cited.</p>',
        }


class Around:
    """The links between the site's notes, and the lists each page shows from them."""

    def __init__(self, site: Site, vault: Vault, known_groups: list[Any] | None = None) -> None:
        self.site = site
        self.vault = vault
        self.known_groups = known_groups or []  # [what they were found from, the groups] of the previous export
        self.found_groups: list[Any] = []
        self._orders: dict[str, tuple[str, str]] = {}

    @cached_property
    def outbound(self) -> dict[str, frozenset[str]]:
        """note -> the other notes of the site it links to (citations aside: they lead to raw sources)."""
        site = self.site
        notes = set(site.notes)
        return {path: frozenset(t for t in site.resolved(path) if t in notes and t != path) for path in site.notes}

    @cached_property
    def backlinks(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for source in self.site.notes:
            for target in self.outbound[source]:
                found.setdefault(target, []).append(source)
        return found

    @cached_property
    def groups(self) -> list[Group]:
        site = self.site
        subjects = [p for p in self.vault.subject_pages if p in site.outputs]
        members = frozenset(subjects)
        every = self.outbound
        outbound = {p: every[p] & members for p in subjects}
        # finding communities takes a while on a big wiki: the previous export's groups serve while the pages,
        # their links, tags and titles are the same
        key = hashlib.sha256(repr([(p, site.title(p), self._tags(p), sorted(outbound[p])) for p in subjects])
                             .encode("utf-8", "surrogatepass")).hexdigest()
        known = self.known_groups
        if len(known) == 2 and known[0] == key and isinstance(known[1], list):
            groups = [Group(label, tuple(pages), by) for label, pages, by in known[1]]
        else:
            inbound = Counter(t for targets in outbound.values() for t in targets)
            groups = group_pages(subjects, outbound, inbound, self._tags,
                                 lambda p: (self.vault.page_type(p) or "note").capitalize() + "s", site.title)
        self.found_groups = [key, [[g.label, list(g.pages), g.by] for g in groups]]
        return groups

    @cached_property
    def group_of(self) -> dict[str, int]:
        return {page: n for n, group in enumerate(self.groups) for page in group.pages}

    @cached_property
    def source_pages(self) -> dict[str, str]:
        """raw path -> its source page (the first, in path order, whose `sources` names it)."""
        out: dict[str, str] = {}
        for page in self.site.notes:
            if self.vault.page_type(page) == SOURCE_TYPE:
                for raw in listed_sources(self.site.note(page).frontmatter or {})[:1]:
                    out.setdefault(raw, page)
        return out

    def _order(self, path: str) -> tuple[str, str]:
        """Where a page goes in a list of pages: by title, then path."""
        found = self._orders.get(path)
        if found is None:
            found = self._orders[path] = (self.site.title(path).casefold(), path)
        return found

    def _tags(self, path: str) -> list[str]:
        tags = (self.site.note(path).frontmatter or {}).get("tags")
        if not isinstance(tags, list):
            return []
        return [t.strip().lstrip("#").lower() for t in tags if isinstance(t, str) and t.strip()]

    def of(self, path: str) -> Parts:
        site = self.site
        backlinks = tuple(sorted(self.backlinks.get(path, []), key=self._order))
        note = site.note(path)
        # the citations as lint reads them (none in code), each where it lands
        cited = {found or lk.target for lk, found in zip(note.links, site.resolved(path), strict=True)
                 if is_citation(lk, None)}
        raws = dict.fromkeys([*listed_sources(note.frontmatter or {}), *sorted(cited)])
        sources = tuple((raw, self.source_pages.get(raw) if self.source_pages.get(raw) != path else None)
                        for raw in raws)
        return Parts(path, backlinks, sources, site)
