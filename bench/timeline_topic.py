#!/usr/bin/env python3
"""What placing a page's claims on their timeline costs as one topic gathers claims.

    python bench/timeline_topic.py                     # 100, 300, 1,000 and 3,000 claims, medians of 5
    python bench/timeline_topic.py --sizes 100,10000 --reps 3

A page is rendered from its timeline every time a source adds to it (`wikic/facts/timeline.py`), so a topic
that keeps gaining claims (a figure a source reports every quarter, for years) must not cost each render
more than its size. The claims here are one organisation's incident counts, a new value every few days, a
third of them repeating the value before (which continues it rather than ending it). Printed: seconds per
call (median and min of --reps, CPU) and microseconds per claim; a cost that grows with the square of the
claims shows as microseconds per claim growing with the size.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from wikic.facts.timeline import timeline
from wikic.vault.formats.claims import Citation, Claim


def topic(size: int) -> list[Claim]:
    first = "c00000000"
    out = []
    for n in range(size):
        value = n - 1 if n % 3 == 2 else n  # every third claim says the value before it again
        day = dt.date(2020, 1, 1) + dt.timedelta(days=4 * n)
        out.append(Claim(f"c{n:08x}", f"Saffron Partners logged {value} incidents.",
                         (Citation(f"^[[[raw/articles/report-{n}.md]] L5]", day),),
                         valid_from=day.isoformat(), topic=first if n else None))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100,300,1000,3000")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args(argv)
    print(f"{'claims':>8} {'median s':>10} {'min s':>10} {'us/claim':>9}")
    for size in (int(s) for s in args.sizes.split(",")):
        claims = topic(size)
        times = []
        for _ in range(args.reps):
            started = time.process_time()
            timeline(claims)
            times.append(time.process_time() - started)
        median = statistics.median(times)
        print(f"{size:>8,} {median:>10.4f} {min(times):>10.4f} {median / size * 1e6:>9.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
