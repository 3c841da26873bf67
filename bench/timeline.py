"""Facts over time at scale: a generated timeline corpus ingested one source per run, in shuffled order,
through a scripted model that pairs claims the way a capable model would (it reads the claim ids the prompt
lists), then as-of questions with exact expected answers.

    python bench/timeline.py [--subjects 50] [--sources 200] [--seed 7] [--json]

Each subject (an organisation) changes the database it runs on 3 to 5 times; each change is one source,
dated a few days after the change, saying "Since <Month YYYY>, <Subject> runs its platform on <Value>."
A few extra sources state a different value for a month that another source already covers: a
contradiction, which holds until the subject's next change (if any). Reported:

- exact: the share of `facts --as-of` answers whose set of values is exactly the expected one (questions:
  before the first change, inside every interval, and today);
- lost: claims anchored by a source that are on no page (current or in history): must be 0;
- contradictions: current contradictions lint reports against those the corpus holds, and as-of answers
  that flag a contradiction against those that should (none missed, none false);
- seconds per ingest run (median), and in all.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the scripted model (fake_llm)

from fake_llm import FakeLLM

from wikic.context import VaultContext
from wikic.facts.lookup import facts_for
from wikic.ingest.pipeline import IngestOptions, ingest
from wikic.lint.run import LintOptions, run_lint
from wikic.vault.formats.claims import plain_text, scan
from wikic.vault.init import init_vault

FIRST = "Aster Borealis Cinder Dune Ember Fjord Garnet Harbor Indigo Juniper".split()
SECOND = "Labs Systems Works Analytics Robotics".split()
VALUES = "PostgreSQL MySQL MongoDB Cassandra Redis SQLite CockroachDB MariaDB DynamoDB Neo4j".split()
MONTHS = "January February March April May June July August September October November December".split()
TODAY = dt.date(2026, 12, 1)
SENTENCE = re.compile(r"Since (\w+) (\d{4}), (.+?) runs its platform on (\w+)\.")
LISTED = re.compile(r"^- (c[0-9a-f]{8}) \| (.+?) \| ", re.M)


@dataclass(frozen=True)
class Change:
    subject: str
    month: str  # YYYY-MM: when the value holds from
    value: str
    published: dt.date  # the source's own date


def corpus(subjects: int, sources: int, seed: int) -> tuple[list[Change], list[Change]]:
    """(changes, contradicting changes): `sources` in all, 3-5 changes per subject, and about one extra
    source in twenty that contradicts an existing change."""
    rng = random.Random(seed)
    names = [f"{a} {b}" for b in SECOND for a in FIRST][:subjects]
    conflicts_wanted = max(1, sources // 20)
    counts = [4] * subjects
    while sum(counts) != sources - conflicts_wanted:  # 3..5 each, summing to what is left
        i = rng.randrange(subjects)
        step = 1 if sum(counts) < sources - conflicts_wanted else -1
        if 3 <= counts[i] + step <= 5:
            counts[i] += step
    changes: list[Change] = []
    for name, count in zip(names, counts, strict=True):
        months = sorted(rng.sample(range(2015 * 12, 2026 * 12 + 6), count))
        value = None
        for m in months:
            value = rng.choice([v for v in VALUES if v != value])
            month = f"{m // 12}-{m % 12 + 1:02d}"
            published = dt.date(m // 12, m % 12 + 1, 1) + dt.timedelta(days=rng.randrange(1, 20))
            changes.append(Change(name, month, value, published))
    conflicts = []
    for change in rng.sample(changes, conflicts_wanted):
        other = rng.choice([v for v in VALUES if v != change.value])
        conflicts.append(Change(change.subject, change.month, other, change.published + dt.timedelta(days=3)))
    return changes, conflicts


def source_text(change: Change) -> str:
    year, month = change.month.split("-")
    return (
        f"---\ndate: {change.published.isoformat()}\n---\n# {change.subject} infrastructure update\n\n"
        f"Since {MONTHS[int(month) - 1]} {year}, {change.subject} runs its platform on {change.value}.\n"
    )


def scripted_model() -> FakeLLM:
    """Reads the source's sentence and the claims the prompt lists; pairs the new claim with the listed
    current claim of the same subject (one attribute per subject here)."""

    def reply(messages: Sequence[Mapping[str, str]]) -> dict[str, Any]:
        user = messages[-1]["content"]
        m = SENTENCE.search(user[user.find('Source: "') :])
        if m is None:
            return {"summary": "", "entities": [], "concepts": [], "comparisons": [], "relations": []}
        month_name, year, subject, value = m.groups()
        month = f"{year}-{MONTHS.index(month_name) + 1:02d}"
        replaces = next((cid for cid, page in LISTED.findall(user) if page == subject), None)
        fact = {"text": f"{subject} runs its platform on {value}", "quote": m.group(0), "valid_from": month,
                "valid_to": None, "replaces": replaces}
        entity = {"name": subject, "kind": "organization", "aliases": [], "summary": "", "facts": [fact]}
        return {"summary": "", "entities": [entity], "concepts": [], "comparisons": [], "relations": []}

    return FakeLLM().respond_with(reply)


def expected_at(changes: list[Change], day: dt.date) -> set[str]:
    """The values a subject's changes (contradicting ones included) say held on `day`."""
    starts = sorted({c.month for c in changes})
    held = [m for m in starts if dt.date.fromisoformat(m + "-01") <= day]
    if not held:
        return set()
    return {c.value for c in changes if c.month == held[-1]}


