"""Dated claims as pages carry them: one list item per claim, written and read in one place.

    - Acme runs on PostgreSQL (since 2023-01) ^[[[raw/articles/a.md|a.md]] L3] %%claim seen=2023-02-01 \
via=frontmatter from=2023-01%% ^c1a2b3c4

(one line on the page; cut here to fit)

- the text is the claim as compiled (its links included);
- the parenthesis is the time the claim holds as the page's timeline has it: "since 2023-01" (stated
  start), "as of 2023-02-01" (observed, no stated start), "2023-01 – 2024-06" (ended by a later claim, a
  stated end or an invalidation);
- the anchor cites the raw lines the claim comes from (`wikic/vault/anchors.py`);
- the `%%claim ...%%` comment (hidden in Obsidian's reading view) keeps the machine-readable part: the day
  the source was observed and how that was found (`seen`, `via`), the interval the source states (`from`,
  `to`), the claim it is a later value of (`topic`: the id of the first claim of that subject and
  attribute), and the raw note that ended it (`ended`);
- `^c...` is the claim's block id: a hash of its source and its normalised text, so the same claim from the
  same source keeps its id across recompiles, and `[[page#^c1a2b3c4]]` links to it.

Only the comment's content is the truth; the parenthesis is recomputed from it whenever the page is settled.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass, replace

from wikic.facts.dates import VIAS, partial
from wikic.vault.anchors import ANCHOR, find_anchors
from wikic.vault.markers import BEGIN, end_line

ID_PREFIX = "c"
BY_SENTENCE = "sentence"  # `by=`: the claim is the source's own sentence, found by code (not the model's words)
_ID = r"c[0-9a-f]{8}"
_LINE = re.compile(
    rf"^(?P<indent>[ \t]*)- (?P<body>.+?) %%claim (?P<meta>[^%\n]*)%% \^(?P<id>{_ID})[ \t]*$"
)
_DATE = r"\d{4}(?:-\d{2}(?:-\d{2})?)?"
_SHOWN = re.compile(rf" \((?:since {_DATE}|as of {_DATE}|{_DATE} – {_DATE})\)$")
_WIKILINK = re.compile(r"\[\[(?:[^\[\]|\n]*\|)?([^\[\]\n]*)\]\]")
_SPACES = re.compile(r"\s+")
_ID_ALONE = re.compile(rf"^{_ID}$")


_META = re.compile(rf" %%claim [^%\n]*%% \^{_ID}(?=[ \t]*$)", re.M)


def strip_claim_meta(text: str) -> str:
    """`text` without the claims' bookkeeping (their comments and block ids): what search embeds and shows,
    and what a model is shown of a page. The interval in parentheses stays: it is part of what a claim says."""
    return _META.sub("", text) if "%%claim " in text else text


def claim_id(source: str, text: str) -> str:
    """The block id of the claim `text` from the raw file `source`: stable across recompiles."""
    key = f"{source}\n{normal_text(text)}"
    return ID_PREFIX + hashlib.sha1(key.encode("utf-8")).hexdigest()[:8]


def is_claim_id(value: str) -> bool:
    return bool(_ID_ALONE.match(value.strip().lstrip("^")))


def normal_text(text: str) -> str:
    """A claim's words as compared: link syntax, case and spacing aside (two claims that say the same
    thing in the same words are one value, not a contradiction)."""
    return _SPACES.sub(" ", _WIKILINK.sub(lambda m: m.group(1), text)).strip().rstrip(".").casefold()


def plain_text(text: str) -> str:
    """A claim's text without link syntax (`[[acme|Acme]]` -> `Acme`), for answers and JSON."""
    return _WIKILINK.sub(lambda m: m.group(1), text)


@dataclass(frozen=True)
class Claim:
    id: str
    text: str  # as the page writes it, links included
    anchor: str  # as the page writes it
    seen: dt.date
    via: str
    valid_from: str | None = None  # partial dates the source states
    valid_to: str | None = None  # the first day the claim no longer holds
    topic: str | None = None  # the id of the first claim of the same subject and attribute
    ended: str | None = None  # the raw note that ended it
    by: str | None = None  # BY_SENTENCE: the source's own sentence, found by code; None: the model's claim
    block: str | None = None  # the compiler block it sits in (None: outside any)
    line: int | None = None  # 1-based line in the page file

    @property
    def topic_id(self) -> str:
        return self.topic or self.id

    @property
    def start(self) -> str:
        """When it holds from: the stated start, else the day it was observed."""
        return self.valid_from or self.seen.isoformat()

    @property
    def source(self) -> str | None:
        """The raw file its anchor cites."""
        found = find_anchors(self.anchor)
        return found[0][1].path if found else None

    @property
    def cited(self) -> str | None:
        """The anchor as `raw/x.md:L3-L5`."""
        found = find_anchors(self.anchor)
        return found[0][1].spec if found else None

    def comment(self) -> str:
        parts = [f"seen={self.seen.isoformat()}", f"via={self.via}"]
        if self.valid_from:
            parts.append(f"from={self.valid_from}")
        if self.valid_to:
            parts.append(f"to={self.valid_to}")
        if self.topic and self.topic != self.id:
            parts.append(f"topic={self.topic}")
        if self.ended:
            parts.append(f"ended={self.ended}")
        if self.by:
            parts.append(f"by={self.by}")
        return "%%claim " + " ".join(parts) + "%%"

    def render(self, end: str | None = None) -> str:
        """The page line, showing the claim as holding until `end` (None: still holds)."""
        if end is not None:
            shown = f"{self.start} – {end}"
        elif self.valid_from:
            shown = f"since {self.valid_from}"
        else:
            shown = f"as of {self.seen.isoformat()}"
        return f"- {self.text} ({shown}) {self.anchor} {self.comment()} ^{self.id}"


def parse_line(line: str) -> Claim | None:
    """The claim a page line carries, or None when the line is not one (or its comment is damaged)."""
    m = _LINE.match(line)
    if not m:
        return None
    before, anchor = _strip_anchor_tail(m.group("body"))
    if anchor is None:
        return None
    body = _SHOWN.sub("", before)
    meta: dict[str, str] = {}
    for item in m.group("meta").split():
        key, sep, value = item.partition("=")
        if sep:
            meta[key] = value
    try:
        seen = dt.date.fromisoformat(meta.get("seen", ""))
    except ValueError:
        return None
    via = meta.get("via", "")
    return Claim(
        id=m.group("id"),
        text=body.strip(),
        anchor=anchor,
        seen=seen,
        via=via if via in VIAS else "captured",
        valid_from=partial(meta.get("from")),
        valid_to=partial(meta.get("to")),
        topic=meta.get("topic") if is_claim_id(meta.get("topic", "")) else None,
        ended=meta.get("ended") or None,
        by=BY_SENTENCE if meta.get("by") == BY_SENTENCE else None,
    )


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
    if "%%claim " not in text:
        return []
    out: list[Claim] = []
    block: str | None = None
    for number, line in enumerate(text.split("\n"), start=1):
        begin = BEGIN.match(line)
        if begin:
            block = begin.group(1)
            continue
        if block is not None and line == end_line(block):
            block = None
            continue
        claim = parse_line(line)
        if claim is not None:
            out.append(replace(claim, block=block, line=number))
    return out
