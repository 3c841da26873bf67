"""The text of each kind of source: Markdown and plain text as they are, HTML's main text, PDF text.

Pure functions over bytes/str, no file system: capture decides where things are stored. Ingest extracts a
source's text once, at capture (the text file anchors point into); the palace uses the same functions for
an HTML or PDF file that reached raw/ without being captured.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from wikic.text import archive

if TYPE_CHECKING:  # bs4 is imported by the HTML functions: most sources are Markdown, and a command starts fast
    from bs4 import Tag

_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_DROP = [
    "script", "style", "noscript", "template", "nav", "footer", "aside", "form", "svg", "iframe", "button", "dialog",
]
_INLINE = frozenset(
    ["a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "del", "dfn", "em", "font", "i", "img", "ins", "kbd",
     "label", "mark", "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var", "wbr"]
)
_TEXT_BLOCKS = frozenset(["p", "dt", "dd", "figcaption", "caption", "summary", "address", "blockquote"])
# What makes a list item, or a text block, a container whose children are blocks of their own.
_IN_ITEM = frozenset(["p", "ul", "ol", "div", "pre", "table"])
_IN_TEXT_BLOCK = frozenset([*_HEADINGS, "p", "ul", "ol", "div", "table"])


def normalize_newlines(text: str) -> str:
    """One newline convention, so line numbers mean the same in every editor (CRLF and CR count once)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


# -- Markdown / plain text ---------------------------------------------------------------------------------

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_NAME_GAPS = re.compile(r"[-_\s]+")


def source_title(frontmatter: Mapping[str, Any] | None, body: str, name: str) -> str:
    """What a Markdown (or plain text) source is titled: its frontmatter `title`, else its first level-one
    heading outside code, else its file's name ('' when it has none). A `##` heading titles a section, not
    the document (help pages open with `## Settings`), and a `# Dog` inside a code block is an example."""
    given = (frontmatter or {}).get("title")
    if isinstance(given, (str, int, float)) and not isinstance(given, bool) and str(given).strip():
        return " ".join(str(given).split())
    return first_heading(body) or file_title(name)


def source_aliases(frontmatter: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The other names a source's frontmatter gives it (`aliases`, Obsidian's property), each once, leaving out
    the file paths it may hold ("How to/Add aliases to note", a page's old place): names, not places."""
    given = (frontmatter or {}).get("aliases")
    values = [given] if isinstance(given, str) else given if isinstance(given, list) else []
    names = (" ".join(str(v).split()) for v in values if isinstance(v, (str, int)) and not isinstance(v, bool))
    return tuple(dict.fromkeys(n for n in names if n and "/" not in n and "\\" not in n))


def first_heading(body: str) -> str:
    """The text of the first level-one ATX heading of `body` outside fenced code ('' when there is none)."""
    fence: str | None = None
    for line in body.split("\n"):
        opening = _FENCE.match(line)
        if fence is not None:  # a fence closes with its own character, at least as long, and nothing after it
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence) and \
                    not line[opening.end():].strip():
                fence = None
        elif opening:
            fence = opening.group(1)
        elif (heading := _level_one(line)):
            return " ".join(heading.split())
    return ""


def _level_one(line: str) -> str | None:
    """The text of `line` as a level-one ATX heading (`# Title`, `# Title #`), else None: read by hand, in one
    pass, where a pattern for the closing `#`s would try every space of a long line again."""
    indent = len(line) - len(line.lstrip(" "))
    if indent > 3 or not line.startswith(("# ", "#\t"), indent):
        return None
    text = line[indent + 1 :].strip(" \t")
    unclosed = text.rstrip("#")
    if unclosed != text and (not unclosed or unclosed[-1] in " \t"):
        text = unclosed.rstrip(" \t")  # the closing sequence: `#`s after a space
    return text


