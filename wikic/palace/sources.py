"""Which files of a vault the palace holds, which wing each belongs to, and their text.

A captured HTML or PDF file (or text in another encoding than UTF-8) has its text extracted once, at
capture, into a Markdown file beside it; claim anchors point into that file. The palace indexes that text
file and not the original, so a search hit is a passage with lines a reader can open. An HTML or PDF file
that reached raw/ some other way is read with the same extractor capture uses (`wikic.text.extract`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from wikic.errors import PalaceError
from wikic.palace.chunking import Document, make_document
from wikic.vault.formats.conversations import read_conversations
from wikic.vault.formats.sources import read_sources, text_copies
from wikic.vault.layout import (
    IGNORED_DIRS,
    PAGE_FOLDERS,
    RAW_DIR,
    SCHEMA_FILE,
    SPECIAL_FILES,
    SUBJECT_FOLDERS,
    is_export,
)
from wikic.vault.load import not_a_regular_file
from wikic.vault.parse import MAX_PAGE_BYTES
from wikic.vault.tree import walk_tree
from wikic.vault.write import inside

WINGS = (*SUBJECT_FOLDERS, RAW_DIR)
# The hub pages of sources/ restate what their source gave the pages, which the palace holds already (the
# pages, and the source itself): like index.md, they would crowd every search of their subjects.
HUB_FOLDERS = tuple(folder for folder in PAGE_FOLDERS.values() if folder not in SUBJECT_FOLDERS)
# Notes outside the page folders (inbox/, a person's own notes) live in this wing.
OTHER_WING = "notes"

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
TEXT_SUFFIXES = frozenset({".txt", ".text", ".rst", ".org", ".csv", ".tsv", ".json", ".jsonl", ".yaml", ".yml"})
HTML_SUFFIXES = frozenset({".html", ".htm"})
PDF_SUFFIXES = frozenset({".pdf"})
RAW_SUFFIXES = MARKDOWN_SUFFIXES | TEXT_SUFFIXES | HTML_SUFFIXES | PDF_SUFFIXES


@dataclass(frozen=True)
class SourceFile:
    path: str  # vault-relative, with "/"
    abspath: Path
    wing: str


def wing_of(rel: str) -> str:
    top = rel.split("/", 1)[0]
    if top == RAW_DIR:
        return RAW_DIR
    if top in SUBJECT_FOLDERS and "/" in rel:
        return top
    return OTHER_WING


def extracted_originals(vault: Path) -> frozenset[str]:
    """Raw files indexed through another file: those whose text capture extracted into a file of its own
    (recorded in the source ledger), and conversation exports dropped into raw/ (their transcripts)."""
    return frozenset(text_copies(read_sources(vault))) | read_conversations(vault).kept_exports()


def classify(vault: Path, rel: str, originals: frozenset[str]) -> SourceFile | None:
    """The SourceFile for a vault-relative path if the palace indexes it, else None. `originals` are the
    raw files indexed through their extracted text file instead (`extracted_originals`)."""
    parts = rel.split("/")
    if any(p in IGNORED_DIRS or p.startswith(".") for p in parts):
        return None
    suffix = os.path.splitext(rel)[1].lower()
    wing = wing_of(rel)
    if wing == RAW_DIR:
        if suffix not in RAW_SUFFIXES or rel in originals or is_export(rel):
            return None  # an export is kept, not read: its transcripts are the searchable text
    elif suffix not in MARKDOWN_SUFFIXES:
        return None
    # index.md, log.md, overview.md and SCHEMA.md are the wiki's machinery, not knowledge: index.md would
    # match everything; so are the source pages (HUB_FOLDERS).
    if ((len(parts) == 1 and rel in SPECIAL_FILES) or parts[0] in HUB_FOLDERS) and (vault / SCHEMA_FILE).is_file():
        return None
    path = vault / rel
    if not inside(vault, path):
        return None  # a symbolic link out of the vault is never read (lint reports it: unsafe-path)
    if not_a_regular_file(path):
        return None  # a named pipe would block the reader, a device has no text (lint reports it: unsafe-path)
    if wing != RAW_DIR:
        try:
            if path.stat().st_size > MAX_PAGE_BYTES:
                return None  # too large to parse (lint reports it: page-too-long), too large to index
        except OSError:
            pass
    return SourceFile(rel, path, wing)


def scan(vault: Path) -> Iterator[SourceFile]:
    """Every file of the vault the palace should hold, in a stable order."""
    originals = extracted_originals(vault)
    for dirpath, dirnames, filenames in walk_tree(vault):
        dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS and not d.startswith("."))
        rel_dir = os.path.relpath(dirpath, vault)
        for name in sorted(filenames):
            rel = name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/")
            source = classify(vault, rel, originals)
            if source is not None:
                yield source


def file_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_document(source: SourceFile, data: bytes) -> Document:
    """The searchable text of a source file. Raises PalaceError when it cannot be read as text."""
    suffix = source.abspath.suffix.lower()
    try:
        if suffix in PDF_SUFFIXES or suffix in HTML_SUFFIXES:
            return make_document(source.path, _extracted_text(data, suffix), markdown=False)
        text = data.decode("utf-8-sig", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
        return make_document(source.path, text, markdown=suffix in MARKDOWN_SUFFIXES)
    except Exception as exc:  # noqa: BLE001 - pdf/html parsers raise many types on malformed files
        raise PalaceError(f"cannot read {source.path}: {exc}") from None


def _extracted_text(data: bytes, suffix: str) -> str:
    """The text of an HTML or PDF file that was not captured, as capture would have extracted it."""
    from wikic.text import extract  # bs4 and pypdf load only when such a file is indexed

    return extract.pdf_to_text(data)[1] if suffix in PDF_SUFFIXES else extract.html_to_text(data)[1]
