"""What the rules frontmatter, stale-page share."""

from __future__ import annotations

import datetime as dt
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass


DATE_TEXT = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def as_date(value: Any) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        text = value.strip()[:10]
        if DATE_TEXT.match(text):
            try:
                return dt.date.fromisoformat(text)
            except ValueError:
                return None
    return None
