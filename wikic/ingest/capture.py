"""Capture sources into `raw/`: an immutable copy, a descriptive unique name, and a ledger entry.

Where things go:
- Markdown, plain text, transcripts: the file itself, byte for byte (`raw/articles/x.md`); it is also the
  text the model reads and the file quote anchors point into.
- HTML and PDF: the original (`raw/articles/x.html`, `raw/papers/x.pdf`) plus the extracted text beside it
  (`x.md`, same stem). Anchors must give line numbers in a file a person can open, and an HTML or PDF file
  has no stable lines, so the extracted text file is the one anchors (and pages' `sources:`) point at.
- Text in another encoding than UTF-8 (GB18030, Big5, Shift-JIS, UTF-16, Windows-1252...): the original byte
  for byte (a Markdown one as `x.txt`, so Obsidian does not open it as a garbled note) plus its UTF-8 text
  as `x.md`; the ledger records the encoding.
- Images: `raw/assets/`, no text.

Rules: every input is read and checked (`inputs.read_inputs`) before anything is written (a bad input fails the
batch with an error naming it, and nothing is written); a raw file is created once, never overwritten, never edited; the
same content captured twice is the same raw file; the ledger `.wikic/sources.json` records each raw file's
sha256 so later runs (and lint) can tell unchanged sources from edited ones.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import BinaryIO

from wikic.errors import VaultError
from wikic.ingest.inputs import Prepared, SourceError, read_inputs
from wikic.settings import IngestSettings
from wikic.text import extract as textract
from wikic.vault.formats.sources import SourceEntry, read_sources, write_sources
from wikic.vault.layout import RAW_DIR
from wikic.vault.paths import make_folder, read_inside
from wikic.vault.slug import SOURCE, slugify
from wikic.vault.state import source_ledger_lock
from wikic.vault.write import create_exclusive


@dataclass(frozen=True)
class CapturedSource:
    origin: str  # as given: a path, a URL, or "-" for stdin
    raw_path: str  # vault-relative, '/'-separated: the immutable copy
    text_path: str  # the text file the model read and anchors point into ("" for images)
    kind: str  # articles | papers | transcripts | assets
    media: str  # markdown | text | html | pdf | image
    title: str
    sha256: str  # of the raw file's bytes
    text: str  # content of text_path with newlines normalised ("" for images)
    new: bool  # False: this exact content had been captured before; nothing was written
    encoding: str = "utf-8"  # what the original was read in; another one means text_path is a converted copy


def capture(
    vault_root: Path,
    inputs: Sequence[str],
    *,
    kind: str | None = None,
    settings: IngestSettings | None = None,
    stdin: BinaryIO | bytes | None = None,
    encoding: str | None = None,
) -> list[CapturedSource]:
    """Capture every input (file path, `-` for stdin, or http(s) URL) into `vault_root/raw/`.

    `kind` forces the raw/ folder (e.g. "transcripts"). Raises SourceError, naming the input, before
    writing anything if any input is unusable.
    """
    prepared = read_inputs(vault_root, inputs, kind=kind, settings=settings, stdin=stdin, encoding=encoding)
    return commit(vault_root, prepared)


def commit(vault_root: Path, prepared: Sequence[Prepared], *, day: date | None = None) -> list[CapturedSource]:
    """Write what `read_inputs` prepared into raw/ and the source ledger (under the ledger's lock). The ledger
    dates each new source now, or at the start of `day` (a run that says which day it is)."""
    root = vault_root.resolve()
    when = datetime.combine(day, time(), UTC) if day is not None else datetime.now(UTC)
    with source_ledger_lock(root):
        sources = read_sources(root)
        results = [_commit(root, item, sources, write=True, when=when) for item in prepared]
        if any(result.new for result in results):  # sources seen before change nothing, not even the ledger
            write_sources(root, sources)
    return results


def preview(vault_root: Path, prepared: Sequence[Prepared]) -> list[CapturedSource]:
    """What `commit` would capture, with the raw paths it would choose, writing nothing (for --estimate and
    --dry-run). A later commit chooses the same paths unless another process captures in between."""
    root = vault_root.resolve()
    sources = read_sources(root)
    return [_commit(root, item, sources, write=False) for item in prepared]


def load_source_text(vault_root: Path, text_path: str) -> str:
    """The text of a captured source as anchors see it (newlines normalised)."""
    path = vault_root / text_path
    try:
        return textract.normalize_newlines(path.read_bytes().decode("utf-8-sig"))
    except OSError as exc:
        raise SourceError(f"{text_path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise SourceError(f"{text_path}: not UTF-8 text", hint="raw files must not be edited after capture") from None




# -- writing (under the ledger lock) ------------------------------------------------------------------


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _holds(root: Path, raw_path: str, digest: str) -> bool:
    """Whether the vault's file `raw_path` (as the source ledger names it) holds the bytes of `digest`; a name
    leading out of the vault is never read."""
    try:
        data = read_inside(root, root / raw_path)
    except (OSError, VaultError):
        return False
    return data is not None and _sha256(data) == digest


def _commit(
    root: Path, item: Prepared, sources: dict[str, SourceEntry], *, write: bool, when: datetime | None = None
) -> CapturedSource:
    digest = _sha256(item.data)
    for raw_path, entry in sources.items():
        if entry.sha256 == digest and _holds(root, raw_path, digest):
            text_path = entry.text_path or ""
            text = load_source_text(root, text_path) if text_path else ""
            return CapturedSource(
                item.origin,
                raw_path,
                text_path,
                entry.kind or item.kind,
                entry.media or item.media,
                entry.title if entry.title is not None else item.title,
                digest,
                text,
                False,
                entry.encoding or "utf-8",
            )

    separate_text = item.separate_text
    text_bytes = item.text.encode("utf-8")
    recorded = {p for raw, entry in sources.items() for p in (raw, entry.text_path or "")}

    def orphan(path: Path | None, data: bytes) -> bool:
        """A file a capture wrote before it was killed, ahead of its ledger entry: taken over, not copied."""
        return path is None or not path.exists() or (
            path.relative_to(root).as_posix() not in recorded and path.is_file() and path.read_bytes() == data
        )

    if item.existing_raw is not None:
        raw_rel = item.existing_raw
        stem_path = (root / raw_rel).with_suffix("")
        converted = item.media not in ("html", "pdf")  # a text file in another encoding: the copy is its UTF-8
        text_rel = (
            _free_text_path(root, stem_path, lambda p: orphan(p, text_bytes), converted=converted)
            if separate_text
            else ("" if item.media == "image" else raw_rel)
        )
    else:
        folder = root / RAW_DIR / item.kind
        if write:
            make_folder(root, folder)
        stem = _free_stem(
            folder, slugify(item.raw_name, rules=SOURCE), item.ext, separate_text,
            lambda raw, text: orphan(raw, item.data) and orphan(text, text_bytes),
        )
        raw_rel = f"{RAW_DIR}/{item.kind}/{stem}{item.ext}"
        text_rel = f"{RAW_DIR}/{item.kind}/{stem}.md" if separate_text else ("" if item.media == "image" else raw_rel)
        if write:
            create_exclusive(root / raw_rel, item.data, root=root)
    encoding = item.encoding or "utf-8"
    if not write:
        return CapturedSource(
            item.origin, raw_rel, text_rel, item.kind, item.media, item.title, digest, item.text, True, encoding
        )
    if separate_text:
        create_exclusive(root / text_rel, text_bytes, root=root)
    sources[raw_rel] = SourceEntry(
        sha256=digest,
        size=len(item.data),
        kind=item.kind,
        media=item.media,
        title=item.title,
        origin=item.source_name,
        text_path=text_rel,
        text_sha256=_sha256((root / text_rel).read_bytes()) if text_rel else "",
        captured=(when or datetime.now(UTC)).isoformat(timespec="seconds"),
        encoding=encoding if encoding != "utf-8" else None,  # its text file is then the converted copy
    )
    return CapturedSource(
        item.origin, raw_rel, text_rel, item.kind, item.media, item.title, digest, item.text, True, encoding
    )


def _free_stem(
    folder: Path, slug: str, ext: str, separate_text: bool, reusable: Callable[[Path, Path | None], bool]
) -> str:
    """The first of slug, slug-2, slug-3... for which neither the raw file nor its text file exists (or
    `reusable` says the files there are this source's own, left by a killed capture)."""
    number = 1
    while True:
        stem = slug if number == 1 else f"{slug}-{number}"
        raw, text = folder / f"{stem}{ext}", folder / f"{stem}.md"
        taken = raw.exists() or (separate_text and text.exists())
        if not taken or reusable(raw, text if separate_text else None):
            return stem
        number += 1


def _free_text_path(root: Path, stem_path: Path, reusable: Callable[[Path], bool], *, converted: bool = False) -> str:
    """Where the text of a raw file dropped into raw/ goes: `x.md` beside `x.html` or `x.pdf`; beside a file
    in another encoding, whose own name `x.md` may be, `x-utf8.md` (it is that file in UTF-8)."""
    stem = f"{stem_path.name}-utf8" if converted else stem_path.name
    candidate, number = stem_path.with_name(f"{stem}.md"), 1
    while candidate.exists() and not reusable(candidate):
        number += 1
        candidate = stem_path.with_name(f"{stem}-{number}.md" if converted else f"{stem}-text-{number}.md")
    return candidate.relative_to(root).as_posix()