def file_title(name: str) -> str:
    """A file's name as a title: 'Graph view.md' -> 'Graph view', 'rag-in-practice.md' -> 'rag in practice'."""
    stem = name.replace("\\", "/").rsplit("/", 1)[-1]
    stem = stem[: stem.rfind(".")] if "." in stem[1:] else stem
    return " ".join(_NAME_GAPS.sub(" ", stem).split())


def first_line_title(text: str, words: int = 8) -> str:
    for line in text.splitlines():
        cleaned = " ".join(re.sub(r"[#>*_`\[\]]", " ", line).split())
        if cleaned:
            return " ".join(cleaned.split()[:words])
    return ""


# Speaker turns: "Alice: ...", "[00:01:02] Bob: ...", "**Host:** ...", "SPEAKER 1: ...".
_TURN = re.compile(
    r"^\s*(?:[\[(]?\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?[\])]?\s*[-–]?\s*)?"
    r"(?:\*\*)?([^\W\d_][\w.'’ -]{0,39}?)(?:\*\*)?\s*:(?:\*\*)?\s+\S"
)
_CUE = re.compile(r"^\s*\d{1,2}:\d{2}:\d{2}[.,]\d{3}\s+-->\s+\d{1,2}:\d{2}:\d{2}[.,]\d{3}", re.MULTILINE)


def looks_like_transcript(text: str) -> bool:
    """WebVTT/SRT cues, or mostly speaker-turn lines from at least two speakers who each speak twice."""
    if text.lstrip().startswith("WEBVTT") or len(_CUE.findall(text)) >= 2:
        return True
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return False
    speakers: dict[str, int] = {}
    turns = 0
    for line in lines:
        match = _TURN.match(line)
        if match and len(match.group(1).split()) <= 4:
            turns += 1
            name = match.group(1).strip().casefold()
            speakers[name] = speakers.get(name, 0) + 1
    regulars = sum(1 for count in speakers.values() if count >= 2)
    return turns >= 4 and regulars >= 2 and turns / len(lines) >= 0.4


# -- HTML -----------------------------------------------------------------------------------------------


