"""What a subject page gives the report, worked out where the page is read: in the processes of lint's parse
(`lint_and_vault`'s `while_parsing`: the note's bytes are at hand there, and a first run parses on both cores),
or by the report for a page lint did not parse. Beside what the page alone gives (`PageRead`), what its anchors
give against `raw/` as it is now (`AnchorsChecked`): each process keeps the raw files it has read.

Whether a page's anchors must be checked again is told by the raw files' sizes and modification times (as the
parse cache tells a changed page), and by the hashes the source ledger recorded: an unchanged vault is
reported without reading `raw/`.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
from collections.abc import Iterable
from pathlib import Path

from wikic.evaluation import checks
from wikic.evaluation.records import AnchorsChecked, PageRead
from wikic.lint.rules._pages import page_of, subject_page
from wikic.vault.model import Note
from wikic.vault.schema_md import Schema


class PageReader:
    """Reads subject pages for the report: called with a note's path, bytes and parsed note (as `load_vault`'s
    `per_note`), it gives (what the page gives or None when it is not UTF-8 text, what its anchors give), and
    None for a note that is no subject page."""

    def __init__(self, root: Path, schema: Schema, expected: dict[str, str]) -> None:
        self.root = root
        self.schema = schema
        self.expected = expected  # raw path -> the sha256 the source ledger recorded (`checks.expected_sha256`)
        self._folders = schema.folder_types()
        self._raw: dict[str, checks.RawFile] = {}
        self._stamps: dict[str, tuple[int, int] | None] = {}

    def __call__(self, path: str, data: bytes, note: Note) -> tuple[PageRead | None, AnchorsChecked | None] | None:
        top, sep, _ = path.partition("/")
        kind = self._folders.get(top) if sep and path.endswith(".md") else None
        if kind is None or not subject_page(kind):
            return None
        read = read_page(data, note, self.schema, kind, path)
        return read, (self.check(read) if read is not None else None)

    def state(self, read: PageRead) -> str:
        """The state of the raw files the page's anchors cite: their sizes and modification times, and the
        hashes recorded at capture."""
        sources = checks.cited_paths(read.said)
        stamps = [(p, self._stamp(p), self.expected.get(p)) for p in sources]
        return hashlib.sha256(repr(stamps).encode()).hexdigest()

    def check(self, read: PageRead) -> AnchorsChecked:
        """What the page's anchors give against `raw/` now: how many hold, and how many state their specifics."""
        for path in checks.cited_paths(read.said):
            if path not in self._raw:
                self._raw[path] = checks.RawFile(self.root, path, self.expected.get(path))
        anchors, holding = checks.anchors_holding(read.said, self._raw)
        checked, stated = checks.specifics_stated(read.said, self._raw, read.names)
        return AnchorsChecked(self.state(read), anchors, holding, checked, stated)

    def _stamp(self, path: str) -> tuple[int, int] | None:
        if path not in self._stamps:
            try:
                st = os.stat(self.root / path)
            except (OSError, ValueError):
                self._stamps[path] = None
            else:
                self._stamps[path] = (st.st_size, st.st_mtime_ns)
        return self._stamps[path]


def read_page(data: bytes, note: Note, schema: Schema, kind: str, path: str) -> PageRead | None:
    """What the page alone gives; None when it is not UTF-8 text (lint's `encoding` says so)."""
    page = page_of(data, note)
    if page is None:
        return None
    sentences, cited, claims, anchored, said = checks.said(page)
    sections, meeting = checks.sections_in_layout(page, schema.layout(kind))
    return PageRead(sentences, cited, claims, anchored, sections, meeting, tuple(said), _title(note, path),
                    tuple(_names(note, path)), len(note.links))


def _title(note: Note, path: str) -> str:
    title = (note.frontmatter or {}).get("title")
    return title if isinstance(title, str) and title.strip() else posixpath.basename(path)[:-3]


def _names(note: Note, path: str) -> Iterable[str]:
    """The page's subject as its quotes may leave it unsaid: its title and aliases."""
    aliases = (note.frontmatter or {}).get("aliases")
    return [_title(note, path), *(a for a in aliases if isinstance(a, str) and a.strip())] \
        if isinstance(aliases, list) else [_title(note, path)]
