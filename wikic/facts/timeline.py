"""A page's claims over time: which hold when, which were superseded, which contradict each other.

Claims are grouped by topic (a subject and attribute: a claim the model paired with an earlier one joins
that claim's topic). Within a topic, claims are ordered by when they hold from (the stated start, else the
day they were observed), never by the order the sources were ingested in:

- a claim holds until the next claim of its topic that starts later and says something else, or until its
  stated end when that comes first; saying the same thing again later continues it;
- two claims of a topic that hold at the same time and say different things contradict each other: both
  stay current, and the page is contested, until a later claim or a person settles it.

The compiler renders a page from its timeline (`wikic/compile/page.py`): current claims stay in their
sections and the others move, with their interval and anchors, to the page's History. Nothing is deleted:
every claim is either where it was or in the history. A block a person edited is left exactly as it is.
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from wikic.vault.formats.claims import Claim, normal_text, scan
from wikic.vault.formats.dates import first_day

HISTORY_KEY = "history"  # the compiler block holding a page's claims that no longer hold


@dataclass(frozen=True)
class Placed:
    """A claim on its timeline: it holds from `start` until `end` (exclusive; None: still holds)."""

    claim: Claim
    start: str
    end: str | None

    def holds_on(self, day: dt.date) -> bool:
        return first_day(self.start) <= day and (self.end is None or day < first_day(self.end))


@dataclass
class Timeline:
    placed: dict[str, Placed]  # claim id -> placement
    topics: dict[str, list[str]] = field(default_factory=dict)  # topic id -> claim ids, by start

    def at(self, day: dt.date) -> list[Placed]:
        """The claims that hold on `day`, in page order of their topics."""
        return [p for ids in self.topics.values() for i in ids if (p := self.placed[i]).holds_on(day)]

    def conflicts(self, day: dt.date) -> list[tuple[Placed, Placed]]:
        """Pairs of claims of one topic that hold on `day` and say different things."""
        out = []
        for ids in self.topics.values():
            holding = [self.placed[i] for i in ids if self.placed[i].holds_on(day)]
            for i, a in enumerate(holding):
                for b in holding[i + 1 :]:
                    if normal_text(a.claim.text) != normal_text(b.claim.text):
                        out.append((a, b))
        return out


def timeline(claims: Iterable[Claim]) -> Timeline:
    """Place `claims` (one per id) on their topics' timelines."""
    by_topic: dict[str, list[Claim]] = defaultdict(list)
    for claim in claims:
        by_topic[claim.topic_id].append(claim)
    placed: dict[str, Placed] = {}
    topics: dict[str, list[str]] = {}
    for topic, members in by_topic.items():
        members.sort(key=lambda c: (first_day(c.start), c.seen, c.id))
        starts = [c.start for c in members]
        days = [first_day(start) for start in starts]  # in order: the claims that start later come after
        words = [normal_text(c.text) for c in members]
        for at, claim in enumerate(members):
            # the first claim starting later that says something else (it is at or after the first claim
            # starting later: a topic of hundreds of claims is not searched from its start for each)
            later = bisect_right(days, days[at])
            nxt = next((starts[i] for i in range(later, len(members)) if words[i] != words[at]), None)
            end = claim.valid_to
            if nxt is not None and (end is None or first_day(nxt) < first_day(end)):
                end = nxt
            placed[claim.id] = Placed(claim, claim.start, end)
        topics[topic] = [c.id for c in members]
    return Timeline(placed, topics)


def unique(claims: Iterable[Claim]) -> list[Claim]:
    """One claim per id: a copy in a section and in History (a page a person edited can hold both) is one
    claim, with the sources, topic and end either recorded."""
    out: dict[str, Claim] = {}
    for claim in claims:
        seen = out.get(claim.id)
        if seen is None:
            out[claim.id] = claim
            continue
        home, other = (claim, seen) if seen.block == HISTORY_KEY else (seen, claim)
        cites = {c.source: c for c in (*other.citations, *home.citations)}
        out[claim.id] = replace(
            home, citations=tuple(cites.values()), topic=home.topic or other.topic,
            valid_from=home.valid_from or other.valid_from, valid_to=home.valid_to or other.valid_to,
            ended=home.ended or other.ended,
        )
    return list(out.values())


def contested(text: str, today: dt.date) -> bool:
    """Whether the claims of page `text` contradict each other on `today`."""
    claims = scan(text)
    return bool(claims) and bool(timeline(unique(claims)).conflicts(today))
