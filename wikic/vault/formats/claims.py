"""Claims as pages carry them: one list item per claim, its sources' anchors at its end, written and read in
one place.

    - Acme runs on PostgreSQL (since 2023-01) ^[[[raw/articles/a.md|a.md]] L3] ^[[[raw/b.md|b.md]] L9] ^c1a2b3c4

- the text is the claim as compiled (its links included); a fact several sources state is one line carrying
  all their anchors;
- the parenthesis is there only when the claim is bound in time: "since 2023-01" (a stated start), "until
  2025-03" (a stated end), "2023-01 – 2025-03" (ended by a later claim, a stated end or an invalidation); a
  timeless claim shows no date;
- each anchor cites the raw lines the claim comes from (`wikic/vault/formats/anchors.py`);
- `^c...` is the claim's block id (a hash of its normalised text when it was first written: it never
  changes after), so `[[page#^c1a2b3c4]]` links to it.

What code needs besides (when each source was observed and how that was found, whether the line is the
source's own sentence, the interval stated, the claim it is a later value of, what ended it) is kept off the
reading line, in the page's `claims` block at its end: an HTML comment no reader sees, one row per claim and
source, and one per claim for what belongs to the claim itself.

    <!-- wikic:begin claims sha=... -->
    <!--
    c1a2b3c4 from=2023-01 topic=c0ffee12
    c1a2b3c4 src=raw/articles/a.md seen=2023-02-01 via=frontmatter
    c1a2b3c4 src=raw/articles/b.md seen=2026-10-30 via=captured by=sentence
    -->
    <!-- wikic:end claims -->

Pages written by earlier versions carry that on the line itself (`... %%claim seen=2023-02-01 via=frontmatter
from=2023-01%% ^c1a2b3c4`, and "as of" a day on every claim): every reader here takes both forms, and the
compiler writes the new one whenever it writes the page.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import pairwise
from urllib.parse import unquote

from wikic.text.code_spans import outside_code
from wikic.vault.formats.anchors import ANCHOR, first_cited
from wikic.vault.formats.dates import VIA_CAPTURED, VIAS, partial
from wikic.vault.formats.markers import BEGIN, PREFIX, block, end_line

ID_PREFIX = "c"
BY_SENTENCE = "sentence"  # `by=`: the claim is the source's own sentence, found by code (not the model's words)
CLAIMS_KEY = "claims"  # the compiler block holding what code needs of a page's claims
UNKNOWN_DAY = dt.date(1970, 1, 1)  # a claim line copied without its row: observed "before everything"
_ID = r"c[0-9a-f]{8}"
_OLD_LINE = re.compile(
    rf"^(?P<indent>[ \t]*)(?P<quote>> )?- (?P<body>.+?) %%claim (?P<meta>[^%\n]*)%% \^(?P<id>{_ID})[ \t]*$"
)
# a list item, or a paragraph of its own (the claim a page's lead is)
_LINE = re.compile(rf"^(?P<indent>[ \t]*)(?P<quote>> )?(?:- )?(?P<body>.+?) \^(?P<id>{_ID})[ \t]*$")
_DATE = r"\d{4}(?:-\d{2}(?:-\d{2})?)?"
_SHOWN = re.compile(rf" \((?:since {_DATE}|until {_DATE}|as of {_DATE}|{_DATE} – {_DATE})\)$")
_WIKILINK = re.compile(r"\[\[(?:[^\[\]|\n]*\|)?([^\[\]\n]*)\]\]")
_SPACES = re.compile(r"\s+")
_ID_ALONE = re.compile(rf"^{_ID}$")
_ROW = re.compile(rf"^(?P<id>{_ID})((?: \S+=\S*)*)$")
_OLD_META = re.compile(rf" %%claim [^%\n]*%% \^{_ID}(?=[ \t]*$)", re.M)
_BLOCK_ID = re.compile(rf" \^{_ID}(?=[ \t]*$)", re.M)
_TRAILING_ID = re.compile(rf"\^({_ID})[ \t]*$")
# the lines `scan` reads: a compiler marker's (a block's begin or end) and those holding a claim's id
_SCANNED = re.compile(rf"^(?:{re.escape(PREFIX)}|[^\n]*\^c)[^\n]*", re.MULTILINE)
_CLAIMS_BLOCK = block(CLAIMS_KEY)


def strip_claim_meta(text: str) -> str:
    """`text` without the claims' bookkeeping (their block ids, the page's `claims` block, and an older
    page's comments): what search embeds and shows, and what a model is shown of a page. The interval in
    parentheses stays: it is part of what a claim says."""
    if CLAIMS_KEY in text:
        text = "\n".join(without_rows(text.split("\n")))
    if "%%claim " in text:
        text = _OLD_META.sub("", text)
    return _BLOCK_ID.sub("", text) if " ^c" in text else text


def without_rows(lines: list[str]) -> list[str]:
    """A page's lines without its `claims` block (machinery no reader sees)."""
    begin = next((i for i, line in enumerate(lines) if line.startswith(f"<!-- wikic:begin {CLAIMS_KEY} ")), None)
    if begin is None:
        return lines
    end = next((i for i in range(begin, len(lines)) if lines[i] == end_line(CLAIMS_KEY)), len(lines) - 1)
    return [*lines[:begin], *lines[end + 1 :]]


