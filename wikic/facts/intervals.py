"""What a source says about a claim's time, checked before it reaches a page.

The model proposes an interval (`valid_from`, `valid_to`) and a pairing (`replaces`) with each claim; the
code decides. An interval is refused, with the reason recorded, when a date is not a date, lies in the
future, is not stated by the claim's quote (its year is not in it: a date is a specific like any other), or
ends before it starts: the claim is still written, dated by its source, so nothing is lost.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from dataclasses import replace
from typing import Protocol

from wikic.vault.formats.claims import BY_SENTENCE, Claim
from wikic.vault.formats.dates import first_day, partial
from wikic.vault.formats.mentions import ClaimMeta

_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")


class Observed(Protocol):
    """What a claim on its way to a page says of its time (an anchored fact of the ingest plan)."""

    @property
    def quote(self) -> str: ...
    @property
    def valid_from(self) -> str | None: ...
    @property
    def valid_to(self) -> str | None: ...
    @property
    def replaces(self) -> str | None: ...
    @property
    def seen(self) -> dt.date | None: ...
    @property
    def via(self) -> str: ...
    @property
    def extracted(self) -> bool: ...


def claim_meta(fact: Observed) -> ClaimMeta:
    """What a compiled claim carries besides its text and anchor (kept in the mentions ledger)."""
    stated = bool(fact.valid_from or fact.valid_to)
    return ClaimMeta(
        seen=fact.seen.isoformat() if fact.seen is not None else None,
        via=fact.via or None,
        by=BY_SENTENCE if fact.extracted else None,
        valid_from=fact.valid_from or None,
        valid_to=fact.valid_to or None,
        replaces=fact.replaces or None,
        years=tuple(sorted(set(_YEAR.findall(unicodedata.normalize("NFKC", fact.quote))))) if stated else None,
    )


NOT_A_DATE = "is not a date (YYYY, YYYY-MM or YYYY-MM-DD)"  # the end of a refusal's reason; the report counts them


def checked_claim(claim: Claim, meta: ClaimMeta, today: dt.date, refused: list[str]) -> Claim:
    """`claim` with the interval `meta` states, when it holds up; each refusal is appended to `refused`."""
    said = f"'{claim.text[:80]}'"
    stated: dict[str, str | None] = {}
    for key, raw in (("from", meta.valid_from), ("to", meta.valid_to)):
        if not raw:
            stated[key] = None
            continue
        value = partial(raw)
        if value is None:
            refused.append(f"{said}: {key} '{raw}' {NOT_A_DATE}")
        elif first_day(value) > today:
            refused.append(f"{said}: {key} {value} is in the future")
            value = None
        elif meta.years is not None and value[:4] not in meta.years:
            # the source's own date (its frontmatter's, copied by the model) is when the claim was seen, which
            # the claim carries already: not a date the claim asserts, so nothing to refuse
            if not (key == "from" and (meta.seen or "").startswith(value)):
                refused.append(f"{said}: {key} {value} is not stated by its quote (no {value[:4]} in it)")
            value = None
        stated[key] = value
    start, end = stated["from"], stated["to"]
    if start and end and first_day(end) <= first_day(start):
        refused.append(f"{said}: the interval ends ({end}) before it starts ({start})")
        start = end = None
    return replace(claim, valid_from=start, valid_to=end)