def html_to_text(html: str | bytes) -> tuple[str, str]:
    """(title, main text as light Markdown: `#` headings, paragraphs, `- ` list items, `|` table rows).
    Bytes are decoded by the charset the page declares, else by detection."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    title = _clean(soup.title.get_text()) if soup.title else ""
    root: Tag = soup.find("main") or soup.find("article") or soup.body or soup
    for tag in root.find_all(_DROP):
        tag.decompose()
    if root.name in ("body", "[document]"):
        # A page-level <header> is site chrome; a <header> inside <article> holds the title, so keep those.
        for tag in root.find_all("header"):
            if tag.find_parent(["article", "main"]) is None:
                tag.decompose()
    blocks: list[str] = []
    _walk(root, blocks)
    text = _join_blocks([block for block in blocks if block.strip()])
    if not title:
        heading = root.find("h1") or root.find(list(_HEADINGS))
        title = _clean(heading.get_text()) if heading else ""
    return title, text + "\n" if text else ""


def _join_blocks(blocks: list[str]) -> str:
    """Blank lines between blocks, except inside a run of list items or table rows."""
    out: list[str] = []
    for i, block in enumerate(blocks):
        if i:
            prev = blocks[i - 1]
            same_run = (prev.startswith("- ") and block.startswith("- ")) or (
                prev.startswith("| ") and block.startswith("| ")
            )
            out.append("\n" if same_run else "\n\n")
        out.append(block)
    return "".join(out)


def _clean(text: str) -> str:
    return " ".join(text.split())


def _walk(node: Tag, out: list[str]) -> None:
    """The blocks under `node`, in document order. The tree is walked with a stack of its own, not by
    recursion: a page of thousands of nested elements is read like any other (Python's recursion limit
    stopped one at about 950 levels)."""
    from bs4 import Comment, Tag
    from bs4.element import NavigableString

    inline: list[str] = []  # one run of inline text: flushed before a block starts and when an element ends

    def flush() -> None:
        text = _clean("".join(inline))
        if text:
            out.append(text)
        inline.clear()

    holds_item_blocks, holds_text_blocks = _holding(node)
    stack = [iter(node.children)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            flush()
            continue
        if isinstance(child, Comment):
            continue
        if isinstance(child, NavigableString):
            if type(child) is NavigableString:  # not Doctype, CData, ProcessingInstruction
                inline.append(str(child))
            continue
        if not isinstance(child, Tag):
            continue
        name = child.name
        if name in _INLINE:
            inline.append(child.get_text())
        elif name == "br":
            inline.append(" ")
        elif name in _HEADINGS:
            flush()
            text = _clean(child.get_text())
            if text:
                out.append("#" * _HEADINGS[name] + " " + text)
        elif name == "pre":
            flush()
            out.append(child.get_text().strip("\n"))
        elif name == "li" and id(child) not in holds_item_blocks:
            flush()
            text = _clean(child.get_text())
            if text:
                out.append("- " + text)
        elif name == "tr":
            flush()
            # its own cells: a table nested in a cell is that cell's text
            cells = [_clean(cell.get_text()) for cell in child.find_all(["td", "th"], recursive=False)]
            if any(cells):
                out.append("| " + " | ".join(cells) + " |")
        elif name in _TEXT_BLOCKS and id(child) not in holds_text_blocks:
            flush()
            text = _clean(child.get_text())
            if text:
                out.append(("> " if name == "blockquote" else "") + text)
        else:
            flush()
            stack.append(iter(child.children))


def _holding(node: Tag) -> tuple[set[int], set[int]]:
    """The elements under `node` (by id: a Tag hashes its whole serialised subtree) that hold an element of
    `_IN_ITEM` below them, and those that hold one of `_IN_TEXT_BLOCK`: found in one pass from the last
    element up, each from its children's answers, where asking each list item in turn searched its whole
    subtree again (nested items took quadratic time)."""
    from bs4 import Tag

    items: set[int] = set()
    texts: set[int] = set()
    for element in reversed(list(node.descendants)):  # every element comes after all of its descendants
        if not isinstance(element, Tag):
            continue
        for child in element.children:
            if isinstance(child, Tag):
                if child.name in _IN_ITEM or id(child) in items:
                    items.add(id(element))
                if child.name in _IN_TEXT_BLOCK or id(child) in texts:
                    texts.add(id(element))
    return items, texts


_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([\w.:-]+)""", re.IGNORECASE)


def declared_charset(data: bytes, content_type: str | None = None) -> str | None:
    """The charset from a Content-Type header, else from a <meta> in the first 4 KB."""
    if content_type:
        match = re.search(r"charset\s*=\s*[\"']?([\w.:-]+)", content_type, re.IGNORECASE)
        if match:
            return match.group(1)
    meta = _META_CHARSET.search(data[:4096])
    return meta.group(1).decode("ascii", "replace") if meta else None


# -- PDF ------------------------------------------------------------------------------------------------


# A PDF's text is bounded as a zip's content is (`archive`): a small file may hold a page whose compressed
# drawing instructions inflate a thousandfold, each page may draw the same ones again, and pypdf takes seconds
# per megabyte of them. So the instructions each page is read from, and the text read, may be at most this
# much and, past `archive.RATIO_FLOOR`, at most `archive.MAX_RATIO` times the file's size.
MAX_PDF_TEXT_BYTES = 64 << 20


