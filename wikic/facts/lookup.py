"""Reading claims back: a subject's claims as of a date (`wikic facts`), and the current claims of the pages
a source names, listed with their ids for the model (so it can say which one a new value replaces)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikic.errors import UsageError
from wikic.facts.timeline import Placed, Timeline, timeline, unique
from wikic.vault.formats.claims import parse_line, plain_text, scan
from wikic.vault.formats.dates import first_day, partial
from wikic.vault.layout import require_vault
from wikic.vault.names import PageNames
from wikic.vault.schema_md import Schema

# Claims listed to the model per source: bounded in count and in characters, whatever the pages hold (a
# small local model has a few thousand tokens of context in all; the list costs at most about 500 of them).
MAX_PROMPT_CLAIMS = 20
MAX_PROMPT_CLAIM_CHARS = 100
MAX_PROMPT_LISTING_CHARS = 2000


def page_timeline(text: str) -> Timeline:
    return timeline(unique(scan(text)))


@dataclass(frozen=True)
class FactsAnswer:
    subject: str  # the page's title
    page: str  # vault-relative path
    as_of: dt.date
    held: list[Placed]  # the claims that held on `as_of`, by topic
    contested: list[tuple[str, str]]  # pairs of claim ids that contradict each other on `as_of`
    total: int  # claims on the page, current and past

    def to_dict(self) -> dict[str, Any]:
        conflicted = {i for pair in self.contested for i in pair}
        return {
            "subject": self.subject,
            "page": self.page,
            "as_of": self.as_of.isoformat(),
            "claims": [
                {
                    "id": p.claim.id,
                    "text": plain_text(p.claim.text),
                    "from": p.start,
                    "to": p.end,
                    "stated_from": p.claim.valid_from,
                    "stated_to": p.claim.valid_to,
                    "seen": p.claim.seen.isoformat(),
                    "via": p.claim.via,
                    "topic": p.claim.topic_id,
                    "anchor": p.claim.cited,
                    "contested": p.claim.id in conflicted,
                }
                for p in self.held
            ],
            "contested": [list(pair) for pair in self.contested],
            "total": self.total,
        }


def facts_of(root: Path, names: PageNames, subject: str, as_of: dt.date) -> FactsAnswer:
    """The claims of the page named `subject` (title, alias or file name) that held on `as_of`."""
    path = names.lookup(subject)
    if path is None:
        raise UsageError(
            f"no page is named '{subject}'", hint="give a page's title, one of its aliases or its file name"
        )
    text = (root / path).read_text(encoding="utf-8")
    plan = page_timeline(text)
    return FactsAnswer(
        subject=names.titles.get(path, subject),
        page=path,
        as_of=as_of,
        held=plan.at(as_of),
        contested=[(a.claim.id, b.claim.id) for a, b in plan.conflicts(as_of)],
        total=len(plan.placed),
    )


def as_of_date(value: str | dt.date | None, today: dt.date | None = None) -> dt.date:
    """The day an `--as-of` value names ("2024" -> 2024-01-01); None: today. A UsageError otherwise."""
    if value is None:
        return today or dt.date.today()
    if isinstance(value, dt.date):
        return value
    found = partial(value)
    if found is None:
        raise UsageError(f"--as-of '{value}' is not a date", hint="write YYYY, YYYY-MM or YYYY-MM-DD")
    return first_day(found)


def facts_for(root: Path, schema: Schema, subject: str, as_of: str | dt.date | None = None) -> FactsAnswer:
    """`facts_of` for the vault at `root` with its SCHEMA.md: the one call the CLI and the MCP server make."""
    from wikic.vault.names import page_names

    require_vault(root)
    names, _ = page_names(root, schema)
    return facts_of(root, names, subject, as_of_date(as_of))


def render_facts(answer: FactsAnswer) -> str:
    """The answer as lines of text: one claim per line, with its interval and anchor."""
    head = f"{answer.subject} ({answer.page}) as of {answer.as_of.isoformat()}:"
    if not answer.held:
        return head + f"\n  no claim held then ({answer.total} on the page in all)"
    conflicted = {i for pair in answer.contested for i in pair}
    lines = [head]
    for placed in answer.held:
        claim = placed.claim
        until = f" – {placed.end}" if placed.end else ""
        mark = "  [contested]" if claim.id in conflicted else ""
        lines.append(f"  - {plain_text(claim.text)} ({placed.start}{until}) ^[{claim.cited}] ^{claim.id}{mark}")
    return "\n".join(lines)


def claims_as_of(lines: list[str], page_text: str, day: dt.date) -> list[str]:
    """`lines` of the page `page_text` with only the claims that held on `day` (each shown with the interval
    it holds), for an answer as of that day; lines that are no claim stay as they are."""
    if " ^c" not in page_text:
        return lines
    placed = page_timeline(page_text).placed
    out = []
    for line in lines:
        claim = parse_line(line)
        if claim is None:
            out.append(line)
            continue
        where = placed.get(claim.id)
        if where is not None and where.holds_on(day):
            out.append(where.claim.render(where.end))
    return out


def listed_claims(root: Path, names: PageNames, titles: Iterable[str], limit: int = MAX_PROMPT_CLAIMS) -> list[str]:
    """The current claims of the pages titled `titles`, one line each: `id | page | claim (since ...)`."""
    out: list[str] = []
    used = 0
    for title in titles:
        path = names.lookup(title)
        if path is None:
            continue
        try:
            text = (root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for placed in page_timeline(text).placed.values():
            if placed.end is not None:
                continue
            claim = placed.claim
            said = plain_text(claim.text)
            if len(said) > MAX_PROMPT_CLAIM_CHARS:
                said = said[: MAX_PROMPT_CLAIM_CHARS - 1].rstrip() + "…"
            when = f" (since {claim.valid_from})" if claim.valid_from else ""  # a stated start helps pair
            line = f"{claim.id} | {names.titles.get(path, title)} | {said}{when}"
            used += len(line) + 3
            if len(out) >= limit or used > MAX_PROMPT_LISTING_CHARS:
                return out
            out.append(line)
    return out
