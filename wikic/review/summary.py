"""What a proposal does to the pages, as a person reviews it: the claims it adds and drops, each with the
source lines it rests on, and each page's text before and after."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from wikic.review.shadow import Change
from wikic.vault.formats.anchors import first_cited
from wikic.vault.formats.claims import Claim, scan
from wikic.vault.layout import is_note_path
from wikic.vault.paths import read_text_inside


@dataclass(frozen=True)
class ClaimChange:
    """A claim a proposal adds to or drops from `page`: its id, its text, and each source line it cites."""

    page: str
    id: str
    text: str
    cited: tuple[str, ...]  # "raw/x.md:L3"

    def to_json(self) -> dict[str, object]:
        return {"page": self.page, "id": self.id, "text": self.text, "cited": list(self.cited)}


def _claims(text: str | None) -> dict[str, Claim]:
    return {c.id: c for c in scan(text)} if text else {}


def claim_changes(page: str, before: str | None, after: str | None) -> tuple[list[ClaimChange], list[ClaimChange]]:
    """The claims `after` adds to `before` and those it drops, in page order."""
    old, new = _claims(before), _claims(after)

    def change(claim: Claim) -> ClaimChange:
        cited = tuple(c.cited for c in claim.citations if c.cited)
        return ClaimChange(page, claim.id, claim.text, cited)

    return ([change(c) for k, c in new.items() if k not in old], [change(c) for k, c in old.items() if k not in new])


def count_claims(found: list[Change]) -> tuple[int, int]:
    """How many claims the changes add and drop, over the notes they write."""
    added = dropped = 0
    for c in found:
        if not is_note_path(c.path):
            continue
        a, d = claim_changes(c.path, _text(c.before), _text(c.after))
        added, dropped = added + len(a), dropped + len(d)
    return added, dropped


def quote_of(root: Path, cited: str) -> str:
    """The source lines `cited` ("raw/x.md:L3-L4") names, as the raw file holds them (empty when gone)."""
    found = first_cited(f"^[{cited}]")
    if found is None:
        return ""
    try:
        text = read_text_inside(root, root / found.path)
    except (OSError, ValueError):
        return ""
    lines = (text or "").split("\n")
    return "\n".join(lines[found.start - 1 : found.end]).strip()


def _text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", errors="replace")