def claim_id(text: str, taken: Iterable[str] = ()) -> str:
    """The block id of a new claim saying `text`: a hash of its words, another one if a different claim of the
    page holds that one already."""
    base = normal_text(text)
    taken = set(taken)
    for n in range(1000):
        key = base if n == 0 else f"{base}\n{n}"
        found = ID_PREFIX + hashlib.sha1(key.encode("utf-8")).hexdigest()[:8]
        if found not in taken:
            return found
    raise AssertionError("a thousand claims hash alike")  # pragma: no cover - 2**32 ids


def is_claim_id(value: str) -> bool:
    return bool(_ID_ALONE.match(value.strip().lstrip("^")))


def normal_text(text: str) -> str:
    """A claim's words as compared: link syntax, case and spacing aside (two claims that say the same
    thing in the same words are one value, not a contradiction)."""
    return _SPACES.sub(" ", plain_text(text)).strip().rstrip(".").casefold()


def plain_text(text: str) -> str:
    """A claim's text without link syntax (`[[acme|Acme]]` -> `Acme`), for answers and JSON; a link quoted in
    code (`` `[[AI]]` ``) is code, kept as written."""
    return outside_code(text, lambda part: _WIKILINK.sub(lambda m: m.group(1), part))


@dataclass(frozen=True)
class Citation:
    """One source of a claim: its anchor as the page writes it, when the source was observed and how that
    was found, and `by` (BY_SENTENCE: the line is the source's own sentence, found by code)."""

    anchor: str
    seen: dt.date
    via: str = VIA_CAPTURED
    by: str | None = None

    @property
    def source(self) -> str | None:
        found = first_cited(self.anchor)
        return found.path if found is not None else None

    @property
    def cited(self) -> str | None:
        found = first_cited(self.anchor)
        return found.spec if found is not None else None


