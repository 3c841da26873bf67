"""Which files of a vault the palace holds, which wing each belongs to, and their text."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from wikic.errors import PalaceError
from wikic.palace.chunking import Document, make_document
from wikic.vault.layout import (
    IGNORED_DIRS,
    PAGE_FOLDERS,
    RAW_DIR,
    SCHEMA_FILE,
    SPECIAL_FILES,
)
from wikic.vault.parse import MAX_PAGE_BYTES
from wikic.vault.write import inside

WINGS = (*PAGE_FOLDERS.values(), RAW_DIR)
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
    if top in PAGE_FOLDERS.values() and "/" in rel:
        return top
    return OTHER_WING


def classify(vault: Path, rel: str) -> SourceFile | None:
    """The SourceFile for a vault-relative path if the palace indexes it, else None."""
    parts = rel.split("/")
    if any(p in IGNORED_DIRS or p.startswith(".") for p in parts):
        return None
    suffix = os.path.splitext(rel)[1].lower()
    wing = wing_of(rel)
    if wing == RAW_DIR:
        if suffix not in RAW_SUFFIXES:
            return None
    elif suffix not in MARKDOWN_SUFFIXES:
        return None
    # index.md, log.md and SCHEMA.md are the wiki's machinery, not knowledge: index.md would match everything.
    if len(parts) == 1 and rel in SPECIAL_FILES and (vault / SCHEMA_FILE).is_file():
        return None
    path = vault / rel
    if not inside(vault, path):
        return None  # a symbolic link out of the vault is never read (lint reports it: unsafe-path)
    if wing != RAW_DIR:
        try:
            if path.stat().st_size > MAX_PAGE_BYTES:
                return None  # too large to parse (lint reports it: page-too-long), too large to index
        except OSError:
            pass
    return SourceFile(rel, path, wing)


def scan(vault: Path) -> Iterator[SourceFile]:
    """Every file of the vault the palace should hold, in a stable order."""
    for dirpath, dirnames, filenames in os.walk(vault):
        dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS and not d.startswith("."))
        rel_dir = os.path.relpath(dirpath, vault)
        for name in sorted(filenames):
            rel = name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/")
            source = classify(vault, rel)
            if source is not None:
                yield source


def file_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _html_text(data: bytes) -> str:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(data, "html.parser")
    for tag in soup(["script", "style", "noscript"]):
        tag.decompose()
    lines = (line.strip() for line in soup.get_text("\n").splitlines())
    return "\n".join(line for line in lines if line)


def _pdf_text(path: Path) -> str:
    from pypdf import PdfReader

    reader = PdfReader(str(path))
    return "\n\n".join((page.extract_text() or "").strip() for page in reader.pages)


def read_document(source: SourceFile, data: bytes) -> Document:
    """The searchable text of a source file. Raises PalaceError when it cannot be read as text."""
    suffix = source.abspath.suffix.lower()
    try:
        if suffix in PDF_SUFFIXES:
            return make_document(source.path, _pdf_text(source.abspath), markdown=False)
        if suffix in HTML_SUFFIXES:
            return make_document(source.path, _html_text(data), markdown=False)
        text = data.decode("utf-8-sig", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
        return make_document(source.path, text, markdown=suffix in MARKDOWN_SUFFIXES)
    except PalaceError:
        raise
    except Exception as exc:  # pdf/html parsers raise many types on malformed files
        raise PalaceError(f"cannot read {source.path}: {exc}") from None
