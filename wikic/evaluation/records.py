"""What each subject page gave the report, kept in `.wikic/cache/eval-pages.json` while it holds: what the page
alone gives (`PageRead`), while its size and mtime are the same, and what its anchors gave (`AnchorsChecked`),
while the raw files they cite are the same too. Read and written here alone; a row of another shape is read
as missing, and the page is read again."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic import __version__
from wikic.evaluation.checks import Said
from wikic.vault.schema_md import Schema
from wikic.vault.state import EVAL_PAGES, read_cache_json, write_cache

FORMAT = 4  # the cache's rows; another format, and the cache is made anew


@dataclass(frozen=True, slots=True)
class PageRead:
    """What a page alone gives: its sentences and claims counted, its sections against the layout, the claims
    and cited sentences with their anchors, its title, the names its quotes may leave unsaid, its links."""

    sentences: int
    cited: int
    claims: int
    anchored: int
    sections: int
    in_layout: int
    said: tuple[Said, ...]
    title: str
    names: tuple[str, ...]
    links: int

    def to_json(self) -> list[Any]:
        return [self.sentences, self.cited, self.claims, self.anchored, self.sections, self.in_layout,
                [[s.text, list(s.cited), s.claim] for s in self.said], self.title, list(self.names), self.links]

    @classmethod
    def from_json(cls, data: Any) -> PageRead | None:
        try:
            sentences, cited, claims, anchored, sections, in_layout, said, title, names, links = data
            statements = tuple(Said(str(text), tuple(str(s) for s in specs), bool(claim))
                               for text, specs, claim in said)
            counts = (sentences, cited, claims, anchored, sections, in_layout, links)
            if not all(isinstance(n, int) for n in counts):
                return None
            return cls(sentences, cited, claims, anchored, sections, in_layout, statements, str(title),
                       tuple(str(n) for n in names), links)
        except (TypeError, ValueError):
            return None


@dataclass(frozen=True, slots=True)
class AnchorsChecked:
    """What a page's anchors gave against `raw/` in the state `state` names (the raw files' sizes and times, and
    the hashes recorded at capture: `reading.PageReader.state`)."""

    state: str
    anchors: int
    holding: int
    checked: int
    stated: int

    def to_json(self) -> list[Any]:
        return [self.state, self.anchors, self.holding, self.checked, self.stated]

    @classmethod
    def from_json(cls, data: Any) -> AnchorsChecked | None:
        if not (isinstance(data, list) and len(data) == 5 and isinstance(data[0], str)
                and all(isinstance(n, int) for n in data[1:])):
            return None
        return cls(*data)


@dataclass(slots=True)
class PageRecord:
    """One page's row: the file as it was read, what it gave (None: not text), what its anchors gave."""

    size: int
    mtime_ns: int
    read: PageRead | None
    checked: AnchorsChecked | None = None

    def to_json(self) -> list[Any]:
        return [self.size, self.mtime_ns, self.read.to_json() if self.read is not None else None,
                self.checked.to_json() if self.checked is not None else None]

    @classmethod
    def from_json(cls, data: Any) -> PageRecord | None:
        if not (isinstance(data, list) and len(data) == 4 and isinstance(data[0], int) and isinstance(data[1], int)):
            return None
        read = PageRead.from_json(data[2]) if data[2] is not None else None
        if data[2] is not None and read is None:
            return None
        return cls(data[0], data[1], read, AnchorsChecked.from_json(data[3]))


@dataclass
class PageCache:
    """The cache as read, and whether this run changed it."""

    key: str
    records: dict[str, PageRecord] = field(default_factory=dict)
    changed: bool = False

    @classmethod
    def load(cls, root: Path, schema: Schema) -> PageCache:
        key = cache_key(schema)
        data = read_cache_json(root, EVAL_PAGES)
        if data is None or data.get("key") != key or not isinstance(data.get("pages"), dict):
            return cls(key, changed=True)
        records = {path: record for path, row in data["pages"].items()
                   if (record := PageRecord.from_json(row)) is not None}
        return cls(key, records, changed=len(records) != len(data["pages"]))

    def save(self, root: Path) -> None:
        pages = {path: record.to_json() for path, record in self.records.items()}
        write_cache(root, EVAL_PAGES, json.dumps({"key": self.key, "pages": pages}, separators=(",", ":")))


def cache_key(schema: Schema) -> str:
    # a page's figures depend on the page and on the layouts SCHEMA.md declares
    layouts = sorted((kind, list(sections)) for kind, sections in schema.layouts.items())
    return hashlib.sha256(f"{FORMAT}|{__version__}|{layouts}".encode()).hexdigest()