class PdfProblem(ValueError):
    """The PDF cannot be read, is encrypted, has no text layer, or would make too much text."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


def pdf_to_text(data: bytes) -> tuple[str, str]:
    """(title from the metadata or '', text with a `<!-- page N -->` line before each page). PdfProblem when
    the text, or the drawing instructions it is read from, would go past the bounds above: each page's are
    weighed before it is read, and the text is counted as it is read."""
    from pypdf import PdfReader  # imported here: only PDF sources pay for it

    bound = _PdfBound(len(data))
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise PdfProblem("the PDF is encrypted")
        pages = []
        for page in reader.pages:
            bound.drawn(_drawing_bytes(page))
            pages.append(page.extract_text(visitor_text=bound.read) or "")
        meta_title = (reader.metadata.title if reader.metadata else None) or ""
    except PdfProblem:
        raise
    except _TooMuchText:
        raise bound.refused("more than ", bound.limit) from None
    except Exception as exc:  # noqa: BLE001 - pypdf raises many unrelated types on malformed files
        raise PdfProblem(f"cannot read the PDF ({type(exc).__name__}: {exc})") from None
    if not any(page.strip() for page in pages):
        raise PdfProblem("the PDF has no text layer (a scan?)")
    parts = [f"<!-- page {number} -->\n{normalize_newlines(text).strip()}" for number, text in enumerate(pages, 1)]
    title = meta_title.strip()
    if title.lower() in ("untitled", "title") or title.lower().startswith("microsoft word"):
        title = ""
    return title, "\n\n".join(parts) + "\n"


class _TooMuchText(MemoryError):
    """The text read so far is past the bound. A MemoryError, for pypdf lets only that through from a form's
    text: any other exception it logs and reads on, and a form may be drawn thousands of times on a page."""


class _PdfBound:
    """What a PDF's pages have drawn and read so far, against `MAX_PDF_TEXT_BYTES` and the ratio to its size."""

    def __init__(self, file_bytes: int) -> None:
        self.file_bytes = file_bytes
        self.limit = min(MAX_PDF_TEXT_BYTES, max(archive.RATIO_FLOOR, archive.MAX_RATIO * file_bytes))
        self.drawing = 0
        self.text = 0

    def drawn(self, n: int) -> None:
        """A page is about to be read from `n` bytes of drawing instructions: its text is at most about that
        (and reading them costs seconds a megabyte, so they are weighed first)."""
        self.drawing += n
        if self.drawing > self.limit:
            raise self.refused("up to ", self.drawing)

    def read(self, text: str, *_: Any) -> None:
        """pypdf's `visitor_text`: called with each piece of text as it is read."""
        self.text += len(text.encode("utf-8", "surrogatepass"))
        if self.text > self.limit:
            raise _TooMuchText()

    def refused(self, how_much: str, n: int) -> PdfProblem:
        why = (
            f"more than {archive.size_text(MAX_PDF_TEXT_BYTES)}" if n >= MAX_PDF_TEXT_BYTES
            else f"more than {archive.MAX_RATIO} times its size"
        )
        return PdfProblem(
            f"PDF text would be {how_much}{archive.size_text(n)} from a file of {archive.size_text(self.file_bytes)} "
            f"({why}): refused",
            hint="a PDF made to be costly to read, or a drawing rather than a document; "
            "if it is a document, save its text some other way and ingest that",
        )


def _drawing_bytes(page: Any) -> int:
    """The bytes of drawing instructions pypdf interprets to read `page`'s text: its content streams and
    those of every form it may draw (each counted once; inflating them costs little beside interpreting)."""
    contents = _resolved(page.get("/Contents"))
    streams = list(contents) if isinstance(contents, list) else [contents]
    resources = [page.get("/Resources")]
    seen: set[int] = set()
    while resources:
        found = _resolved(resources.pop())
        forms = _resolved(found.get("/XObject")) if isinstance(found, dict) else None
        for item in forms.values() if isinstance(forms, dict) else ():
            form = _resolved(item)
            if isinstance(form, dict) and form.get("/Subtype") != "/Image" and id(form) not in seen:
                seen.add(id(form))
                streams.append(form)
                resources.append(form.get("/Resources"))
    return sum(len(stream.get_data()) for stream in map(_resolved, streams) if hasattr(stream, "get_data"))


def _resolved(value: Any) -> Any:
    """A PDF object, an indirect reference followed."""
    return value.get_object() if hasattr(value, "get_object") else value