@dataclass(frozen=True)
class Claim:
    id: str
    text: str  # as the page writes it, links included
    citations: tuple[Citation, ...]
    valid_from: str | None = None  # partial dates the sources state
    valid_to: str | None = None  # the first day the claim no longer holds
    topic: str | None = None  # the id of the first claim of the same subject and attribute
    ended: str | None = None  # the raw note that ended it
    block: str | None = None  # the compiler block it sits in (None: outside any)
    line: int | None = None  # 1-based line in the page file

    @property
    def topic_id(self) -> str:
        return self.topic or self.id

    @property
    def seen(self) -> dt.date:
        """The day its earliest source was observed."""
        return min(c.seen for c in self.citations) if self.citations else UNKNOWN_DAY

    @property
    def via(self) -> str:
        return min(self.citations, key=lambda c: c.seen).via if self.citations else VIA_CAPTURED

    @property
    def start(self) -> str:
        """When it holds from: the stated start, else the day it was observed."""
        return self.valid_from or self.seen.isoformat()

    @property
    def anchor(self) -> str:
        return " ".join(c.anchor for c in self.citations)

    @property
    def sources(self) -> list[str]:
        return [s for c in self.citations if (s := c.source)]

    @property
    def source(self) -> str | None:
        """The raw file its first anchor cites."""
        return self.citations[0].source if self.citations else None

    @property
    def cited(self) -> str | None:
        """The first anchor as `raw/x.md:L3-L5`."""
        return self.citations[0].cited if self.citations else None

    def without(self, source: str) -> Claim:
        """The claim as the other sources state it (no citation left: the source was its only one)."""
        kept = tuple(c for c in self.citations if c.source != source)
        return self if len(kept) == len(self.citations) else replace(self, citations=kept)

    def citing(self, citation: Citation) -> Claim:
        """The claim with one more source (or that source's citation renewed)."""
        kept = tuple(c for c in self.citations if c.source != citation.source)
        return replace(self, citations=(*kept, citation))

    def shown(self, end: str | None = None) -> str:
        """The claim's time as the line shows it: only when it is bound in time."""
        if end is not None:
            return f" ({self.start} – {end})"
        if self.valid_from:
            return f" (since {self.valid_from})"
        if self.valid_to:
            return f" (until {self.valid_to})"
        return ""

    def render(self, end: str | None = None, *, item: bool = True) -> str:
        """The page line, showing the claim as holding until `end` (None: still holds); `item=False`: as a
        paragraph of its own (a page's lead)."""
        return f"{'- ' if item else ''}{self.text}{self.shown(end)} {self.anchor} ^{self.id}"

    def rows(self) -> list[str]:
        """What the page's `claims` block keeps of this claim."""
        own = [f"{key}={value}" for key, value in (("from", self.valid_from), ("to", self.valid_to),
                                                   ("topic", self.topic if self.topic != self.id else None),
                                                   ("ended", self.ended)) if value]
        out = [f"{self.id} {' '.join(own)}"] if own else []
        for c in sorted(self.citations, key=lambda c: c.source or ""):
            if c.source is None:
                continue
            row = f"{self.id} src={_quoted(c.source)} seen={c.seen.isoformat()} via={c.via}"
            out.append(row + (f" by={c.by}" if c.by else ""))
        return out


def _quoted(path: str) -> str:
    """A raw path as one word of a row (a path dropped into raw/ by hand may hold spaces)."""
    return path.replace("%", "%25").replace(" ", "%20").replace("\t", "%09")


# -- reading ----------------------------------------------------------------------------------------------

Rows = dict[str, dict[str, dict[str, str]]]  # claim id -> source ("" for the claim's own row) -> key -> value


def read_rows(text: str) -> Rows:
    """The rows of the page's `claims` block."""
    return _rows_of(_row_lines(text))


def _row_lines(text: str) -> list[str]:
    """The lines of the page's `claims` block that are rows, stripped."""
    found = _CLAIMS_BLOCK.search(text)
    if found is None:
        return []
    return [row for line in found.group(1).split("\n") if _ROW.match(row := line.strip())]


def _rows_of(lines: Iterable[str]) -> Rows:
    rows: Rows = {}
    for line in lines:
        m = _ROW.match(line)
        if not m:
            continue
        values = dict(item.partition("=")[::2] for item in m.group(2).split())
        source = unquote(values.pop("src", ""))
        rows.setdefault(m.group("id"), {}).setdefault(source, {}).update(values)
    return rows


def rows_block(claims: Iterable[Claim]) -> str:
    """The body of a page's `claims` block."""
    rows = [row for claim in sorted(claims, key=lambda c: c.id) for row in claim.rows()]
    return "<!--\n" + "\n".join(rows) + "\n-->" if rows else ""


