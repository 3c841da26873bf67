"""A topic's claims on their timeline: each holds until the next claim of its topic that starts later and says
something else, or until its own stated end when that comes first."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from wikic.facts.timeline import timeline
from wikic.vault.formats.claims import Citation, Claim, normal_text
from wikic.vault.formats.dates import first_day


def claim(n: int, text: str, seen: dt.date, *, start: str | None = None, end: str | None = None,
          topic: str | None = None) -> Claim:
    return Claim(f"c{n:08x}", text, (Citation(f"^[[[raw/a.md]] L{n + 1}]", seen),), valid_from=start,
                 valid_to=end, topic=topic)


def until_as_defined(claims: list[Claim]) -> dict[str, str | None]:
    """The rule as written, claim against claim: when each claim stops holding."""
    out: dict[str, str | None] = {}
    for c in claims:
        later = sorted(
            (o for o in claims if o.topic_id == c.topic_id and first_day(o.start) > first_day(c.start)
             and normal_text(o.text) != normal_text(c.text)),
            key=lambda o: (first_day(o.start), o.seen, o.id),
        )
        end = c.valid_to
        if later and (end is None or first_day(later[0].start) < first_day(end)):
            end = later[0].start
        out[c.id] = end
    return out


def test_saying_the_same_again_continues_a_claim_and_a_change_ends_it() -> None:
    day = dt.date(2026, 1, 5)
    a = claim(0, "Acme runs on Postgres.", day, start="2020")
    b = claim(1, "Acme runs on [[postgres|Postgres]].", day, start="2021-03", topic=a.id)
    c = claim(2, "Acme runs on MySQL.", day, start="2022-06", topic=a.id)
    d = claim(3, "Acme runs on SQLite.", day, start="2022-06-01", end="2022-05", topic=a.id)
    placed = timeline([c, a, d, b]).placed
    assert [(placed[x.id].start, placed[x.id].end) for x in (a, b, c, d)] == [
        ("2020", "2022-06"), ("2021-03", "2022-06"), ("2022-06", None), ("2022-06-01", "2022-05")
    ]
    assert timeline([c, a, d, b]).topics == {a.id: [a.id, b.id, c.id, d.id]}


@pytest.mark.parametrize("seed", range(40))
def test_every_claim_ends_where_the_rule_says_on_topics_with_ties_repeats_and_stated_ends(seed: int) -> None:
    rng = random.Random(seed)
    starts = ["2019", "2020", "2020-02", "2020-02-01", "2021-07-15", "2022", None]
    texts = ["Acme runs on Postgres.", "Acme runs on postgres", "Acme runs on MySQL.", "Acme runs on SQLite."]
    claims: list[Claim] = []
    for n in range(rng.randint(1, 60)):
        topic = rng.choice([None, *(c.id for c in claims[:5])])
        seen = dt.date(2020, 1, 1) + dt.timedelta(days=rng.randint(0, 900))
        end = rng.choice([None, None, None, "2020-06", "2021"])
        claims.append(claim(n, rng.choice(texts), seen, start=rng.choice(starts), end=end, topic=topic))
    rng.shuffle(claims)
    got = timeline(claims)
    assert {i: p.end for i, p in got.placed.items()} == until_as_defined(claims)
    for members in got.topics.values():
        keys = [(first_day(got.placed[i].start), got.placed[i].claim.seen, i) for i in members]
        assert keys == sorted(keys)
