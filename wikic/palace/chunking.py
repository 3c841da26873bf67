"""Cut a page or source into drawers: heading-scoped chunks that the embedder sees whole.

A drawer never crosses a heading. Inside a section, text is packed from paragraphs (then lines, then
sentences, then words when a unit alone is too long) up to the token budget, and each drawer after the
first repeats the previous unit, so a fact split across a boundary is still seen whole once.
The text that is embedded starts with the page title and heading path: a drawer alone says what it is about.
It leaves out what is no part of the page's meaning: claim anchors (a raw file's name and line numbers,
see `wikic.vault.formats.anchors`), the compiler's block markers and the page's `claims` block (each claim's id,
sources and days); so does a search snippet (`searchable`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from wikic.text.extract import file_title, source_title
from wikic.vault.formats.anchors import strip_anchors
from wikic.vault.formats.claims import CLAIMS_KEY, strip_claim_meta
from wikic.vault.formats.markers import MARKER_LINE, PREFIX as _MARKER, begin_prefix, end_line
from wikic.vault.formats.memory_items import strip_meta
from wikic.vault.frontmatter import Page, read_page

# Bumped whenever drawer text or ids would come out differently for the same file.
CHUNKER_VERSION = "3"  # 2: compiler block markers and claim anchors are left out; 3: so is the claims block

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_ROWS_BEGIN, _ROWS_END = begin_prefix(CLAIMS_KEY), end_line(CLAIMS_KEY)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？;；])\s+|(?<=[。！？；])")


@dataclass(frozen=True)
class Drawer:
    """One chunk of one file, as stored in the palace."""

    id: str
    path: str
    ordinal: int
    heading: str
    text: str  # the chunk itself, as in the file
    embed_text: str  # title + heading path + text: what the model and BM25 see
    line_start: int
    line_end: int
    content_hash: str


@dataclass
class Document:
    """A file's searchable text with what the palace records about it."""

    path: str
    title: str
    body: str
    body_first_line: int  # 1-based line in the file where `body` starts (after frontmatter)
    type: str | None = None
    tags: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    markdown: bool = True


def searchable(text: str) -> str:
    """`text` as search embeds, indexes and shows it: without claim anchors, compiler block markers and the
    bookkeeping of memory items."""
    if _MARKER in text:
        text = "\n".join(line for line in text.split("\n") if not line.startswith(_MARKER))
    return strip_claim_meta(strip_meta(strip_anchors(text)))


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [str(v) for v in value if v is not None]
    return [str(value)]


def make_document(path: str, text: str, *, markdown: bool = True) -> Document:
    """Build the Document of a file from its text; title from frontmatter, else the first H1 outside code, else
    the name (`text/extract.source_title`, as a source is titled everywhere)."""
    page = read_page(text) if markdown else Page(None, text, 1)
    meta, body, first = page.data or {}, page.body, page.body_line
    title = source_title(meta, body, path) if markdown else file_title(path)
    tags = [t.lstrip("#") for t in _as_list(meta.get("tags"))]
    return Document(
        path=path,
        title=title.strip(),
        body=body,
        body_first_line=first,
        type=meta.get("type") if isinstance(meta.get("type"), str) else None,
        tags=tags,
        aliases=_as_list(meta.get("aliases")),
        markdown=markdown,
    )


@dataclass
class _Unit:
    text: str
    start: int  # 1-based file lines, inclusive
    end: int


def _sections(doc: Document) -> list[tuple[list[str], list[_Unit]]]:
    """Split the body at headings (outside fenced code) into (heading path, paragraphs)."""
    sections: list[tuple[list[str], list[_Unit]]] = []
    path: list[tuple[int, str]] = []
    units: list[_Unit] = []
    para: list[str] = []
    para_start = 0
    fence: str | None = None
    in_rows = False  # inside the page's `claims` block: the claims' bookkeeping, which nobody reads

    def flush_para(line_no: int) -> None:
        nonlocal para
        if para and any(p.strip() for p in para):
            units.append(_Unit("\n".join(para).strip("\n"), para_start, line_no - 1))
        para = []

    def flush_section() -> None:
        nonlocal units
        sections.append(([h for _, h in path], units))
        units = []

    for offset, line in enumerate(doc.body.split("\n")):
        line_no = doc.body_first_line + offset
        if in_rows:
            in_rows = line != _ROWS_END
            continue
        fence_match = _FENCE.match(line)
        if fence is not None:
            para.append(line)
            if fence_match and fence_match.group(1)[0] == fence[0] and len(fence_match.group(1)) >= len(fence):
                fence = None
            continue
        if fence_match:
            if not para:
                para_start = line_no
            fence = fence_match.group(1)
            para.append(line)
            continue
        if doc.markdown and MARKER_LINE.match(line):
            # the compiler's block markers (HTML comments Obsidian hides) say nothing about the page
            flush_para(line_no)
            in_rows = line.startswith(_ROWS_BEGIN)
            continue
        heading = _HEADING.match(line) if doc.markdown else None
        if heading:
            flush_para(line_no)
            flush_section()
            level = len(heading.group(1))
            path = [(lv, h) for lv, h in path if lv < level] + [(level, heading.group(2).strip())]
            continue
        if not line.strip():
            flush_para(line_no)
            continue
        if not para:
            para_start = line_no
        para.append(line)
    flush_para(doc.body_first_line + doc.body.count("\n") + 1)
    flush_section()
    return [(h, u) for h, u in sections if u]


