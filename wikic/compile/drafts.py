"""The pages a run plans, in memory until the write: each page's planned text and the text it had on disk
before the run, the raw sources each cites as planned, index.md's new entries and the pages removed.

A page not planned yet reads as it is on disk (`on_disk.py`); once planned, as the run leaves it, so a later
source of the same run sees what an earlier one wrote.
"""

from __future__ import annotations

from dataclasses import dataclass

from wikic.compile.on_disk import OnDisk
from wikic.compile.result import Removed
from wikic.pages.index_file import Entry
from wikic.vault.formats.claims import scan
from wikic.vault.frontmatter import split_page


@dataclass(frozen=True)
class DraftsSaved:
    """The drafts as they were before a source, to return to if compiling the source fails."""

    texts: dict[str, str]
    originals: dict[str, str | None]
    index_entries: list[Entry]
    planned_sources: dict[str, frozenset[str]]
    removed: dict[str, Removed]


class Drafts:
    def __init__(self, disk: OnDisk) -> None:
        self.disk = disk
        self.texts: dict[str, str] = {}  # path -> planned text
        self.originals: dict[str, str | None] = {}  # path -> text on disk before this run (None: new)
        self.index_entries: list[Entry] = []
        self.planned_sources: dict[str, frozenset[str]] = {}  # path -> raw sources of a page planned in this run
        self.removed: dict[str, Removed] = {}  # pages this run removes: named by a word that is no subject
        self._citing: dict[str, tuple[str, ...]] = {}  # raw source -> the pages citing it (`citing`), as planned

    def text(self, path: str) -> str | None:
        """The page's text as this run leaves it; None for no page, or one that cannot be read (never
        written into)."""
        if path in self.texts:
            return self.texts[path]
        text = self.disk.read(path)
        if text is not None:
            self.originals.setdefault(path, text)
        return text

    def put(self, path: str, text: str) -> None:
        if path not in self.originals:
            self.originals[path] = self.disk.read_replacing(path)
        self.texts[path] = text

    def writable(self, path: str) -> bool:
        """The page can be written into: its text and its frontmatter read. Any other page is left byte for
        byte as it is (the source's report says why)."""
        text = self.text(path)
        return text is not None and split_page(text)[0] is not None

    def sources_of(self, path: str) -> frozenset[str]:
        """The raw sources page `path` cites, as planned so far."""
        if path in self.planned_sources:
            return self.planned_sources[path]
        return self.disk.sources().get(path, frozenset())

    def citing(self, source: str) -> tuple[str, ...]:
        """The pages (query pages aside) that cite the raw file `source`, as planned so far, in path order. Worked
        out once until a page is planned to cite more (`join`): every page a source writes asks for the pages
        citing each of its sources, and a source many pages cite has thousands."""
        known = self._citing.get(source)
        if known is not None:
            return known
        pages = {p for p in self.disk.citing(source) if p not in self.planned_sources}
        pages.update(p for p, sources in self.planned_sources.items() if source in sources)
        found = self._citing[source] = tuple(sorted(p for p in pages if not self.disk.is_query_page(p)))
        return found

    def join(self, path: str, sources: set[str] | frozenset[str]) -> set[str]:
        """Record that `path` cites `sources` from now on; returns the sources it did not cite before."""
        before = self.sources_of(path)
        self.planned_sources[path] = before | frozenset(sources)
        joined = set(sources) - before
        # only these sources gain a page citing them: a page many sources feed would otherwise have the pages
        # citing each of its sources worked out again, for its See also, every time a source names it
        for source in joined:
            self._citing.pop(source, None)
        return joined

    def cite_only(self, path: str, sources: list[str]) -> None:
        """Record that `path` cites `sources` and no other from now on."""
        self.planned_sources[path] = frozenset(sources)
        self._citing.clear()

    def claim_home(self, wanted: str) -> tuple[str, str] | None:
        """(the page the claim `wanted` is on, its topic), as planned in this run or else on disk, or None.
        The page is found by its block id in the parsed vault (cached), and only that page is read."""
        for path, text in self.texts.items():
            if wanted in text:
                found = next((c for c in scan(text) if c.id == wanted), None)
                if found is not None:
                    return path, found.topic_id
        page = self.disk.page_of_claim(wanted)
        if page is None:
            return None
        found = next((c for c in scan(self.text(page) or "") if c.id == wanted), None)
        return (page, found.topic_id) if found is not None else None

    def save(self) -> DraftsSaved:
        return DraftsSaved(dict(self.texts), dict(self.originals), list(self.index_entries),
                           dict(self.planned_sources), dict(self.removed))

    def restore(self, saved: DraftsSaved) -> None:
        self.texts, self.originals, self.index_entries = saved.texts, saved.originals, saved.index_entries
        self.planned_sources, self.removed = saved.planned_sources, saved.removed
        self._citing = {}
