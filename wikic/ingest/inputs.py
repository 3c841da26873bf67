"""Reading and checking sources before anything is captured: files, standard input, http(s) URLs, and
files already in the vault's raw/. Nothing here writes; `capture` commits what this module prepared.
"""

from __future__ import annotations

import codecs
import http.client
import io
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from wikic.errors import ExportError, UsageError
from wikic.ingest import encodings, public_fetch
from wikic.ingest.public_fetch import PrivateAddress
from wikic.settings import IngestSettings
from wikic.text import archive, extract as textract
from wikic.vault.frontmatter import titled
from wikic.vault.layout import RAW_DIR, RAW_SUBDIRS
from wikic.vault.load import not_a_regular_file

_IMAGE_EXTS = {
    ".png": "png",
    ".jpg": "jpeg",
    ".jpeg": "jpeg",
    ".gif": "gif",
    ".webp": "webp",
    ".svg": "svg",
    ".bmp": "bmp",
}
_URL = re.compile(r"^https?://", re.IGNORECASE)
_HTML_EXTS = (".html", ".htm", ".xhtml")
_MARKDOWN_EXTS = (".md", ".markdown", ".mdown", ".mkd")
_KEEP_TEXT_EXTS = (".txt", ".text", ".vtt", ".srt", *_MARKDOWN_EXTS)


class SourceError(UsageError):
    """An input cannot be captured (missing, empty, binary, undecodable, too large, unreachable)."""


class UnreadableSource(SourceError):
    """The file system would not give an input's bytes (permissions, an I/O error): a problem of the moment
    that leaves the file as it was, so a file in raw/ is not set aside for it (see `pending`)."""


@dataclass(frozen=True)
class Prepared:
    """An input read and checked, nothing written yet."""

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
    encoding: str  # what the text was read in ("" for images and PDF)

    @property
    def raw_name(self) -> str:
        """What the raw file is named after: a file keeps its own name ("Graph view.md" becomes
        graph-view.md); a fetched page and standard input are named by their title."""
        if self.origin == "-" or _URL.match(self.origin):
            return self.title
        return PurePosixPath(self.source_name).stem or self.title

    @property
    def separate_text(self) -> bool:
        """The model reads a UTF-8 text file beside the original: HTML, PDF, and text in another encoding."""
        return self.media in ("html", "pdf") or self.encoding not in ("", "utf-8")


def read_inputs(
    vault_root: Path,
    inputs: Sequence[str],
    *,
    kind: str | None = None,
    settings: IngestSettings | None = None,
    stdin: BinaryIO | bytes | None = None,
    encoding: str | None = None,
    opener: urllib.request.OpenerDirector | None = None,
) -> list[Prepared]:
    """Read and check every input (file path, `-` for stdin, or http(s) URL); SourceError names the first
    unusable one. `kind` forces the raw/ folder; `encoding` names the text encoding of every input; `opener`
    fetches the URLs (None: as urllib does, for a person's own URLs)."""
    settings = settings or IngestSettings()
    if kind is not None and kind not in RAW_SUBDIRS:
        raise UsageError(f"unknown source kind {kind!r}", hint=f"use one of: {', '.join(RAW_SUBDIRS)}")
    if sum(1 for item in inputs if item == "-") > 1:
        raise UsageError("'-' (stdin) given more than once")
    root = vault_root.resolve()
    return [_prepare(root, item, kind, settings, stdin, encoding, opener) for item in inputs]


