"""Dates of claims: the partial dates sources state ("2025", "2025-03", "2025-03-14") and the day a source
was observed (its own date, in a fixed order of evidence).

A partial date keeps the precision it was stated with (a page shows "since 2025-03", not an invented
day) and compares by its first day: "2025-03" starts on 2025-03-01.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from functools import lru_cache

from wikic.vault.frontmatter import split_page

_PARTIAL = re.compile(r"^\s*(\d{4})(?:[-/.](\d{1,2})(?:[-/.](\d{1,2}))?)?\s*$")
# A date in a file name: 2025-03-14, 2025_03_14 or 20250314, not inside a longer run of digits.
_IN_NAME = re.compile(r"(?<!\d)(\d{4})[-_.]?(\d{2})[-_.]?(\d{2})(?!\d)")

# How the day a claim was observed was found, best evidence first.
VIA_FRONTMATTER = "frontmatter"
VIA_FILENAME = "filename"
VIA_TRANSCRIPT = "transcript"
VIA_CAPTURED = "captured"
VIAS = (VIA_FRONTMATTER, VIA_FILENAME, VIA_TRANSCRIPT, VIA_CAPTURED)

# The frontmatter keys that say when a source was written or published (a transcript's `started` is not
# one: its turns carry their own times).
SOURCE_DATE_KEYS = ("date", "published", "created")


def partial(value: object) -> str | None:
    """`value` as a normalised partial date ("2025", "2025-03", "2025-03-14"), or None when it is not one
    (or names a month or day that does not exist)."""
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if not isinstance(value, str | int):
        return None
    m = _PARTIAL.match(str(value))
    if not m:
        return None
    year, month, day = m.group(1), m.group(2), m.group(3)
    try:
        dt.date(int(year), int(month or 1), int(day or 1))
    except ValueError:
        return None
    if month is None:
        return year
    if day is None:
        return f"{year}-{int(month):02d}"
    return f"{year}-{int(month):02d}-{int(day):02d}"


@lru_cache(maxsize=4096)  # a page's timeline compares the same few dates over and over
def first_day(value: str) -> dt.date:
    """The first day a partial date covers ("2025-03" -> 2025-03-01). `value` must be `partial`'s output."""
    parts = [int(p) for p in value.split("-")]
    return dt.date(parts[0], parts[1] if len(parts) > 1 else 1, parts[2] if len(parts) > 2 else 1)


def source_date(text: str, path: str) -> tuple[dt.date, str] | None:
    """The day a source says it is from, and how that was found: its frontmatter (`date`, `published`,
    `created`), else a date in its file name; None when neither says (the caller then uses the turn times
    of a transcript, or the day the source was captured)."""
    data, _ = split_page(text)
    for key in SOURCE_DATE_KEYS:
        found = partial((data or {}).get(key))
        if found is not None and len(found) == 10:
            return first_day(found), VIA_FRONTMATTER
    m = _IN_NAME.search(posixpath.basename(path))
    if m:
        try:
            return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3))), VIA_FILENAME
        except ValueError:
            pass
    return None
