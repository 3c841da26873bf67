"""Recall: the memories that match a query, filtered by kind and subject, ranked by `rank.score`.

A memory matches when its words (or its page's title) hold some of the query's terms (the palace's
lexical terms: stemmed words, CJK bigrams); its final score is its rank score weighed by the share of the
query it matches: `score × (0.5 + 0.5 × matched share)`. Without a query every memory of the filter is
returned, by rank score alone. Ties fall back to page path and order.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikic.context import VaultContext
from wikic.errors import UsageError
from wikic.memory.item_index import PageMemory, load_memories
from wikic.memory.rank import score
from wikic.text.question import bounded_question
from wikic.text.terms import tokenize
from wikic.vault.formats.memory_items import KINDS
from wikic.vault.layout import require_vault

MAX_RESULTS = 50


@dataclass(frozen=True)
class Recalled:
    memory: PageMemory
    score: float
    matched: float  # share of the query's terms it holds (1.0 without a query)

    def to_dict(self) -> dict[str, Any]:
        m = self.memory
        return {"kind": m.item.kind, "date": m.item.date.isoformat(), "text": m.item.text, "page": m.path,
                "waiting": m.waiting, "link": f"[[{m.link}]]", "importance": m.item.importance,
                "confirmations": m.item.confirmations, "verified": m.item.verified, "score": round(self.score, 4)}


def recall(context: VaultContext, query: str = "", *, kind: str | None = None, subject: str | None = None, k: int = 10,
           as_of: dt.date | None = None) -> list[Recalled]:
    """The best `k` memories matching `query`, of `kind` (persona, episodic, instruction, lesson) and about
    `subject` (a page's title, name or path; "user" for the user's own page)."""
    require_vault(Path(context.root).resolve())
    bounded_question(query, "query")
    if kind is not None and kind not in KINDS:
        raise UsageError(f"unknown memory kind {kind!r}", hint=f"use one of: {', '.join(KINDS)}")
    as_of = as_of or dt.date.today()
    memories = load_memories(context, waiting=True)
    items = [m for m in memories.items if kind is None or m.item.kind == kind]
    if subject:
        wanted = " ".join(subject.strip().removeprefix("[[").removesuffix("]]").casefold().split())
        user = memories.identity.is_user(wanted)
        items = [m for m in items if (user and memories.about_user(m))
                 or wanted in {m.title.casefold(), m.link.casefold(), m.path.casefold(), m.path[:-3].casefold(),
                               m.path.rsplit("/", 1)[-1][:-3].casefold()}]
    terms = set(tokenize(query))
    found = []
    for m in items:
        share = 1.0
        if terms:
            share = len(terms & set(tokenize(f"{m.item.plain} {m.title}"))) / len(terms)
            if share == 0:
                continue
        found.append(Recalled(m, score(m.item, as_of) * (0.5 + 0.5 * share), share))
    found.sort(key=lambda r: (-r.score, r.memory.path, r.memory.index))
    return found[: max(1, min(k, MAX_RESULTS))]