def _prepare(
    root: Path,
    item: str,
    kind: str | None,
    settings: IngestSettings,
    stdin: BinaryIO | bytes | None,
    declared: str | None,
    opener: urllib.request.OpenerDirector | None = None,
) -> Prepared:
    limit = settings.max_source_bytes
    content_type: str | None = None
    existing_raw: str | None = None
    if item == "-":
        label, name, source_name = "stdin", "", "stdin"
        data = _read_stdin(stdin, limit)
    elif _URL.match(item):
        label = source_name = item
        data, content_type, name = _fetch(item, limit, settings.fetch_timeout, opener)
    else:
        path = Path(item).expanduser()
        label, name, source_name = item, path.name, path.name
        resolved = path.resolve()
        if resolved.is_relative_to(root / RAW_DIR):
            existing_raw = resolved.relative_to(root).as_posix()
            label = existing_raw
        data = _read_file(path, label, limit, settings, in_raw=existing_raw is not None)
    if data.startswith(b"PK\x03\x04"):
        _refuse_zip(label, data)
    media, ext = _detect(data, name, content_type)
    try:
        title, text, encoding = _extract(label, data, media, content_type, declared, name)
    except SourceError:
        raise
    except Exception as exc:  # noqa: BLE001 - a parser failing on one source must not stop the others
        raise SourceError(
            f"{label}: its text cannot be read ({type(exc).__name__}: {' '.join(str(exc).split())[:200]})",
            hint="convert it to plain text and ingest that",
        ) from None
    if media != "image" and not text.strip():
        hint = None if existing_raw is not None else "check the file; nothing was captured"
        raise SourceError(f"{label}: empty source (no text)", hint=hint)
    if media in ("markdown", "text") and ext not in _KEEP_TEXT_EXTS:
        ext = ".md"
    if encoding not in ("", "utf-8") and ext in _MARKDOWN_EXTS:
        ext = ".txt"  # the original keeps its bytes; the UTF-8 text beside it takes the .md name
    if not title:
        title = textract.file_title(name) or textract.first_line_title(text) or "source"
    folder = None
    if existing_raw is not None:
        parts = PurePosixPath(existing_raw).parts
        folder = parts[1] if len(parts) > 2 and parts[1] in RAW_SUBDIRS else None
    chosen = folder or kind or _default_kind(media, text)
    return Prepared(item, label, source_name, data, media, ext, chosen, title, text, existing_raw, encoding)


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


def _read_file(path: Path, label: str, limit: int, settings: IngestSettings, *, in_raw: bool) -> bytes:
    # a file already in raw/ is there: `pending` says what becomes of it when it is refused
    nothing = None if in_raw else "nothing was captured"
    if not path.exists():
        raise SourceError(f"{label}: no such file", hint="check the path (URLs must start with http:// or https://)")
    if path.is_dir():
        raise SourceError(f"{label}: is a folder, not a file", hint="pass the files inside it, e.g. folder/*.md")
    irregular = not_a_regular_file(path)
    if irregular is not None:  # opening a named pipe would wait for a writer; a device has no end
        raise SourceError(f"{label}: {irregular}, not a file",
                          hint=None if in_raw else "pipe its text in instead: ... | wikic ingest -")
    size = path.stat().st_size
    if size > limit:
        raise SourceError(
            f"{label}: {_mb(size)} is larger than the {_mb(limit)} limit",
            hint=f"raise [ingest] max_source_mb (now {settings.max_source_mb:g}) in wikic.toml, or split the file",
        )
    if size == 0:
        raise SourceError(f"{label}: empty file", hint=nothing)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UnreadableSource(f"{label}: cannot read ({exc.strerror})") from None


def _refuse_zip(label: str, data: bytes) -> None:
    """A zip is read only as a conversation export (which never reaches here): a SourceError either way, the
    bounds' own reason when it is one `archive` refuses to open (a zip bomb)."""
    try:
        archive.open_zip(io.BytesIO(data), label).close()
    except ExportError as exc:
        raise SourceError(exc.message, hint=exc.hint) from None
    raise SourceError(
        f"{label}: a zip archive, not text, HTML, PDF or an image",
        hint="wikic reads a zip only as a ChatGPT, Claude.ai or Slack export; unpack it and ingest its files",
    )


def _fetch(
    url: str, limit: int, timeout: float, opener: urllib.request.OpenerDirector | None = None
) -> tuple[bytes, str | None, str]:
    request = urllib.request.Request(url, headers={"User-Agent": "wikic (+source capture)", "Accept": "*/*"})
    try:
        # the timeout bounds the whole download, its redirects and every read (see public_fetch.TotalTimeout)
        with public_fetch.TotalTimeout(timeout) as total, (opener or public_fetch.own_opener()).open(
            request, timeout=total
        ) as response:
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
    except (urllib.error.URLError, TimeoutError, OSError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, PrivateAddress):
            raise SourceError(
                f"{url}: refusing to fetch: {reason}",
                hint="a client may ingest URLs of public hosts only, unless [mcp] allow in your own "
                "~/.config/wikic/config.toml lists the URL",
            ) from None
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


