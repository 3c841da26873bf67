#!/usr/bin/env python3
"""Time `wikic export site` on a synthetic 10,000-page vault: a full export, an unchanged one, one page edited.

    python bench/export_bench.py                       # generate a vault (gen_vault.py), then measure
    python bench/export_bench.py --vault DIR --reps 5  # measure an existing vault (it is copied first)

What is measured, each run a separate process (`python -m wikic export site`, OMP_NUM_THREADS=1 and
friends), median and min of --reps runs, each run's load average (1 min) kept beside it:

* `full`: into a new folder, every output written (the vault's parse cache warm, as after a lint);
* `unchanged`: again into the same folder, nothing changed: every output's inputs checked, none written;
* `one page edited`: one page's text changed since the previous export (a sentence added): that page
  written, the rest checked.

Wall seconds of the process (Python's start and imports included), the export's own seconds (what the
command reports), the CPU seconds of the process and its helper (user + system: on a shared machine, what the
run costs whatever else runs), and the files written. Targets: full under 60 s, one page edited under 3 s. Results are
printed and written to bench/out/ as JSON.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out"
TARGETS = {"full_s": 60.0, "edited_s": 3.0}
SINGLE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                 "NUMEXPR_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}


def _export(vault: Path, site: Path) -> dict[str, float]:
    env = {**os.environ, **SINGLE_THREAD, "PYTHONPATH": str(REPO)}
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "wikic", "export", "site", str(site), "--vault", str(vault), "--json"],
                          env=env, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    report = json.loads(done.stdout)
    return {"wall_s": round(wall, 3), "export_s": report["seconds"], "cpu_s": round(cpu, 3),
            "written": len(report["written"]), "load_1m": round(load, 2)}


def _stats(runs: list[dict[str, float]]) -> dict[str, object]:
    walls = [r["wall_s"] for r in runs]
    return {"median_s": round(statistics.median(walls), 3), "min_s": round(min(walls), 3),
            "median_export_s": round(statistics.median(r["export_s"] for r in runs), 3),
            "median_cpu_s": round(statistics.median(r["cpu_s"] for r in runs), 3),
            "written": runs[-1]["written"], "median_load_1m": round(statistics.median(r["load_1m"] for r in runs), 2),
            "runs": runs}


def measure(vault: Path, work: Path, reps: int) -> dict[str, object]:
    subprocess.run([sys.executable, "-m", "wikic", "lint", "--format", "json", str(vault)], env={
        **os.environ, **SINGLE_THREAD, "PYTHONPATH": str(REPO)}, capture_output=True, check=False)  # warm caches
    edited = sorted((vault / "entities").glob("*.md"))[0]
    full, unchanged, one = [], [], []
    for n in range(reps):
        site = work / f"site-{n}"
        full.append(_export(vault, site))
        unchanged.append(_export(vault, site))
        with edited.open("a", encoding="utf-8") as fh:
            fh.write(f"\nA sentence added by run {n}.\n")
        one.append(_export(vault, site))
        shutil.rmtree(site)
    return {"full": _stats(full), "unchanged": _stats(unchanged), "one_page_edited": _stats(one)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vault", type=Path, help="an existing vault (copied; default: generate 10,000 pages)")
    ap.add_argument("--pages", type=int, default=10_000)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="wikic-export-bench-") as tmp:
        work = Path(tmp)
        vault = work / "vault"
        if args.vault:
            shutil.copytree(args.vault, vault)
        else:
            subprocess.run([sys.executable, str(HERE / "gen_vault.py"), str(vault), "--pages", str(args.pages),
                            "--quiet"], check=True)
        pages = sum(1 for _ in vault.rglob("*.md"))
        result = {"when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "notes": pages,
                  "cpus": os.cpu_count(), "targets": TARGETS, **measure(vault, work, args.reps)}
    for name in ("full", "unchanged", "one_page_edited"):
        row = result[name]
        assert isinstance(row, dict)
        print(f"{name:>16}: median {row['median_s']:7.2f} s wall ({row['median_export_s']:.2f} s in the export, "
              f"{row['median_cpu_s']:.2f} s CPU), min {row['min_s']:.2f} s, {row['written']} files written, "
              f"load {row['median_load_1m']}")
    full, edited = result["full"], result["one_page_edited"]
    assert isinstance(full, dict) and isinstance(edited, dict)
    print(f"targets: full under {TARGETS['full_s']:.0f} s: {'yes' if full['median_s'] < TARGETS['full_s'] else 'NO'}; "
          f"one page edited under {TARGETS['edited_s']:.0f} s: "
          f"{'yes' if edited['median_s'] < TARGETS['edited_s'] else 'NO'}")
    OUT.mkdir(exist_ok=True)
    path = OUT / f"export-{dt.datetime.now():%Y%m%d-%H%M%S}.json"
    path.write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(f"wrote {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
