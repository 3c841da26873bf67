#!/usr/bin/env python3
"""Time the hubs (overview.md, the source pages) on a synthetic 10,000-page vault, and measure the overview.

    python bench/hubs_bench.py                       # generate a vault (gen_vault.py), then measure
    python bench/hubs_bench.py --vault DIR --reps 5  # measure an existing vault (nothing is written to it)

What is measured, in this process (OMP_NUM_THREADS=1 and friends), median and min of --reps runs:

* `view`: the vault as the hubs read it (`hubs.view.build_view`: every note through the warm parse cache,
  the ledgers, log.md); what an ingest has read already for its own compile;
* `links`: the links between subject pages, resolved (`HubView.outbound`, `inbound`);
* `overview`: overview.md from those (`hubs.overview.render_overview`: the groups, the leads of the pages
  shown, the latest changes, the open questions, the counts): the rendering the overview adds;
* `one source`: the hub step for one source (its source page, the overview, `HubPlanner.plan`), the vault
  read included; `one source in ingest`: the same from the vault the compile has read (what ingest does);
* `all sources`: every source page of a vault an earlier version made (`wikic init`'s hub step), once.

And the overview itself: its size (characters, lines), its groups and the links it holds. Results are
printed and written to bench/out/ as JSON.
"""
from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(name, "1")

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out"
sys.path.insert(0, str(REPO))

from wikic.hubs.overview import render_overview  # noqa: E402 - after the thread settings
from wikic.hubs.plan import HubPlanner  # noqa: E402
from wikic.hubs.view import build_view  # noqa: E402
from wikic.vault.load import load_vault  # noqa: E402
from wikic.vault.schema_md import load as load_schema  # noqa: E402

TODAY = dt.date(2026, 12, 1)
TARGETS = {"overview_s": 1.0, "overview_chars": 32_000}


def _timed(fn, reps: int) -> tuple[list[float], object]:
    times, value = [], None
    for _ in range(reps):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return times, value


def _stats(times: list[float]) -> dict[str, float]:
    return {"median_s": round(statistics.median(times), 4), "min_s": round(min(times), 4)}


def measure(root: Path, reps: int) -> dict[str, object]:
    schema = load_schema(root)
    importlib.import_module("networkx")  # imported once per process, by whatever needs it first
    load_vault(root, use_cache=True, schema=schema)  # the parse cache, as a vault that was linted or ingested has it
    view_times, view = _timed(lambda: build_view(root, schema), reps)

    def links() -> int:
        fresh = build_view(root, schema)
        start = time.perf_counter()
        _ = fresh.inbound
        return time.perf_counter() - start

    link_times = [links() for _ in range(reps)]
    overview_times = []
    text = ""
    for _ in range(reps):
        fresh = build_view(root, schema)
        _ = fresh.inbound
        start = time.perf_counter()
        text = render_overview(fresh, None)
        overview_times.append(time.perf_counter() - start)

    raw = sorted(view.fed)[0] if view.fed else None

    def one_source() -> int:
        planner = HubPlanner(root, schema, TODAY)
        planner.source_pages([raw] if raw else [], missing=False)
        return len(planner.plan().pages)

    one_times, _ = _timed(one_source, reps)

    def one_source_read() -> float:
        vault = load_vault(root, use_cache=True, schema=schema)  # what the compile read: an ingest hands it over
        start = time.perf_counter()
        planner = HubPlanner(root, schema, TODAY, vault=vault)
        planner.source_pages([raw] if raw else [], missing=False)
        planner.plan()
        return time.perf_counter() - start

    in_ingest = [one_source_read() for _ in range(reps)]

    planner = HubPlanner(root, schema, TODAY)
    wanted = planner.source_pages()
    start = time.perf_counter()
    written = planner.plan(create_only=True)
    all_s = time.perf_counter() - start

    groups = re.findall(r"^### (.+) \(([\d,]+) pages?\)$", text, re.M)
    return {
        "vault": str(root),
        "pages": len(view.vault.pages),
        "subject_pages": len(view.subjects),
        "links": sum(len(n.links) for n in view.vault.notes.values()),
        "view": _stats(view_times),
        "links_between_subjects": _stats(link_times),
        "overview": _stats(overview_times),
        "one_source": _stats(one_times),
        "one_source_in_ingest": _stats(in_ingest),
        "all_sources": {"pages": len(wanted), "written": len(written.pages), "s": round(all_s, 3)},
        "overview_text": {
            "chars": len(text),
            "bytes": len(text.encode("utf-8")),
            "lines": text.count("\n"),
            "links": text.count("[["),
            "groups": [(label, int(n.replace(",", ""))) for label, n in groups],
        },
        "targets": TARGETS,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, help="an existing vault (default: generate 10,000 pages)")
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--show", action="store_true", help="print the overview too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = args.vault
        if root is None:
            root = Path(scratch) / "vault"
            subprocess.run([sys.executable, str(HERE / "gen_vault.py"), str(root), "--pages", str(args.pages),
                            "--seed", "1"], check=True, stdout=subprocess.DEVNULL)
        result = measure(root, args.reps)
        if args.show:
            fresh = build_view(root, load_schema(root))
            print(render_overview(fresh, None))
    OUT.mkdir(exist_ok=True)
    out = OUT / f"hubs-{dt.datetime.now():%Y%m%d-%H%M%S}.json"
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"{result['pages']:,} pages ({result['subject_pages']:,} subject pages), {result['links']:,} links")
    for key in ("view", "links_between_subjects", "overview", "one_source", "one_source_in_ingest"):
        value = result[key]
        print(f"  {key:<24} median {value['median_s']:.3f} s, min {value['min_s']:.3f} s")
    every = result["all_sources"]
    print(f"  {'all sources':<24} {every['pages']:,} source pages planned in {every['s']:.2f} s")
    size = result["overview_text"]
    print(f"  overview.md: {size['chars']:,} characters, {size['lines']} lines, {size['links']} links, "
          f"{len(size['groups'])} groups shown")
    ok = result["overview"]["median_s"] <= TARGETS["overview_s"] and size["chars"] <= TARGETS["overview_chars"]
    print(f"  targets: render <= {TARGETS['overview_s']} s, size <= {TARGETS['overview_chars']:,} characters: "
          + ("met" if ok else "MISSED"))
    print(f"written to {out.relative_to(REPO)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