def _extract(
    label: str, data: bytes, media: str, content_type: str | None, declared: str | None, name: str
) -> tuple[str, str, str]:
    """(title, text for the model, the encoding it was read in) or SourceError. `name`: the file's name ('' for
    standard input), which titles a Markdown or text source that gives itself no title."""
    if media == "image":
        return "", "", ""
    if media == "pdf":
        try:
            title, text = textract.pdf_to_text(data)
        except textract.PdfProblem as exc:
            hint = exc.hint or "convert it to text (e.g. OCR) and capture the text"
            raise SourceError(f"{label}: {exc}", hint=hint) from None
        return title, text, ""
    if media == "html":
        html, encoding = _decode_html(label, data, content_type, declared)
        title, text = textract.html_to_text(html)
        return title, text, encoding
    decoded, encoding = decode_text(label, data, declared)
    text = textract.normalize_newlines(decoded)
    return (titled(text, name) if media in ("markdown", "text") else ""), text, encoding


def decode_text(label: str, data: bytes, declared: str | None = None) -> tuple[str, str]:
    """(text, encoding): UTF-8 (with or without a byte-order mark), the encoding the user named, or one
    detected with confidence (see `encodings`); else SourceError with the candidates and how to convert."""
    if declared:
        try:
            return data.decode(declared), codecs.lookup(declared).name
        except LookupError:
            raise SourceError(
                f"{label}: unknown encoding {declared!r}", hint="e.g. --encoding gb18030, big5, shift_jis, cp1252"
            ) from None
        except UnicodeDecodeError as exc:
            raise SourceError(
                f"{label}: not {declared} text (byte 0x{data[exc.start]:02x} at offset {exc.start})",
                hint="check the encoding; nothing was captured",
            ) from None
    found = encodings.detect(data)
    if found.encoding is not None:
        return found.text, "utf-8" if found.encoding == "utf-8" and not found.bom else found.encoding
    if not found.candidates and b"\x00" in data[:8192]:
        raise SourceError(
            f"{label}: binary file, not text, HTML, PDF or an image", hint="wikic captures text, HTML, PDF and images"
        )
    try:
        data.decode("utf-8")
        where = "NUL bytes between the characters"  # UTF-16 without a byte-order mark that does not decode
    except UnicodeDecodeError as exc:
        where = f"byte 0x{data[exc.start]:02x} at offset {exc.start}"
    if found.candidates:
        first = found.candidates[0]
        raise SourceError(
            f"{label}: not UTF-8 text ({where}); it could be {found.describe()}",
            hint=f"name it: --encoding {first}; or convert it: {encodings.convert_hint(first, label)}",
        )
    raise SourceError(
        f"{label}: not UTF-8 text ({where}), and not an encoding wikic can tell apart safely",
        hint=f"name it with --encoding, or convert it: {encodings.convert_hint('ENCODING', label)}",
    )


def _decode_html(label: str, data: bytes, content_type: str | None, declared: str | None) -> tuple[str, str]:
    # The extracted text is written as UTF-8, so an HTML page may declare another charset.
    if not declared:
        try:
            return data.decode("utf-8-sig"), "utf-8"
        except UnicodeDecodeError:
            charset = textract.declared_charset(data, content_type)
            if charset:
                try:
                    return data.decode(charset), codecs.lookup(charset).name
                except (LookupError, UnicodeDecodeError):
                    pass
    return decode_text(label, data, declared)


def _default_kind(media: str, text: str) -> str:
    if media == "pdf":
        return "papers"
    if media == "image":
        return "assets"
    if media in ("markdown", "text") and textract.looks_like_transcript(text):
        return "transcripts"
    return "articles"


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


