"""A page's claims over time: which hold when, which were superseded, which contradict each other.

Claims are grouped by topic (a subject and attribute: a claim the model paired with an earlier one joins
that claim's topic). Within a topic, claims are ordered by when they hold from (the stated start, else the
day they were observed), never by the order the sources were ingested in:

- a claim holds until the next claim of its topic that starts later and says something else, or until its
  stated end when that comes first; saying the same thing again later continues it;
- two claims of a topic that hold at the same time and say different things contradict each other: both
  stay current, and the page is contested, until a later claim or a person settles it.

`settle` rewrites a page so that current claims stay in their blocks and the others move, with their
interval and anchor, to the page's `history` block under `## History`. Nothing is deleted: every claim is
either where it was or in the history. A block a person edited is left exactly as it is.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from wikic.facts.claims import Claim, normal_text, parse_line, scan
from wikic.facts.dates import first_day
from wikic.pages.blocks import digest, find_block, merge_blocks, remove_block
from wikic.vault.markers import BEGIN

HISTORY_KEY = "history"
HISTORY_SECTION = "History"
FACTS_SECTION = "Facts"
# The compiler blocks whose claims take part in the timeline: an entity's facts, a concept's sections.
_CLAIM_BLOCKS = ("facts:", "section:")


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
        for claim in members:
            begins = first_day(claim.start)
            nxt = next(
                (
                    other.start
                    for other in members
                    if first_day(other.start) > begins and normal_text(other.text) != normal_text(claim.text)
                ),
                None,
            )
            end = claim.valid_to
            if nxt is not None and (end is None or first_day(nxt) < first_day(end)):
                end = nxt
            placed[claim.id] = Placed(claim, claim.start, end)
        topics[topic] = [c.id for c in members]
    return Timeline(placed, topics)


def unique(claims: Iterable[Claim]) -> list[Claim]:
    """One claim per id: the copy in a source's block wins over the history's, and what either recorded
    of its topic or its end is kept."""
    out: dict[str, Claim] = {}
    for claim in claims:
        seen = out.get(claim.id)
        if seen is None:
            out[claim.id] = claim
            continue
        home, other = (claim, seen) if seen.block == HISTORY_KEY else (seen, claim)
        out[claim.id] = replace(
            home,
            valid_from=home.valid_from or other.valid_from, valid_to=home.valid_to or other.valid_to,
            topic=home.topic or other.topic, ended=home.ended or other.ended, by=home.by or other.by,
        )
    return list(out.values())


@dataclass
class Settled:
    text: str
    contested: bool  # some topic has claims that contradict each other today
    moved: int  # claims moved into the history
    kept: list[str]  # keys of blocks left as a person edited them


def settle(text: str, today: dt.date) -> Settled:
    """`text` (a page body) with its claims placed: current ones in their blocks, the others in the
    history, every interval shown as the timeline has it."""
    claims = scan(text)
    if not claims:
        return Settled(text, False, 0, [])
    edited = {key for key in _block_keys(text) if _edited(text, key)}
    line = unique(claims)
    plan = timeline(line)
    current = {p.claim.id for p in plan.placed.values() if p.end is None or first_day(p.end) > today}
    lines: dict[str, list[str]] = defaultdict(list)  # block key -> claim lines it keeps
    history: list[Placed] = []
    for claim in line:
        placed = plan.placed[claim.id]
        if claim.block in edited:
            continue  # a person's version stands where it is
        if claim.id not in current:
            history.append(placed)
        elif claim.block and claim.block != HISTORY_KEY:
            lines[claim.block].append(claim.render(placed.end))
        else:  # current again, but only in the history: back to its source's facts
            lines[f"facts:{claim.source or 'unknown'}"].append(claim.render(placed.end))
    kept = sorted(edited)
    if HISTORY_KEY in edited:
        return Settled(text, _contested(plan, today), 0, kept)  # nowhere safe to move claims to
    moved = 0
    updates: list[tuple[str, str, str | None]] = []
    for key in _block_keys(text):
        if not key.startswith(_CLAIM_BLOCKS) or key in edited:
            continue
        found = find_block(text, key)
        assert found is not None
        others = [ln for ln in found[3].split("\n") if ln.strip() and parse_line(ln) is None]
        kept_lines = lines.pop(key, [])
        moved += sum(1 for c in line if c.block == key and c.id not in current)
        new_body = "\n".join([*kept_lines, *others])
        if new_body.strip():
            updates.append((key, new_body, None))
        else:
            text, _ = remove_block(text, key)
    for key, kept_lines in lines.items():  # blocks that are not on the page any more
        updates.append((key, "\n".join(kept_lines), FACTS_SECTION))
    history.sort(key=lambda p: (p.claim.topic_id, first_day(p.start), p.claim.id))
    past = "\n".join(p.claim.render(p.end) for p in history)
    if past:
        updates.append((HISTORY_KEY, past, HISTORY_SECTION))
    elif find_block(text, HISTORY_KEY) is not None:
        text, _ = remove_block(text, HISTORY_KEY)
    text = merge_blocks(text, updates).text
    return Settled(text, _contested(plan, today), moved, kept)


def contested(text: str, today: dt.date) -> bool:
    """Whether the claims of page `text` contradict each other on `today`."""
    claims = scan(text)
    return bool(claims) and _contested(timeline(unique(claims)), today)


def _contested(plan: Timeline, today: dt.date) -> bool:
    return bool(plan.conflicts(today))


def _block_keys(text: str) -> list[str]:
    return [m.group(1) for m in BEGIN.finditer(text)]


def _edited(text: str, key: str) -> bool:
    found = find_block(text, key)
    return found is not None and digest(found[3]) != found[2]
