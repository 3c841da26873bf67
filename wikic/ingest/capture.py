"""Capture sources into `raw/`: an immutable copy, a descriptive unique name, and a ledger entry.

Where things go:
- Markdown, plain text, transcripts: the file itself, byte for byte (`raw/articles/x.md`); it is also the
  text the model reads and the file quote anchors point into.
- HTML and PDF: the original (`raw/articles/x.html`, `raw/papers/x.pdf`) plus the extracted text beside it
  (`x.md`, same stem). Anchors must give line numbers in a file a person can open, and an HTML or PDF file
  has no stable lines, so the extracted text file is the one anchors (and pages' `sources:`) point at.
- Images: `raw/assets/`, no text.

Rules: every input is read and checked before anything is written (a bad input fails the batch with an
error naming it, and nothing is written); a raw file is created once, never overwritten, never edited; the
same content captured twice is the same raw file; the ledger `.wikic/sources.json` records each raw file's
sha256 so later runs (and lint) can tell unchanged sources from edited ones.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import tempfile
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO

from filelock import FileLock, Timeout

from wikic.errors import LockTimeout, UsageError
from wikic.ingest import textract
from wikic.llm.storage import read_json, write_json
from wikic.settings import IngestSettings
from wikic.vault.layout import RAW_DIR, RAW_SUBDIRS, state_dir

LEDGER_FILE = "sources.json"
LEDGER_VERSION = 1
_IMAGE_EXTS = {
    ".png": "png",
    ".jpg": "jpeg",
    ".jpeg": "jpeg",
    ".gif": "gif",
    ".webp": "webp",
    ".svg": "svg",
    ".bmp": "bmp",
}
_HTML_EXTS = (".html", ".htm", ".xhtml")
_MARKDOWN_EXTS = (".md", ".markdown", ".mdown", ".mkd")
_KEEP_TEXT_EXTS = (".txt", ".text", ".vtt", ".srt", *_MARKDOWN_EXTS)
_WINDOWS_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}
MAX_SLUG = 80


class SourceError(UsageError):
    """An input cannot be captured (missing, empty, binary, not UTF-8, too large, unreachable)."""


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


@dataclass(frozen=True)
class _Prepared:
    origin: str
    label: str  # how errors name the input
    source_name: str  # how the ledger names it: URL, "stdin", or the file's name (no local paths)
    data: bytes
    media: str
    ext: str
    kind: str
    title: str
    text: str
    existing_raw: str | None  # the input already is a file inside this vault's raw/


def capture(
    vault_root: Path,
    inputs: Sequence[str],
    *,
    kind: str | None = None,
    settings: IngestSettings | None = None,
    stdin: BinaryIO | bytes | None = None,
) -> list[CapturedSource]:
    """Capture every input (file path, `-` for stdin, or http(s) URL) into `vault_root/raw/`.

    `kind` forces the raw/ folder (e.g. "transcripts"). Raises SourceError, naming the input, before
    writing anything if any input is unusable.
    """
    settings = settings or IngestSettings()
    if kind is not None and kind not in RAW_SUBDIRS:
        raise UsageError(f"unknown source kind {kind!r}", hint=f"use one of: {', '.join(RAW_SUBDIRS)}")
    if sum(1 for item in inputs if item == "-") > 1:
        raise UsageError("'-' (stdin) given more than once")
    root = vault_root.resolve()
    prepared = [_prepare(root, item, kind, settings, stdin) for item in inputs]
    state = state_dir(root)
    state.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(state / f"{LEDGER_FILE}.lock"))
    try:
        with lock.acquire(timeout=60):
            ledger = _load_ledger(root)
            results = [_commit(root, item, ledger) for item in prepared]
            write_json(state / LEDGER_FILE, ledger)
    except Timeout:
        raise LockTimeout(
            f"{state / LEDGER_FILE}: another wikic process has held the source ledger for 60 s",
            hint="wait for the other ingest to finish",
        ) from None
    return results


def load_source_text(vault_root: Path, text_path: str) -> str:
    """The text of a captured source as anchors see it (newlines normalised)."""
    path = vault_root / text_path
    try:
        return textract.normalize_newlines(path.read_bytes().decode("utf-8-sig"))
    except OSError as exc:
        raise SourceError(f"{text_path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise SourceError(f"{text_path}: not UTF-8 text", hint="raw files must not be edited after capture") from None


def read_ledger(vault_root: Path) -> dict[str, dict[str, object]]:
    """raw path -> its ledger entry (sha256, kind, media, title, origin, text_path, text_sha256, captured)."""
    sources: dict[str, dict[str, object]] = _load_ledger(vault_root.resolve())["sources"]
    return sources


# -- reading and checking (no writes) ---------------------------------------------------------------------


def _prepare(
    root: Path, item: str, kind: str | None, settings: IngestSettings, stdin: BinaryIO | bytes | None
) -> _Prepared:
    limit = settings.max_source_bytes
    content_type: str | None = None
    existing_raw: str | None = None
    if item == "-":
        label, name, source_name = "stdin", "", "stdin"
        data = _read_stdin(stdin, limit)
    elif re.match(r"^https?://", item, re.IGNORECASE):
        label = source_name = item
        data, content_type, name = _fetch(item, limit, settings.fetch_timeout)
    else:
        path = Path(item).expanduser()
        label, name, source_name = item, path.name, path.name
        data = _read_file(path, limit, settings)
        resolved = path.resolve()
        raw_root = root / RAW_DIR
        if resolved.is_relative_to(raw_root):
            existing_raw = resolved.relative_to(root).as_posix()
            label = existing_raw
    media, ext = _detect(data, name, content_type)
    if media != "image" and media != "pdf" and b"\x00" in data[:8192]:
        raise SourceError(
            f"{label}: binary file, not text, HTML, PDF or an image", hint="wikic captures text, HTML, PDF and images"
        )
    title, text = _extract(label, data, media, content_type)
    if media != "image" and not text.strip():
        raise SourceError(f"{label}: empty source (no text)", hint="check the file; nothing was captured")
    if media in ("markdown", "text") and ext not in _KEEP_TEXT_EXTS:
        ext = ".md"
    if not title:
        title = _name_title(name) or textract.first_line_title(text) or "source"
    folder = None
    if existing_raw is not None:
        parts = PurePosixPath(existing_raw).parts
        folder = parts[1] if len(parts) > 2 and parts[1] in RAW_SUBDIRS else None
    chosen = folder or kind or _default_kind(media, text)
    return _Prepared(item, label, source_name, data, media, ext, chosen, title, text, existing_raw)


def _read_stdin(stdin: BinaryIO | bytes | None, limit: int) -> bytes:
    if isinstance(stdin, bytes):
        data = stdin
    else:
        stream = stdin if stdin is not None else sys.stdin.buffer
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise SourceError(f"stdin: more than {_mb(limit)}", hint="raise [ingest] max_source_mb in wikic.toml")
    if not data.strip():
        raise SourceError("stdin: empty source (no text)", hint="pipe the text in: cat notes.md | wikic ingest -")
    return data


def _read_file(path: Path, limit: int, settings: IngestSettings) -> bytes:
    if not path.exists():
        raise SourceError(f"{path}: no such file", hint="check the path (URLs must start with http:// or https://)")
    if path.is_dir():
        raise SourceError(f"{path}: is a folder, not a file", hint="pass the files inside it, e.g. folder/*.md")
    size = path.stat().st_size
    if size > limit:
        raise SourceError(
            f"{path}: {_mb(size)} is larger than the {_mb(limit)} limit",
            hint=f"raise [ingest] max_source_mb (now {settings.max_source_mb:g}) in wikic.toml, or split the file",
        )
    if size == 0:
        raise SourceError(f"{path}: empty file", hint="nothing was captured")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise SourceError(f"{path}: cannot read ({exc.strerror})") from None


def _fetch(url: str, limit: int, timeout: float) -> tuple[bytes, str | None, str]:
    request = urllib.request.Request(url, headers={"User-Agent": "wikic (+source capture)", "Accept": "*/*"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            length = response.headers.get("Content-Length")
            if length and length.isdigit() and int(length) > limit:
                raise SourceError(
                    f"{url}: {_mb(int(length))} is larger than the {_mb(limit)} limit",
                    hint="raise [ingest] max_source_mb",
                )
            data = response.read(limit + 1)
            content_type = response.headers.get("Content-Type")
            final = response.geturl()
    except urllib.error.HTTPError as exc:
        raise SourceError(
            f"{url}: HTTP {exc.code} {exc.reason}", hint="check the address; nothing was captured"
        ) from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise SourceError(
            f"{url}: cannot fetch ({reason})", hint=f"check the address and the network (timeout {timeout:g} s)"
        ) from None
    if len(data) > limit:
        raise SourceError(f"{url}: larger than the {_mb(limit)} limit", hint="raise [ingest] max_source_mb")
    if not data.strip():
        raise SourceError(f"{url}: empty response", hint="nothing was captured")
    name = PurePosixPath(urllib.parse.urlparse(final).path).name
    return data, content_type, name


def _detect(data: bytes, name: str, content_type: str | None) -> tuple[str, str]:
    """(media, raw file extension)."""
    ext = PurePosixPath(name).suffix.lower()
    mime = (content_type or "").split(";")[0].strip().lower()
    if data.startswith(b"%PDF-"):
        return "pdf", ".pdf"
    for magic, kind in (
        (b"\x89PNG\r\n\x1a\n", "png"),
        (b"\xff\xd8\xff", "jpeg"),
        (b"GIF87a", "gif"),
        (b"GIF89a", "gif"),
    ):
        if data.startswith(magic):
            return "image", ext if _IMAGE_EXTS.get(ext) == kind else f".{'jpg' if kind == 'jpeg' else kind}"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image", ".webp"
    if ext == ".svg" or mime == "image/svg+xml":
        return "image", ".svg"
    if mime.startswith("image/") or ext in _IMAGE_EXTS:
        subtype = re.sub(r"\W", "", mime.partition("/")[2])[:8]
        return "image", ext if ext in _IMAGE_EXTS else f".{subtype or 'img'}"
    head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if (
        ext in _HTML_EXTS
        or mime in ("text/html", "application/xhtml+xml")
        or head.startswith((b"<!doctype html", b"<html"))
    ):
        return "html", ".html"
    if ext in _MARKDOWN_EXTS or mime == "text/markdown":
        return "markdown", ext or ".md"
    return "text", ext or ".md"


def _extract(label: str, data: bytes, media: str, content_type: str | None) -> tuple[str, str]:
    """(title, text for the model) or SourceError."""
    if media == "image":
        return "", ""
    if media == "pdf":
        try:
            return textract.pdf_to_text(data)
        except textract.PdfProblem as exc:
            raise SourceError(f"{label}: {exc}", hint="convert it to text (e.g. OCR) and capture the text") from None
    if media == "html":
        html = _decode_html(label, data, content_type)
        title, text = textract.html_to_text(html)
        return title, text
    text = textract.normalize_newlines(_decode_utf8(label, data))
    return (textract.markdown_title(text) if media in ("markdown", "text") else ""), text


def _decode_utf8(label: str, data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")  # utf-8, with or without a byte-order mark
    except UnicodeDecodeError as exc:
        raise SourceError(
            f"{label}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            hint="convert it first, e.g. iconv -f latin1 -t utf-8 FILE > FILE.utf8.txt",
        ) from None


def _decode_html(label: str, data: bytes, content_type: str | None) -> str:
    # The extracted text is written as UTF-8, so an HTML page may declare another charset.
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        charset = textract.declared_charset(data, content_type)
        if charset:
            try:
                return data.decode(charset)
            except (LookupError, UnicodeDecodeError):
                pass
        return _decode_utf8(label, data)


def _default_kind(media: str, text: str) -> str:
    if media == "pdf":
        return "papers"
    if media == "image":
        return "assets"
    if media in ("markdown", "text") and textract.looks_like_transcript(text):
        return "transcripts"
    return "articles"


def _name_title(name: str) -> str:
    stem = PurePosixPath(name).stem if name else ""
    return " ".join(re.split(r"[-_.\s]+", stem)).strip()


def slugify(title: str, fallback: str = "source") -> str:
    """lowercase-with-hyphens; keeps letters of any script (CJK titles stay readable), at most 80 chars."""
    text = unicodedata.normalize("NFKC", title).casefold()
    # Combining marks count as letters: casefolding "İ" gives "i" + U+0307, and Indic vowel signs are marks.
    kept = "".join(c if c.isalnum() or unicodedata.category(c) in ("Mn", "Mc") else "-" for c in text)
    slug = re.sub(r"-{2,}", "-", kept).strip("-")
    if len(slug) > MAX_SLUG:
        cut = slug[:MAX_SLUG]
        slug = cut.rsplit("-", 1)[0] if "-" in cut[MAX_SLUG // 2 :] else cut
        slug = slug.strip("-")
    if not slug or slug in _WINDOWS_RESERVED:
        slug = fallback if not slug else f"{slug}-{fallback}"
    return slug


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


# -- writing (under the ledger lock) ------------------------------------------------------------------


def _load_ledger(root: Path) -> dict[str, Any]:
    stored = read_json(state_dir(root) / LEDGER_FILE)
    if isinstance(stored, dict) and isinstance(stored.get("sources"), dict):
        return {"version": LEDGER_VERSION, "sources": stored["sources"]}
    return {"version": LEDGER_VERSION, "sources": {}}


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _commit(root: Path, item: _Prepared, ledger: dict[str, Any]) -> CapturedSource:
    digest = _sha256(item.data)
    sources = ledger["sources"]
    for raw_path, entry in sources.items():
        if (
            entry.get("sha256") == digest
            and (root / raw_path).is_file()
            and _sha256((root / raw_path).read_bytes()) == digest
        ):
            text_path = str(entry.get("text_path") or "")
            text = load_source_text(root, text_path) if text_path else ""
            return CapturedSource(
                item.origin,
                raw_path,
                text_path,
                str(entry["kind"]),
                str(entry["media"]),
                str(entry["title"]),
                digest,
                text,
                False,
            )

    separate_text = item.media in ("html", "pdf")
    text_bytes = item.text.encode("utf-8")
    recorded = {p for raw, entry in sources.items() for p in (raw, str(entry.get("text_path") or ""))}

    def orphan(path: Path | None, data: bytes) -> bool:
        """A file a capture wrote before it was killed, ahead of its ledger entry: taken over, not copied."""
        return path is None or not path.exists() or (
            path.relative_to(root).as_posix() not in recorded and path.is_file() and path.read_bytes() == data
        )

    if item.existing_raw is not None:
        raw_rel = item.existing_raw
        stem_path = (root / raw_rel).with_suffix("")
        text_rel = (
            _free_text_path(root, stem_path, lambda p: orphan(p, text_bytes))
            if separate_text
            else ("" if item.media == "image" else raw_rel)
        )
    else:
        folder = root / RAW_DIR / item.kind
        folder.mkdir(parents=True, exist_ok=True)
        stem = _free_stem(
            folder, slugify(item.title), item.ext, separate_text,
            lambda raw, text: orphan(raw, item.data) and orphan(text, text_bytes),
        )
        raw_rel = f"{RAW_DIR}/{item.kind}/{stem}{item.ext}"
        _create_exclusive(root / raw_rel, item.data)
        text_rel = f"{RAW_DIR}/{item.kind}/{stem}.md" if separate_text else ("" if item.media == "image" else raw_rel)
    if separate_text:
        _create_exclusive(root / text_rel, text_bytes)
    sources[raw_rel] = {
        "sha256": digest,
        "bytes": len(item.data),
        "kind": item.kind,
        "media": item.media,
        "title": item.title,
        "origin": item.source_name,
        "text_path": text_rel,
        "text_sha256": _sha256((root / text_rel).read_bytes()) if text_rel else "",
        "captured": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    return CapturedSource(item.origin, raw_rel, text_rel, item.kind, item.media, item.title, digest, item.text, True)


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


def _free_text_path(root: Path, stem_path: Path, reusable: Callable[[Path], bool]) -> str:
    candidate, number = stem_path.with_suffix(".md"), 1
    while candidate.exists() and not reusable(candidate):
        number += 1
        candidate = stem_path.with_name(f"{stem_path.name}-text-{number}.md")
    return candidate.relative_to(root).as_posix()


def _create_exclusive(path: Path, data: bytes) -> None:
    """Write a new file atomically; never replace an existing one (os.link fails if the name is taken).
    A file already holding exactly `data` is this capture's own, from a run killed before the ledger was
    written: it is kept."""
    if path.is_file() and path.read_bytes() == data:
        return
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.link(tmp, path)
    finally:
        os.unlink(tmp)
