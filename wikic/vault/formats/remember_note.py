"""The note `remember` writes into raw/notes/: one turn of the user saying what to remember, and in its
frontmatter what the caller asked for, the memory's kind, subject and importance. The note's compile keeps
those as they were asked, whatever the model proposes (`wikic/ingest/anchor.py`), so written here (by
`wikic/ingest/remember.py`) and read there through one format.

    ---
    title: "2026-11-30 remember: Always answer Ana in Portuguese."
    ...
    importance: "0.8"
    remember: "instruction"
    subject: "Ana"
    ---

    **user** · 2026-11-30 08:15
    Remember this instruction about Ana (importance 0.8): Always answer Ana in Portuguese.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wikic.vault.formats.memory_items import KINDS

KIND_KEY, SUBJECT_KEY, IMPORTANCE_KEY = "remember", "subject", "importance"


@dataclass(frozen=True)
class Asked:
    kind: str
    subject: str
    importance: float | None  # None: a note written before the importance was recorded (the model's stays)

    def fields(self) -> dict[str, Any]:
        """The note's frontmatter keys for this request."""
        return {KIND_KEY: self.kind, SUBJECT_KEY: self.subject, IMPORTANCE_KEY: self.importance}

    def turn(self, content: str) -> str:
        """What the note's one turn says: the request in words (the model reads it), then the content."""
        importance = 0.5 if self.importance is None else self.importance
        return f"Remember this {self.kind} about {self.subject} (importance {importance:g}): {content}"


def asked(frontmatter: dict[str, Any] | None) -> Asked | None:
    """What a `remember` note's frontmatter asked for, or None when it is no such note."""
    data = frontmatter or {}
    kind, subject, importance = data.get(KIND_KEY), data.get(SUBJECT_KEY), data.get(IMPORTANCE_KEY)
    if kind not in KINDS or not isinstance(subject, str) or not subject.strip():
        return None
    return Asked(str(kind), subject.strip(), _share(importance))


def _share(value: Any) -> float | None:
    """A number from 0 to 1 (the frontmatter holds it as text), or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return min(1.0, max(0.0, number)) if number == number else None  # NaN is no importance
