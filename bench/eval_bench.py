#!/usr/bin/env python3
"""Benchmark `wikic eval` against `wikic lint` (its peer: eval runs lint first) on the synthetic 10,000-page vault.

    python bench/eval_bench.py                  # generate (or reuse) the vault, then measure
    python bench/eval_bench.py --reps 5 --claims 5

The vault is `bench/gen_vault.py`'s (the one `bench/lint_bench.py` times), copied once with `--claims` claims
planted on every subject page, each anchored to a line of a raw file the page lists in `sources:` and saying
what that line says: the generator writes no anchors, and checking anchors against raw/ is most of what eval
does beyond lint.

Each run is a process of its own (`wikic eval --json`, `wikic lint --format json`, single-threaded BLAS as in
lint_bench), in three states: **cold** (`.wikic/` deleted first), **warm** (unchanged since the last run) and
**one page edited** (one page's mtime moved since the last run). Eval and lint alternate run by run, so a busy
machine weighs on both alike. Reported: the median and min wall seconds of --reps runs, the median CPU seconds,
the peak RSS, and the load average before each run; written to bench/out/ as JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from lint_bench import OUT, machine, run_measured  # noqa: E402

TARGET_S = 5.0  # eval on the 10,000-page vault, cold or warm
_LINE = re.compile(r"^[A-Z][^|#>`\[\]]{20,}[.]$")


def generated(pages: int, seed: int) -> Path:
    """The generator's vault, made when missing (under the name lint_bench gives it, so the two share it)."""
    import subprocess

    vault = OUT / f"vault-wiki-{pages}-l10-s{seed}"
    if not (vault / "SCHEMA.md").is_file():
        OUT.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(HERE / "gen_vault.py"), str(vault), "--pages", str(pages),
                        "--links-per-page", "10", "--seed", str(seed), "--force"], check=True)
    return vault


def planted(vault: Path, claims: int) -> tuple[Path, int]:
    """A copy of `vault` with `claims` anchored claims appended to each subject page (made once); the copy and
    how many claims it holds."""
    out = vault.with_name(f"{vault.name}-claims{claims}")
    stamp = out / ".planted"
    if stamp.is_file():
        return out, int(stamp.read_text())
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(vault, out, ignore=shutil.ignore_patterns(".wikic"))
    lines: dict[str, list[tuple[int, str]]] = {}
    total = 0
    for folder in ("entities", "concepts", "comparisons"):
        for page in sorted((out / folder).rglob("*.md")):
            try:
                text = page.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            sources = re.findall(r"^  - (raw/\S+\.md)$", text.split("\n---\n", 1)[0], re.M)
            said = []
            for raw in sources:
                if raw not in lines:
                    try:
                        raw_lines = (out / raw).read_text(encoding="utf-8").split("\n")
                    except (OSError, UnicodeDecodeError):
                        raw_lines = []
                    lines[raw] = [(n, line) for n, line in enumerate(raw_lines, 1) if _LINE.match(line)]
                said += [(raw, n, line) for n, line in lines[raw][:claims]]
            if not said:
                continue
            block = [f"- {line} ^[[[{raw}|{raw.rsplit('/', 1)[-1]}]] L{n}] ^c{(total + i):08x}"
                     for i, (raw, n, line) in enumerate(said[:claims])]
            total += len(block)
            page.write_text(text.rstrip("\n") + "\n\n## Key facts\n\n" + "\n".join(block) + "\n", encoding="utf-8")
    stamp.write_text(str(total))
    return out, total


def one_run(command: str, vault: Path, state: str, scratch: Path, page: Path) -> dict:
    wikic = [sys.executable, "-m", "wikic"]
    args = ["eval", "--json", "--vault", str(vault)] if command == "eval" else \
        ["lint", "--format", "json", "--vault", str(vault)]
    if state == "cold":
        shutil.rmtree(vault / ".wikic", ignore_errors=True)
    elif state == "edited":
        now = time.time()
        os.utime(page, (now, now))
    load = os.getloadavg()[0]
    r = run_measured([*wikic, *args], scratch / f"{command}.json")
    if r["rc"] not in (0, 1):
        raise SystemExit(f"wikic {command} failed (rc={r['rc']}):\n{r['stderr']}")
    r["load"] = load
    return r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--claims", type=int, default=5, help="anchored claims planted on each subject page")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()

    vault, claims = planted(generated(args.pages, args.seed), args.claims)
    scratch = OUT / f"eval-run-{os.getpid()}"
    scratch.mkdir(parents=True, exist_ok=True)
    page = sorted((vault / "entities").rglob("*.md"))[0]
    info = machine()
    runs: dict[str, dict[str, list[dict]]] = {c: {s: [] for s in ("cold", "warm", "edited")} for c in ("eval", "lint")}
    for state in ("cold", "warm", "edited"):
        for command in ("eval", "lint"):
            one_run(command, vault, "cold" if state == "cold" else "warm", scratch, page)  # the state to start from
        for _ in range(args.reps):
            for command in ("eval", "lint"):
                runs[command][state].append(one_run(command, vault, state, scratch, page))
    info["loadavg_end"] = os.getloadavg()
    report = json.loads((scratch / "eval.json").read_text())
    shutil.rmtree(scratch, ignore_errors=True)

    def stats(rs: list[dict]) -> dict:
        walls = [r["wall_s"] for r in rs]
        return {"median_s": statistics.median(walls), "min_s": min(walls),
                "cpu_median_s": statistics.median(r["cpu_s"] for r in rs), "rss_peak_mb": max(r["rss_mb"] for r in rs),
                "load_median": statistics.median(r["load"] for r in rs), "runs": walls}

    results = {c: {s: stats(rs) for s, rs in by_state.items()} for c, by_state in runs.items()}
    f = report["figures"]
    print(f"vault: {vault.name} ({f['pages']} subject pages, {claims} planted claims, {f['anchors']} anchors, "
          f"{f['sentences']} sentences, {f['links']} links); score {report['score']}")
    print(f"load average at start {tuple(round(x, 1) for x in info.get('loadavg_start', ()))}, at the end "
          f"{tuple(round(x, 1) for x in info['loadavg_end'])}; {info.get('cpus')} cpus")
    print(f"{'measurement':<34}{'median s':>10}{'min s':>9}{'cpu s':>9}{'RSS MB':>9}{'load':>7}")
    for state, label in (("cold", "cold (no .wikic/)"), ("warm", "warm (unchanged)"), ("edited", "one page edited")):
        for command in ("eval", "lint"):
            s = results[command][state]
            print(f"wikic {command} {label:<23}{s['median_s']:>10.2f}{s['min_s']:>9.2f}{s['cpu_median_s']:>9.2f}"
                  f"{s['rss_peak_mb']:>9.0f}{s['load_median']:>7.1f}")
    worst = max(results["eval"][s]["median_s"] for s in results["eval"])
    verdict = "ok" if worst < TARGET_S else "MISSED"
    print(f"eval's slowest median {worst:.2f} s (target under {TARGET_S:.0f} s): {verdict}")
    out = OUT / f"eval-bench-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps({"vault": vault.name, "claims": claims, "reps": args.reps, "machine": info,
                               "results": results, "figures": f, "target_s": TARGET_S}, indent=2))
    print(f"written: {out}")


if __name__ == "__main__":
    main()
