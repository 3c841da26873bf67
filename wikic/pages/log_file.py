"""log.md is an append-only table written by code: its rows, and log.md with rows appended; and the one
reader of its rows (`wikic status`, the overview's latest changes).

    | Date | Action | Target | Notes |
    |------|--------|--------|-------|
    | 2026-11-29 | ingest | [[sources/x\\|X]] | created [[a\\|A]]; updated [[c\\|C]]; 3 pending; 4,120 tokens, $0.0123 |

The Target is a link to what the row is about (the source page of an ingested source, a query page, the
page a claim was ended on); the Notes name the pages created and updated as links, then what else happened,
then the tokens and cost, short, at the end. Rows an earlier version wrote (a raw path as the Target,
"3 created, 2 updated, 4,120 tokens" as the Notes) stay as they are and read the same way.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass

from wikic.resources import log_skeleton

MAX_LISTED = 20  # pages named in one row's notes per list; the rest are counted ("and 4 more")

_ROW = re.compile(r"^\|\s*(\d{4}-\d{2}-\d{2})\s*\|(.*)\|\s*$")
_TOKENS = re.compile(r"([\d,]+)\s+tokens\b")
_COST = re.compile(r"\$(\d+(?:\.\d+)?)")
_LINK = re.compile(r"\[\[([^\[\]|\n]+?)(?:\|([^\[\]\n]*))?\]\]")


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def row(date: dt.date, action: str, target: str, notes: str) -> str:
    return f"| {date.isoformat()} | {_cell(action)} | {_cell(target)} | {_cell(notes)} |"


def page_link(link_text: str, title: str | None = None) -> str:
    """A link to a page as a row names it: `[[link|Title]]` (the title as the label when it differs)."""
    label = " ".join((title or "").split()).replace("|", "/").replace("[", "(").replace("]", ")")
    return f"[[{link_text}|{label}]]" if label and label != link_text else f"[[{link_text}]]"


def listed(verb: str, links: Sequence[str]) -> str:
    """'created [[a]], [[b]]' ('' for no links), at most MAX_LISTED named and the rest counted."""
    if not links:
        return ""
    shown = ", ".join(links[:MAX_LISTED])
    more = len(links) - MAX_LISTED
    return f"{verb} {shown}" + (f" and {more} more" if more > 0 else "")


def usage(tokens: int, cost: float | None, *, cached: bool = False, earlier: int = 0, paid: str = "") -> str:
    """The short tail of a row's notes: '4,120 tokens, $0.0123' ('(cached)' when nothing was paid for).

    `earlier` of `tokens` were paid for on the day `paid` by a run that wrote no row for them (it was
    stopped, or its source failed): '4,120 tokens (3,000 of them first paid 2026-11-29)', or '(cached, first
    paid ...)' when all were. A row's tokens are the one number followed by "tokens" (`read_rows` sums them)."""
    on = f" {paid}" if paid else " earlier"
    if earlier and cached:
        said = f"{tokens:,} tokens (cached, first paid{on})"
    elif earlier:
        said = f"{tokens:,} tokens ({earlier:,} of them first paid{on})"
    else:
        said = f"{tokens:,} tokens" + (" (cached)" if cached else "")
    return said + (f", ${cost:.4f}" if cost is not None else "")


def notes(*parts: str) -> str:
    """A row's notes: its non-empty parts, separated by semicolons."""
    return "; ".join(p for p in parts if p)


def appended(text: str | None, rows: list[str]) -> str:
    """`text` (the current log.md, or None) with `rows` added at the end of the table."""
    base = text if text and text.strip() else log_skeleton()
    if not base.endswith("\n"):
        base += "\n"
    return base + "".join(r + "\n" for r in rows)


@dataclass
class LogRow:
    date: str
    action: str
    target: str  # as written: a link (`[[sources/x|X]]`), or a path in a row of an earlier version
    notes: str
    tokens: int
    cost: float | None

    def to_dict(self) -> dict[str, object]:
        return dict(self.__dict__)

    @property
    def target_link(self) -> str | None:
        """What the Target links to (its link text, without a label), or None when it is no link."""
        found = _LINK.fullmatch(self.target.strip())
        return found.group(1).strip() if found else None

    @property
    def links(self) -> list[tuple[str, str | None]]:
        """Every link of the notes: (link text, label or None), in order."""
        return [(m.group(1).strip(), m.group(2)) for m in _LINK.finditer(self.notes)]


def read_rows(text: str) -> list[LogRow]:
    """Every row of a log.md's table, oldest first."""
    rows = []
    for line in text.splitlines():
        m = _ROW.match(line.strip())
        if not m:
            continue
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", m.group(2))]
        cells += [""] * (3 - len(cells))
        action, target, said = cells[0], cells[1], " | ".join(cells[2:]).strip(" |")
        tokens = sum(int(t.replace(",", "")) for t in _TOKENS.findall(said) if t.replace(",", "").isdigit())
        cost = _COST.search(said)
        rows.append(LogRow(m.group(1), action, target, said, tokens, float(cost.group(1)) if cost else None))
    return rows