def questions(changes: list[Change]) -> list[dt.date]:
    starts = sorted({dt.date.fromisoformat(c.month + "-01") for c in changes})
    days = [starts[0] - dt.timedelta(days=40), TODAY]
    for a, b in zip(starts, [*starts[1:], TODAY], strict=True):
        days.append(a + (b - a) / 2)
        days.append(a)  # the first day a value holds
    return days


def run(subjects: int, sources: int, seed: int) -> dict[str, Any]:
    changes, conflicts = corpus(subjects, sources, seed)
    order = [*changes, *conflicts]
    random.Random(seed + 1).shuffle(order)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "wiki"
        init_vault(root)
        schema = root / "SCHEMA.md"
        schema.write_text(
            schema.read_text(encoding="utf-8").replace("entity_min_references: 2", "entity_min_references: 1"),
            encoding="utf-8",
        )
        (root / "wikic.toml").write_text('[llm]\nstrategy = "single"\n', encoding="utf-8")
        inbox = Path(tmp) / "inbox"
        inbox.mkdir()
        llm = scripted_model()
        seconds: list[float] = []
        refused = 0
        for n, change in enumerate(order):
            path = inbox / f"update-{n:03d}.md"
            path.write_text(source_text(change), encoding="utf-8")
            start = time.perf_counter()
            report = ingest(VaultContext(root), IngestOptions(inputs=[str(path)], use_palace=False, lint_after=False,
                                                today=TODAY), llm=llm)
            seconds.append(time.perf_counter() - start)
            failed = [s for s in report.sources if s.status != "compiled"]
            if failed:
                raise SystemExit(f"{path.name}: {failed[0].status} {failed[0].error}")
            refused += sum(len(s.rejected) for s in report.sources)

        by_subject: dict[str, list[Change]] = {}
        for change in order:
            by_subject.setdefault(change.subject, []).append(change)
        asked = exact = lost = 0
        flagged_right = flagged_missed = flagged_false = 0
        wrong: list[str] = []
        current_conflicts = 0
        for subject, mine in by_subject.items():
            answer = facts_for(root, VaultContext(root).schema, subject, TODAY)
            text = (root / answer.page).read_text(encoding="utf-8")
            on_page = {plain_text(c.text) for c in scan(text)}
            lost += sum(1 for c in mine if f"{subject} runs its platform on {c.value}" not in on_page)
            if len(expected_at(mine, TODAY)) > 1:
                current_conflicts += 1
            for day in questions(mine):
                want = expected_at(mine, day)
                got = facts_for(root, VaultContext(root).schema, subject, day)
                values = {plain_text(p.claim.text).rsplit(" ", 1)[-1] for p in got.held}
                asked += 1
                if values == want:
                    exact += 1
                elif len(wrong) < 10:
                    wrong.append(f"{subject} on {day}: expected {sorted(want)}, got {sorted(values)}")
                if len(want) > 1:
                    flagged_right += bool(got.contested)
                    flagged_missed += not got.contested
                elif got.contested:
                    flagged_false += 1
        lint = run_lint(VaultContext(root), LintOptions(select=("contradiction",), today=TODAY))
        reported = {f.path for f in lint.findings if f.severity == "warning"}
    return {
        "subjects": len(by_subject),
        "sources": len(order),
        "contradicting_sources": len(conflicts),
        "questions": asked,
        "exact": exact,
        "exact_pct": round(100 * exact / asked, 2),
        "claims_lost": lost,
        "current_contradictions_expected": current_conflicts,
        "current_contradictions_reported": len(reported),
        "as_of_contradictions_flagged": flagged_right,
        "as_of_contradictions_missed": flagged_missed,
        "as_of_false_contradictions": flagged_false,
        "pairings_refused": refused,
        "ingest_seconds_median": round(statistics.median(seconds), 3),
        "ingest_seconds_total": round(sum(seconds), 1),
        "wrong_examples": wrong,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subjects", type=int, default=50)
    parser.add_argument("--sources", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = run(args.subjects, args.sources, args.seed)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    ok = (
        result["exact"] == result["questions"]
        and result["claims_lost"] == 0
        and result["current_contradictions_reported"] == result["current_contradictions_expected"]
        and result["as_of_contradictions_missed"] == 0
        and result["as_of_false_contradictions"] == 0
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