def _split_unit(unit: _Unit, budget: int, count: Callable[[str], int]) -> list[_Unit]:
    """Break a unit that alone exceeds the budget: by lines, then sentences, then words."""
    if count(unit.text) <= budget:
        return [unit]
    lines = unit.text.split("\n")
    if len(lines) > 1:
        out: list[_Unit] = []
        for i, line in enumerate(lines):
            if line.strip():
                out.extend(_split_unit(_Unit(line, unit.start + i, unit.start + i), budget, count))
        return out
    sentences = [s for s in _SENTENCE_END.split(unit.text) if s.strip()]
    if len(sentences) > 1:
        return [piece for s in sentences for piece in _split_unit(_Unit(s, unit.start, unit.end), budget, count)]
    # One overlong sentence: cut by words (CJK text has no spaces, so by characters). Word counts are
    # summed (linear, not a recount per word) and each piece is checked, halving it in the rare case that
    # the tokenizer merges across words.
    spaced = " " in unit.text.strip()
    words = unit.text.split(" ") if spaced else list(unit.text)
    joiner = " " if spaced else ""
    pieces: list[_Unit] = []
    current: list[str] = []
    size = 0
    for word in words:
        n = count(word) + (1 if spaced else 0)
        if current and size + n > budget:
            pieces.append(_Unit(joiner.join(current), unit.start, unit.end))
            current, size = [], 0
        current.append(word)
        size += n
    if current:
        pieces.append(_Unit(joiner.join(current), unit.start, unit.end))
    out = []
    for piece in pieces:
        out.extend(_halve(piece, joiner, budget, count))
    return out


def _halve(unit: _Unit, joiner: str, budget: int, count: Callable[[str], int]) -> list[_Unit]:
    parts = unit.text.split(joiner) if joiner else list(unit.text)
    if count(unit.text) <= budget or len(parts) < 2:
        return [unit]
    mid = len(parts) // 2
    left = _Unit(joiner.join(parts[:mid]), unit.start, unit.end)
    right = _Unit(joiner.join(parts[mid:]), unit.start, unit.end)
    return _halve(left, joiner, budget, count) + _halve(right, joiner, budget, count)


def _pack(units: list[_Unit], budget: int, count: Callable[[str], int]) -> list[list[_Unit]]:
    """Greedy packing up to `budget` tokens; each chunk after the first starts with the previous chunk's
    last unit when that fits, so a boundary never hides a fact from both sides."""
    chunks: list[list[_Unit]] = []
    current: list[_Unit] = []
    size = 0
    for unit in units:
        n = count(unit.text) + 1
        if current and size + n > budget:
            chunks.append(current)
            tail = current[-1]
            tail_n = count(tail.text) + 1
            if len(current) > 1 and tail_n + n <= budget:
                current, size = [tail], tail_n
            else:
                current, size = [], 0
        current.append(unit)
        size += n
    if current:
        chunks.append(current)
    return chunks


def _prefix(title: str, heading_path: list[str]) -> str:
    if heading_path and heading_path[0].strip().casefold() == title.strip().casefold():
        heading_path = heading_path[1:]  # the usual "# Title" line would only repeat the title
    return " > ".join([title, *heading_path])


def chunk_document(doc: Document, budget: int, count: Callable[[str], int]) -> list[Drawer]:
    """The drawers of one document. `budget` bounds the embedded text (prefix included) in `count` tokens."""
    drawers: list[Drawer] = []
    seen: dict[str, int] = {}
    memo: dict[str, int] = {}

    def counted(text: str) -> int:  # the packer asks about the same unit several times
        n = memo.get(text)
        if n is None:
            n = memo[text] = count(text)
        return n

    sections = _sections(doc)
    if not sections:
        sections = [([], [_Unit(doc.title, doc.body_first_line, doc.body_first_line)])]
    for heading_path, units in sections:
        prefix = _prefix(doc.title, heading_path)
        room = max(budget - counted(prefix) - 1, budget // 2)
        pieces = [p for u in units for p in _split_unit(u, room, counted)]
        for group in _pack(pieces, room, counted):
            text = "\n".join(u.text for u in group)
            embed_text = f"{prefix}\n{searchable(text)}"
            content_hash = hashlib.sha256(embed_text.encode("utf-8")).hexdigest()
            # Same text twice in one file stays two drawers; the ordinal of equal texts keeps ids stable.
            dup = seen.get(content_hash, 0)
            seen[content_hash] = dup + 1
            drawer_id = hashlib.sha256(f"{doc.path}\0{content_hash}\0{dup}".encode()).hexdigest()[:32]
            drawers.append(
                Drawer(
                    id=drawer_id,
                    path=doc.path,
                    ordinal=len(drawers),
                    heading=" > ".join(heading_path),
                    text=text,
                    embed_text=embed_text,
                    line_start=min(u.start for u in group),
                    line_end=max(u.end for u in group),
                    content_hash=content_hash,
                )
            )
    return drawers