def parse_line(line: str, rows: Rows | None = None) -> Claim | None:
    """The claim a page line carries, or None when the line is not one (or its comment is damaged).
    `rows`: the page's `claims` block (`read_rows`); without it, a claim's days are unknown."""
    old = _OLD_LINE.match(line)
    if old is not None:
        return _old_claim(old)
    m = _LINE.match(line)
    if not m or "%%claim" in line:
        return None
    anchors = list(ANCHOR.finditer(m.group("body")))
    if not anchors:
        return None
    first = anchors[0].start()
    if m.group("body")[anchors[-1].end() :].strip() or any(
        m.group("body")[a.end() : b.start()].strip() for a, b in pairwise(anchors)
    ):
        return None  # text between or after the anchors: not a line wikic wrote
    mine = (rows or {}).get(m.group("id"), {})
    own = mine.get("", {})
    citations = []
    for anchor in anchors:
        spec = anchor.group()
        cited = first_cited(spec)
        row = mine.get(cited.path, {}) if cited is not None else {}
        seen = _date(row.get("seen")) or UNKNOWN_DAY
        via = row.get("via", "")
        citations.append(Citation(spec, seen, via if via in VIAS else VIA_CAPTURED,
                                  BY_SENTENCE if row.get("by") == BY_SENTENCE else None))
    body = _SHOWN.sub("", m.group("body")[:first].rstrip())
    return Claim(
        id=m.group("id"),
        text=body.strip(),
        citations=tuple(citations),
        valid_from=partial(own.get("from")),
        valid_to=partial(own.get("to")),
        topic=own.get("topic") if is_claim_id(own.get("topic", "")) else None,
        ended=own.get("ended") or None,
    )


def _old_claim(m: re.Match[str]) -> Claim | None:
    """A claim line of an earlier version: its bookkeeping in a `%%claim ...%%` comment on the line."""
    before, anchor = _strip_anchor_tail(m.group("body"))
    if anchor is None:
        return None
    meta: dict[str, str] = {}
    for item in m.group("meta").split():
        key, sep, value = item.partition("=")
        if sep:
            meta[key] = value
    seen = _date(meta.get("seen"))
    if seen is None:
        return None
    via = meta.get("via", "")
    return Claim(
        id=m.group("id"),
        text=_SHOWN.sub("", before).strip(),
        citations=(Citation(anchor, seen, via if via in VIAS else VIA_CAPTURED,
                            BY_SENTENCE if meta.get("by") == BY_SENTENCE else None),),
        valid_from=partial(meta.get("from")),
        valid_to=partial(meta.get("to")),
        topic=meta.get("topic") if is_claim_id(meta.get("topic", "")) else None,
        ended=meta.get("ended") or None,
    )


def _date(value: str | None) -> dt.date | None:
    try:
        return dt.date.fromisoformat(value or "")
    except ValueError:
        return None


def _strip_anchor_tail(body: str) -> tuple[str, str | None]:
    """(the body before its last anchor, that anchor)."""
    last = None
    for m in ANCHOR.finditer(body):
        last = m
    if last is None or body[last.end() :].strip():
        return body, None
    return body[: last.start()].rstrip(), body[last.start() : last.end()]


def scan(text: str) -> list[Claim]:
    """Every claim line of a page, with the compiler block it sits in and its line number."""
    if " ^c" not in text:
        return []
    return list(_scan(text))


# A compile reads the same page text several times (whether it is contested, then to render it, then for its
# source pages), and a page many sources name is rendered once per source: its claims are parsed once, and a
# claim line whose rows did not change since the last rendering is not parsed again.
@lru_cache(maxsize=64)
def _scan(text: str) -> tuple[Claim, ...]:
    rows: dict[str, list[str]] = {}
    if CLAIMS_KEY in text:
        for row in _row_lines(text):
            rows.setdefault(row.split(" ", 1)[0], []).append(row)  # a row opens with its claim's id
    out: list[Claim] = []
    block: str | None = None
    number, at = 1, 0  # the line at offset `at`
    for candidate in _SCANNED.finditer(text):
        number += text.count("\n", at, candidate.start())
        at = candidate.start()
        line = candidate.group()
        begin = BEGIN.match(line)
        if begin:
            block = begin.group(1)
            continue
        if block is not None and line == end_line(block):
            block = None
            continue
        if "^c" not in line:
            continue
        own = _TRAILING_ID.search(line)
        claim = _line_claim(line, tuple(rows.get(own.group(1), ())) if own else ())
        if claim is not None:
            out.append(replace(claim, block=block, line=number))
    return tuple(out)


@lru_cache(maxsize=16_384)  # the claim lines of the pages rendered last
def _line_claim(line: str, rows: tuple[str, ...]) -> Claim | None:
    """`parse_line` of a claim line with the rows of its id."""
    return parse_line(line, _rows_of(rows))
