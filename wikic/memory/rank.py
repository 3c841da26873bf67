"""How memories are ranked, for the briefing and for recall:

    score = 0.5 × importance + 0.2 × min(1, confirmations / 2) + 0.3 × 0.5 ^ (age in days / 60)

`importance` is the model's 0–1 judgement; a confirmation is a later source saying the same again or an
explicit `confirm_lesson`; the age counts from the last time the memory was said or confirmed. An old
memory nobody repeats fades towards half its importance but never leaves the ranking, and nothing is
ever deleted.
"""

from __future__ import annotations

import datetime as dt

from wikic.vault.formats.memory_items import MemoryItem

IMPORTANCE_WEIGHT = 0.5
CONFIRMATION_WEIGHT = 0.2
RECENCY_WEIGHT = 0.3
HALF_LIFE_DAYS = 60


def score(item: MemoryItem, as_of: dt.date) -> float:
    age = max(0, (as_of - item.latest).days)
    recency = 0.5 ** (age / HALF_LIFE_DAYS)
    confirmed = min(1.0, item.confirmations / 2)
    return IMPORTANCE_WEIGHT * item.importance + CONFIRMATION_WEIGHT * confirmed + RECENCY_WEIGHT * recency
