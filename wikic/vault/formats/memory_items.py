"""Memories on a page: how a memory item is written into a page and read back, in one place (the compiler
writes them, the briefing and recall read them, `confirm_lesson` rewrites one).

Memories live on the entity page of their subject (the user's own page, a project's page), one compiler
block per kind, each under its own section:

    ## Instructions

    <!-- wikic:begin memory:instruction sha=1a2b3c4d5e6f -->
    - 2026-11-30 · Use uv, never pip. ^[[[raw/transcripts/s1.md|s1.md]] L9] %%memory importance=0.9%%
    <!-- wikic:end memory:instruction -->

An item is one list line: the day it was first said, for a verified lesson the word `verified`, the
memory's text, one anchor per transcript (or note) that said it, and its bookkeeping in an Obsidian
comment (hidden when the page is read): `importance` (0 to 1), `confirmed` (how often a lesson was
confirmed), `last` (the day it was last said again or confirmed, when later than the first).
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Literal, get_args

from wikic.vault.formats.anchors import find_anchors, parse_spec

# kind -> the section its items sit under, in the order the sections are written on a page
SECTIONS = {
    "persona": "Preferences",
    "instruction": "Instructions",
    "episodic": "Decisions and events",
    "lesson": "Lessons",
}
KINDS = tuple(SECTIONS)
# The same kinds as the model is told them (its reply's JSON schema, `wikic/ingest/plan_model.py`) and as the
# MCP tools name them; a test holds the two lists together.
MemoryKind = Literal["persona", "episodic", "instruction", "lesson"]
TOLD_KINDS: tuple[str, ...] = get_args(MemoryKind)
BLOCK_PREFIX = "memory:"
VERIFIED = "verified"
VERIFIED_AFTER = 2  # confirmations that make a lesson verified

_ITEM = re.compile(r"^- (?P<date>\d{4}-\d{2}-\d{2}) · (?:(?P<verified>verified) · )?(?P<rest>.*)$")
_META = re.compile(r"\s*%%memory(?P<meta>[^%\n]*)%%\s*$")
_ANY_META = re.compile(r"[ \t]*%%memory[^%\n]*%%")
_WIKILINK = re.compile(r"\[\[([^\[\]|\n]+)(?:\\?\|([^\[\]\n]*))?\]\]")


def block_key(kind: str) -> str:
    return f"{BLOCK_PREFIX}{kind}"


def kind_of_block(key: str) -> str | None:
    """The kind of memory a block holds (`memory:lesson`, or `memory:lesson:more` beside an edited one)."""
    kind = key.removeprefix(BLOCK_PREFIX).split(":", 1)[0]
    return kind if key.startswith(BLOCK_PREFIX) and kind in SECTIONS else None


@dataclass(frozen=True)
class MemoryItem:
    kind: str
    date: dt.date  # the day it was first said
    text: str  # as written on the page: Markdown, with links to pages
    anchors: tuple[str, ...] = ()  # anchor specs, "raw/transcripts/s1.md:L9"
    importance: float = 0.5
    confirmed: int = 0  # explicit confirmations (`confirm_lesson`)
    last: dt.date | None = None  # the day it was last said again or confirmed
    extra: dict[str, str] = field(default_factory=dict, compare=False)  # bookkeeping keys this version does not know

    @property
    def latest(self) -> dt.date:
        return max(self.date, self.last) if self.last else self.date

    @property
    def sources(self) -> list[str]:
        """The distinct raw files that said it, in the order they did."""
        return list(dict.fromkeys(c.path for c in (parse_spec(a) for a in self.anchors) if c is not None))

    @property
    def confirmations(self) -> int:
        """Each further source that said it again, and each explicit confirmation."""
        return self.confirmed + max(0, len(self.sources) - 1)

    @property
    def verified(self) -> bool:
        return self.kind == "lesson" and self.confirmations >= VERIFIED_AFTER

    @property
    def plain(self) -> str:
        """The text without link syntax (a link reads as its label)."""
        return plain_text(self.text)

    def said_again(self, anchor: str, when: dt.date, importance: float) -> MemoryItem:
        """This item, also said at `anchor` on `when`: the anchor is added, never a second line."""
        anchors = self.anchors if anchor in self.anchors else (*self.anchors, anchor)
        last = max(d for d in (self.last, when) if d is not None)
        return replace(self, anchors=anchors, importance=max(self.importance, importance),
                       last=last if last > self.date else self.last)

    def confirm(self, when: dt.date) -> MemoryItem:
        last = max(d for d in (self.last, when) if d is not None)
        return replace(self, confirmed=self.confirmed + 1, last=last if last > self.date else self.last)


def plain_text(text: str) -> str:
    return _WIKILINK.sub(lambda m: (m.group(2) if m.group(2) else posixpath.basename(m.group(1))), text)


def strip_meta(text: str) -> str:
    """`text` without the items' bookkeeping comments (what search embeds and shows)."""
    return _ANY_META.sub("", text) if "%%memory" in text else text


def render_item(item: MemoryItem, cite: Callable[[str], str]) -> str:
    """The item's line; `cite` renders one anchor spec as the page shows it."""
    head = f"- {item.date.isoformat()} · " + (f"{VERIFIED} · " if item.verified else "")
    anchors = "".join(f" {cite(a)}" for a in item.anchors)
    meta = [f"importance={_number(item.importance)}"]
    if item.confirmed:
        meta.append(f"confirmed={item.confirmed}")
    if item.last and item.last > item.date:
        meta.append(f"last={item.last.isoformat()}")
    meta.extend(f"{k}={v}" for k, v in sorted(item.extra.items()))
    return f"{head}{item.text}{anchors} %%memory {' '.join(meta)}%%"


def render_items(items: Iterable[MemoryItem], cite: Callable[[str], str]) -> str:
    return "\n".join(render_item(item, cite) for item in items)


def parse_item(line: str, kind: str) -> MemoryItem | None:
    """The item a line of a memory block holds, or None for a line that is not one (a person's own line)."""
    m = _ITEM.match(line.rstrip())
    if not m:
        return None
    try:
        day = dt.date.fromisoformat(m.group("date"))
    except ValueError:
        return None
    rest = m.group("rest")
    meta: dict[str, str] = {}
    found = _META.search(rest)
    if found:
        rest = rest[: found.start()]
        for pair in found.group("meta").split():
            key, _, value = pair.partition("=")
            meta[key] = value
    anchors = find_anchors(rest)
    text = rest[: anchors[0][0].start()] if anchors else rest
    importance = _float(meta.pop("importance", ""), 0.5)
    confirmed = _int(meta.pop("confirmed", ""))
    last = _date(meta.pop("last", ""))
    return MemoryItem(kind, day, text.strip(), tuple(c.spec for _, c in anchors), importance, confirmed, last, meta)


def parse_items(body: str, kind: str) -> list[MemoryItem]:
    return [item for line in body.split("\n") if (item := parse_item(line, kind)) is not None]


def _number(value: float) -> str:
    return f"{round(min(1.0, max(0.0, value)), 2):g}"


def _float(value: str, default: float) -> float:
    try:
        return min(1.0, max(0.0, float(value)))
    except ValueError:
        return default


def _int(value: str) -> int:
    try:
        return max(0, int(value))
    except ValueError:
        return 0


def _date(value: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return None
