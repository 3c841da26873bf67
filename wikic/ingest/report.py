"""What an ingest run says about each of its sources: the report's entry and the notes of its log.md row."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from wikic.pages.log_file import listed, notes, usage

if TYPE_CHECKING:
    from wikic.ingest.compile import SourceResult


@dataclass
class SourceReport:
    raw_path: str
    title: str
    status: str  # compiled | unchanged | failed | over-budget | interrupted | estimated | asset
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    memories: int = 0  # memories written on pages as new items (transcripts)
    memories_merged: int = 0  # memories that matched one already on the page: its anchor was added
    dropped_facts: int = 0
    dropped: dict[str, int] = field(default_factory=dict)  # claims not written, by reason (see plan_model)
    repaired_quotes: int = 0  # near-copied quotes snapped to the source span they copy
    sentences_found: int = 0  # claims that are the source's own sentences, found for names the model could not quote
    strategy: str = ""  # how the model was asked (see wikic.ingest.extract.run)
    nothing_extracted: bool = False  # the source names things and the model proposed none of them
    invented: list[str] = field(default_factory=list)  # proposed names the source never writes
    rejected: list[str] = field(default_factory=list)  # pairings and intervals refused, each with its reason
    superseded: int = 0  # claims moved to a page's history: a later value holds now
    contested: list[str] = field(default_factory=list)  # pages whose current claims contradict each other
    dropped_items: list[str] = field(default_factory=list)
    kept_edits: list[str] = field(default_factory=list)
    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    context_pages: int = 0
    cost: float | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def fill(r: SourceReport, result: SourceResult) -> None:
    """Copy what compiling the source did into its report."""
    r.created = result.created
    r.updated = result.updated
    r.pending = result.pending
    r.memories, r.memories_merged = result.memories, result.memories_merged
    r.dropped_facts = result.dropped_facts
    r.dropped_items = result.dropped_items
    r.kept_edits = result.kept_edits
    r.rejected, r.superseded, r.contested = result.rejected, result.superseded, result.contested


def log_notes(r: SourceReport, link: Callable[[str], str]) -> str:
    """The notes of the source's log.md row: the pages it created and updated, as links (`link` writes one
    for a page path), what else happened, then its tokens and cost."""
    from wikic.ingest.plan_model import UNSUPPORTED_SUMMARY, dropped_claims

    created = listed("created", [link(p) for p in dict.fromkeys(r.created)])
    updated = listed("updated", [link(p) for p in dict.fromkeys(r.updated) if p not in r.created])
    parts = [created, updated] if created or updated else ["no page written"]
    if r.memories or r.memories_merged:
        parts.append(f"{r.memories} memories" + (f" ({r.memories_merged} merged)" if r.memories_merged else ""))
    if r.pending:
        parts.append(f"{len(r.pending)} pending")
    claims = dropped_claims(r.dropped)
    if claims:
        total = sum(claims.values())
        parts.append(f"{total} claim{'' if total == 1 else 's'} dropped ({dropped_reasons(claims)})")
    if r.dropped.get(UNSUPPORTED_SUMMARY):
        n = r.dropped[UNSUPPORTED_SUMMARY]
        parts.append(f"{n} {'summary' if n == 1 else 'summaries'} replaced by a claim (unsupported)")
    if r.repaired_quotes:
        parts.append(f"{r.repaired_quotes} quotes repaired")
    if r.sentences_found:
        parts.append(f"{r.sentences_found} sentences found")
    if r.superseded:
        parts.append(f"{r.superseded} superseded")
    if r.contested:
        parts.append(f"{len(r.contested)} contested")
    if r.rejected:
        parts.append(f"{len(r.rejected)} pairings refused")
    cached = bool(r.cached_calls and not r.calls - r.cached_calls)
    parts.append(usage(r.prompt_tokens + r.completion_tokens, r.cost, cached=cached))
    return notes(*parts)


def dropped_reasons(dropped: dict[str, int]) -> str:
    return ", ".join(f"{n} {reason}" for reason, n in sorted(dropped.items()))
