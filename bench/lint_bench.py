#!/usr/bin/env python3
"""Benchmark `wikic lint` against obsidiantools on a synthetic 10,000-page vault.

    python bench/lint_bench.py                        # generate, then measure everything
    python bench/lint_bench.py --vault DIR --reps 5   # measure an existing vault
    python bench/lint_bench.py --plain                # a plain Obsidian vault (no SCHEMA.md)
    python bench/lint_bench.py --skip-obsidiantools   # wikic only
    python bench/lint_bench.py --peer REF             # also commit REF's wikic, run by run with this tree's
    python bench/lint_bench.py --no-fast              # also this tree without the `fast` extra (msgspec)

What is measured (every run is a separate process, with OMP_NUM_THREADS=1 and friends):

* `wikic lint --format json --vault DIR`, the console script of the venv running this file (or
  --wikic PATH): **cold** = `DIR/.wikic/` deleted before each run; **warm** = an unchanged vault after
  a previous run left its caches; **one page edited** = warm, but one page's mtime moved since the last
  run (the pre-commit case: that page is parsed again, and judged again with the pages that read it);
  **one page removed** = warm, but that page (which other pages link to) was removed since the last run;
  **one page added** = warm, but a new page (that page's copy under another name and title) was added since
  (each against the caches of the same whole lint). N runs each (--reps, default 5), each mode's runs
  interleaved across the wikics timed (--peer, --no-fast). Each run's load average (1 min) is kept beside it,
  and each mode's median shown with the median load and its ratio to the warm run.
* obsidiantools (its own venv, `bench/.venv-obsidiantools`, created with pip when missing):
  `Vault(path).connect()` and then `.gather()` in one process, timed separately, median of --ot-reps (3).
  obsidiantools cannot read a page that is not UTF-8 (it raises), so it runs on a copy of the vault
  in which those few pages are re-encoded; the copy is otherwise identical.

For each: median and min wall seconds, median CPU seconds (user+sys of the process tree), and peak
RSS (ru_maxrss from wait4 for wikic; VmHWM read inside the process for obsidiantools, after connect
and after gather). Results are printed as a table and written to bench/out/ as JSON.
"""
from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import io
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out"
OT_VENV = HERE / ".venv-obsidiantools"
SCRATCH = OUT / f"run-{os.getpid()}"      # per-process scratch: concurrent runs share nothing
TARGETS = {"cold_s": 1.5, "warm_s": 0.3, "edited_s": 0.4, "speedup": 20.0}
SINGLE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                 "NUMEXPR_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}

OT_SCRIPT = r"""
import json, sys, time
from pathlib import Path

def hwm_mb():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return None

t0, c0 = time.perf_counter(), time.process_time()
from obsidiantools.api import Vault
t1, c1 = time.perf_counter(), time.process_time()
v = Vault(Path(sys.argv[1])).connect()
t2, c2 = time.perf_counter(), time.process_time()
rss_connect = hwm_mb()
v.gather()
t3, c3 = time.perf_counter(), time.process_time()
print(json.dumps({"import_s": t1 - t0, "connect_s": t2 - t1, "gather_s": t3 - t2,
                  "connect_cpu_s": c2 - c1, "gather_cpu_s": c3 - c2,
                  "rss_connect_mb": rss_connect, "rss_gather_mb": hwm_mb(),
                  "notes": len(v.md_file_index),
                  "edges": v.graph.number_of_edges() if v.graph is not None else None}))
"""


def env1() -> dict[str, str]:
    env = dict(os.environ)
    env.update(SINGLE_THREAD)
    return env


def run_measured(
    cmd: list[str], stdout_path: Path | None = None, cwd: Path | None = None, env: dict[str, str] | None = None
) -> dict:
    """Run one process; wall time, CPU time and peak RSS from wait4 (that process and its reaped children)."""
    with contextlib.ExitStack() as files:
        out = files.enter_context(open(stdout_path, "wb")) if stdout_path else subprocess.DEVNULL
        err = files.enter_context(tempfile.TemporaryFile())
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env or env1(), cwd=cwd)
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    return {"wall_s": wall, "cpu_s": ru.ru_utime + ru.ru_stime, "rss_mb": ru.ru_maxrss / 1024,
            "rc": proc.returncode, "stderr": stderr[-2000:]}


def summarise(runs: list[dict], key: str = "wall_s") -> dict:
    vals = [r[key] for r in runs]
    loads = [r["load"] for r in runs if r.get("load") is not None]
    return {"median_s": statistics.median(vals), "min_s": min(vals), "max_s": max(vals),
            "cpu_median_s": statistics.median(r["cpu_s"] for r in runs) if "cpu_s" in runs[0] else None,
            "rss_peak_mb": max(r.get("rss_mb") or 0 for r in runs), "n": len(runs), "runs": vals,
            "load_median": statistics.median(loads) if loads else None}


def find_wikic(explicit: str | None) -> Path | None:
    cands = [explicit] if explicit else [Path(sys.executable).parent / "wikic", REPO / ".venv" / "bin" / "wikic",
                                         shutil.which("wikic")]
    for c in cands:
        if c and Path(c).exists():
            return Path(c)
    return None


def generate(args: argparse.Namespace) -> tuple[Path, dict | None]:
    mode = "plain" if args.plain else "wiki"
    name = f"vault-{mode}-{args.pages}-l{args.links_per_page}-s{args.seed}"
    vault = OUT / name
    stats_path = OUT / f"{name}.stats.json"
    if vault.exists() and stats_path.exists() and not args.regen:
        print(f"reusing {vault} (use --regen to rebuild)")
        return vault, json.loads(stats_path.read_text())
    cmd = [sys.executable, str(HERE / "gen_vault.py"), str(vault), "--pages", str(args.pages),
           "--links-per-page", str(args.links_per_page), "--seed", str(args.seed), "--force",
           "--stats-json", str(stats_path), "--manifest", str(OUT / f"{name}.manifest.json")]
    if args.plain:
        cmd.append("--plain")
    print("generating:", " ".join(cmd[1:]))
    subprocess.run(cmd, check=True)
    return vault, json.loads(stats_path.read_text())


class Linter:
    """One wikic to time: this tree's console script, or a peer commit's tree run from source."""

    def __init__(self, name: str, prefix: list[str], env: dict[str, str] | None = None, cwd: Path | None = None):
        self.name, self.prefix, self.env, self.cwd = name, prefix, env, cwd
        self.cold: list[dict] = []
        self.warm: list[dict] = []
        self.edited: list[dict] = []
        self.added: list[dict] = []
        self.removed: list[dict] = []

    def run(self, vault: Path, out_json: Path) -> dict:
        cmd = [*self.prefix, "lint", "--format", "json", "--vault", str(vault)]
        load = os.getloadavg()[0]
        r = run_measured(cmd, out_json, cwd=self.cwd, env=self.env)
        r["load"] = load
        if r["rc"] not in (0, 1):
            raise SystemExit(f"{self.name}: wikic lint failed (rc={r['rc']}):\n{r['stderr']}")
        return r


NO_FAST = "without fast extra"


def no_fast_linter() -> Linter:
    """This tree as the base install runs it: msgspec (the `fast` extra) cannot be imported."""
    code = "import sys; sys.modules['msgspec'] = None; from wikic.cli import main; main()"
    return Linter(NO_FAST, [sys.executable, "-c", code], cwd=SCRATCH)


def peer_linter(ref: str) -> Linter:
    """Commit `ref`'s tree, unpacked under the scratch folder and run with this venv's Python."""
    tree = SCRATCH / "peer" / "tree"
    tree.mkdir(parents=True, exist_ok=True)
    data = subprocess.run(["git", "-C", str(REPO), "archive", ref], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(tree, filter="data")
    env = env1()
    env["PYTHONPATH"] = str(tree)
    # run from outside the repository: `-c` imports from the working folder first
    return Linter(ref, [sys.executable, "-c", "from wikic.cli import main; main()"], env, cwd=tree.parent)


def edited_page(vault: Path) -> Path:
    """The page whose edit is timed: the first wiki page (or note) by path."""
    notes = sorted(p for p in vault.rglob("*.md") if not p.relative_to(vault).parts[0].startswith((".", "raw")))
    pages = [p for p in notes if p.relative_to(vault).parts[0] in ("entities", "concepts")]
    return (pages or notes)[0]


def run_in_state(lt: Linter, vault: Path, out_json: Path, stash: Path) -> dict:
    """One run of `lt` with the `.wikic/` its own previous run left (kept in `stash` meanwhile; a plain vault
    has none)."""
    state = vault / ".wikic"
    shutil.rmtree(state, ignore_errors=True)
    if stash.exists():
        stash.rename(state)
    try:
        return lt.run(vault, out_json)
    finally:
        if state.exists():
            state.rename(stash)


def bench_wikic(linters: list[Linter], vault: Path, reps: int) -> dict:
    """Cold, warm and one-page-edited runs of every linter, interleaved run by run so that a busy machine weighs
    on all alike. Between its runs each linter's `.wikic/` waits in a dot-folder of the vault (lint skips those)."""
    state = vault / ".wikic"
    out_json = SCRATCH / "wikic-lint.json"
    reports: dict[str, dict] = {}
    for i in range(reps):
        for lt in linters:
            shutil.rmtree(state, ignore_errors=True)
            r = lt.run(vault, out_json)
            lt.cold.append(r)
            reports[lt.name] = json.loads(out_json.read_text())
            print(f"  {lt.name} cold {i + 1}/{reps}: {r['wall_s']:.3f} s wall, {r['cpu_s']:.3f} s cpu, "
                  f"{r['rss_mb']:.0f} MB, rc={r['rc']}", flush=True)
    stashes = {lt.name: vault / f".lint-bench-state-{n}" for n, lt in enumerate(linters)}
    warm_same: dict[str, bool] = {}
    moved: dict[str, dict[str, list]] = {"removed": {}, "added": {}}  # mode -> linter -> its last run's findings
    # one page edited since the last run (its mtime moved): the pre-commit case, every other page cached
    page = edited_page(vault)
    stat = page.stat()
    try:
        for lt in linters:
            shutil.rmtree(state, ignore_errors=True)
            shutil.rmtree(stashes[lt.name], ignore_errors=True)
            lt.run(vault, out_json)  # leaves this linter's caches (in a wikic vault): every run below is warm
            if state.exists():
                state.rename(stashes[lt.name])
        for i in range(reps):
            for lt in linters:
                r = run_in_state(lt, vault, out_json, stashes[lt.name])
                lt.warm.append(r)
                if i == reps - 1:
                    warm_same[lt.name] = sorted(map(json.dumps, reports[lt.name].get("findings", []))) == sorted(
                        map(json.dumps, json.loads(out_json.read_text()).get("findings", []))
                    )
                print(f"  {lt.name} warm {i + 1}/{reps}: {r['wall_s']:.3f} s wall, {r['cpu_s']:.3f} s cpu, "
                      f"{r['rss_mb']:.0f} MB, rc={r['rc']}", flush=True)
        for i in range(reps):
            os.utime(page, ns=(stat.st_atime_ns, stat.st_mtime_ns + (i + 1) * 1_000_000_000))
            for lt in linters:
                r = run_in_state(lt, vault, out_json, stashes[lt.name])
                lt.edited.append(r)
                print(f"  {lt.name} one page edited {i + 1}/{reps}: {r['wall_s']:.3f} s wall, {r['cpu_s']:.3f} s "
                      f"cpu, {r['rss_mb']:.0f} MB, rc={r['rc']}", flush=True)
        # the same page removed (other pages link to it: their links break), then back as it was; and a new page
        # beside it (its copy under another name and title), then gone: each run lints against the caches the
        # whole lint above left, as a commit removing or adding one page would
        away = SCRATCH / "removed-page.md"
        added = page.with_name(f"{page.stem}-added.md")
        text = page.read_text(encoding="utf-8")
        for i in range(reps):
            for mode in ("removed", "added"):
                if mode == "removed":
                    shutil.move(page, away)
                else:
                    added.write_text(text.replace("title: ", "title: Added ", 1), encoding="utf-8")
                for lt in linters:
                    r = run_in_state(lt, vault, out_json, stashes[lt.name])
                    getattr(lt, mode).append(r)
                    if i == reps - 1:
                        moved[mode][lt.name] = json.loads(out_json.read_text()).get("findings", [])
                    print(f"  {lt.name} one page {mode} {i + 1}/{reps}: {r['wall_s']:.3f} s wall, {r['cpu_s']:.3f} "
                          f"s cpu, {r['rss_mb']:.0f} MB, rc={r['rc']}", flush=True)
                if mode == "removed":
                    shutil.move(away, page)
                    os.utime(page, ns=(stat.st_atime_ns, stat.st_mtime_ns))
                else:
                    added.unlink()
    finally:
        if not page.exists() and away.exists():
            shutil.move(away, page)
        if "added" in locals() and added.exists():
            added.unlink()
        os.utime(page, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        for stash in stashes.values():
            shutil.rmtree(stash, ignore_errors=True)
    out = {}
    for lt in linters:
        report = reports[lt.name]
        counts: dict[str, int] = {}
        for f in report.get("findings", []):
            counts[f["rule"]] = counts.get(f["rule"], 0) + 1
        out[lt.name] = {"cmd": " ".join([*lt.prefix[-1:], "lint", "--format", "json", "--vault", str(vault)]),
                        "cold": summarise(lt.cold), "warm": summarise(lt.warm), "edited": summarise(lt.edited),
                        "added": summarise(lt.added), "removed": summarise(lt.removed),
                        "rc": lt.cold[0]["rc"],
                        "summary": report.get("summary"), "findings_by_rule": dict(sorted(counts.items())),
                        "warm_findings_identical": warm_same[lt.name]}
    if len(linters) > 1:
        first = reports[linters[0].name].get("findings", [])
        out[linters[0].name]["findings_identical_to_peer"] = all(
            reports[lt.name].get("findings", []) == first for lt in linters[1:]
        )
        for mode, found in moved.items():  # a lint of a page removed or added, against the peer's of the same
            out[linters[0].name][f"{mode}_findings_identical_to_peer"] = all(
                found.get(lt.name) == found.get(linters[0].name) for lt in linters[1:])
    return out


def ensure_ot_venv() -> Path:
    py = OT_VENV / "bin" / "python"
    if not py.exists():
        print(f"creating {OT_VENV.relative_to(REPO)} and installing obsidiantools (pip) ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(OT_VENV)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", "obsidiantools"], check=True)
    return py


def utf8_copy(vault: Path) -> tuple[Path, list[str]]:
    """A copy of the vault with every non-UTF-8 note re-encoded (obsidiantools raises on them)."""
    dest = SCRATCH / (vault.name + "-utf8")
    fixed: list[str] = []
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(vault, dest, ignore=shutil.ignore_patterns(".wikic"))
    for p in sorted(dest.rglob("*.md")):
        data = p.read_bytes()
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            p.write_text(data.decode("utf-8", "replace"), encoding="utf-8")
            fixed.append(p.relative_to(dest).as_posix())
    return dest, fixed


def bench_obsidiantools(vault: Path, reps: int) -> dict:
    py = ensure_ot_venv()
    ver = subprocess.run([str(py), "-c", "import importlib.metadata as m; print(m.version('obsidiantools'))"],
                         capture_output=True, text=True).stdout.strip()
    target, fixed = utf8_copy(vault)
    script = SCRATCH / "ot_run.py"
    script.write_text(OT_SCRIPT)
    runs = []
    for i in range(reps):
        out = SCRATCH / "ot-stdout.txt"
        r = run_measured([str(py), str(script), str(target)], out)
        if r["rc"] != 0:
            shutil.rmtree(target, ignore_errors=True)
            return {"version": ver, "error": r["stderr"][-1500:], "reencoded_pages": fixed}
        lines = [ln for ln in out.read_text().splitlines() if ln.startswith("{")]
        r.update(json.loads(lines[-1]))
        runs.append(r)
        print(f"  obsidiantools {i + 1}/{reps}: import {r['import_s']:.1f} s, connect {r['connect_s']:.1f} s, "
              f"gather {r['gather_s']:.1f} s, process {r['wall_s']:.1f} s wall / {r['cpu_s']:.1f} s cpu, "
              f"peak {r['rss_gather_mb']:.0f} MB", flush=True)
    shutil.rmtree(target, ignore_errors=True)
    med = statistics.median
    return {
        "version": ver,
        "vault_copy": target.name,
        "reencoded_pages": fixed,
        "n": len(runs),
        "import_s": med(r["import_s"] for r in runs),
        "connect_s": med(r["connect_s"] for r in runs),
        "connect_min_s": min(r["connect_s"] for r in runs),
        "gather_s": med(r["gather_s"] for r in runs),
        "gather_min_s": min(r["gather_s"] for r in runs),
        "connect_cpu_s": med(r["connect_cpu_s"] for r in runs),
        "gather_cpu_s": med(r["gather_cpu_s"] for r in runs),
        "process_wall_s": med(r["wall_s"] for r in runs),
        "process_cpu_s": med(r["cpu_s"] for r in runs),
        "rss_connect_mb": max(r["rss_connect_mb"] for r in runs),
        "rss_gather_mb": max(r["rss_gather_mb"] for r in runs),
        "notes": runs[0]["notes"],
        "edges": runs[0]["edges"],
        "runs": [{k: r[k] for k in ("connect_s", "gather_s", "wall_s", "cpu_s")} for r in runs],
    }


def machine() -> dict:
    info = {"python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count()}
    with contextlib.suppress(ImportError):
        from wikic.vault.note_json import codec_name

        info["parse_cache_codec"] = codec_name()
    with contextlib.suppress(OSError):
        info["loadavg_start"] = os.getloadavg()
    with contextlib.suppress(OSError):
        info["git_commit"] = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                                            capture_output=True, text=True).stdout.strip()
    return info


def print_table(res: dict) -> None:
    w, o = res.get("wikic"), res.get("obsidiantools")
    print()
    print(f"vault: {res['vault_name']}  ({res['pages']} pages, {res['links']} links)  load average at start "
          f"{tuple(round(x, 1) for x in res['machine'].get('loadavg_start', ()))}, at the end "
          f"{tuple(round(x, 1) for x in res['machine'].get('loadavg_end', ()))}; parse cache codec: "
          f"{res['machine'].get('parse_cache_codec')}")
    print(f"{'measurement':<40}{'median s':>10}{'min s':>10}{'cpu s':>10}{'peak RSS MB':>13}{'load':>7}"
          f"{'/ warm':>8}  {'target':<14}")
    print("-" * 112)
    if w:
        for key, label, tgt in (("cold", "wikic lint (cold, no .wikic/)", TARGETS["cold_s"]),
                                ("warm", "wikic lint (warm, unchanged vault)", TARGETS["warm_s"]),
                                ("edited", "wikic lint (one page edited)", TARGETS["edited_s"]),
                                ("added", "wikic lint (one page added)", TARGETS["edited_s"]),
                                ("removed", "wikic lint (one page removed)", TARGETS["edited_s"])):
            s = w.get(key)
            if not s:
                continue
            ok = "" if tgt is None else f"<= {tgt} s {'ok' if s['median_s'] <= tgt else 'MISS'}"
            load = f"{s['load_median']:.1f}" if s.get("load_median") is not None else ""
            print(f"{label:<40}{s['median_s']:>10.3f}{s['min_s']:>10.3f}{s['cpu_median_s']:>10.3f}"
                  f"{s['rss_peak_mb']:>13.0f}{load:>7}{s['median_s'] / w['warm']['median_s']:>8.2f}  {ok:<14}")
    p = res.get("peer")
    for other, name in ((res.get("no_fast"), "no fast extra"), (p, p["ref"][:12] if p else "")):
        if other:
            for key in ("cold", "warm", "edited", "added", "removed"):
                s = other[key]
                label = f"{name} lint ({key})"
                print(f"{label:<40}{s['median_s']:>10.3f}{s['min_s']:>10.3f}{s['cpu_median_s']:>10.3f}"
                      f"{s['rss_peak_mb']:>13.0f}")
    if o and "error" not in o:
        print(f"{'obsidiantools import':<40}{o['import_s']:>10.2f}")
        cc = o.get("connect_cpu_s")
        gc = o.get("gather_cpu_s")
        print(f"{'obsidiantools Vault.connect()':<40}{o['connect_s']:>10.2f}{o['connect_min_s']:>10.2f}"
              f"{(f'{cc:.2f}' if cc else ''):>10}"
              f"{o['rss_connect_mb']:>13.0f}")
        print(f"{'obsidiantools .gather()':<40}{o['gather_s']:>10.2f}{o['gather_min_s']:>10.2f}"
              f"{(f'{gc:.2f}' if gc else ''):>10}"
              f"{o['rss_gather_mb']:>13.0f}")
        print(f"{'obsidiantools process (import+both)':<40}{o['process_wall_s']:>10.2f}{'':>10}"
              f"{o['process_cpu_s']:>10.2f}")
    elif o:
        print(f"obsidiantools failed: {o['error'][-300:]}")
    others = [(o, n) for o, n in ((res.get("no_fast"), "no fast extra"), (p, p["ref"][:12] if p else "")) if o]
    if w and others:
        print("-" * 97)
        for other, name in others:
            for key in ("cold", "warm", "edited", "added", "removed"):
                print(f"wikic / {name} ({key}): wall {w[key]['median_s'] / other[key]['median_s']:.2f}, "
                      f"CPU {w[key]['cpu_median_s'] / other[key]['cpu_median_s']:.2f}")
        print(f"findings identical to {', '.join(n for _, n in others)}: cold {w.get('findings_identical_to_peer')}, "
              f"one page removed {w.get('removed_findings_identical_to_peer')}, one page added "
              f"{w.get('added_findings_identical_to_peer')}")
    r = res.get("ratios")
    if r:
        print("-" * 97)
        print(
            f"obsidiantools connect / wikic cold  = {r['connect_over_cold']:.1f}x  (target >= "
            f"{TARGETS['speedup']:.0f}x)"
        )
        print(f"obsidiantools connect / wikic warm  = {r['connect_over_warm']:.1f}x")
        if r.get("connect_over_edited"):
            print(f"obsidiantools connect / wikic one page edited = {r['connect_over_edited']:.1f}x")
        print(f"obsidiantools connect+gather / wikic cold = {r['connect_gather_over_cold']:.1f}x")
        print(f"(CPU time) obsidiantools process / wikic cold process = {r['cpu_ot_over_cold']:.1f}x")
        if r.get("cpu_connect_over_cold"):
            print(f"(CPU time) obsidiantools connect / wikic cold process = {r['cpu_connect_over_cold']:.1f}x")


def _reused_obsidiantools(path: Path) -> dict:
    """The obsidiantools results of an earlier run's JSON file; exits naming the file when it holds none."""
    try:
        found = json.loads(path.read_text(encoding="utf-8")).get("obsidiantools")
    except (OSError, ValueError, AttributeError) as exc:
        raise SystemExit(f"--ot-json {path}: not a result file of this bench ({exc})") from None
    if not isinstance(found, dict):
        raise SystemExit(f"--ot-json {path}: it holds no obsidiantools results (made with --skip-obsidiantools?)")
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vault", type=Path, help="benchmark this vault instead of generating one")
    ap.add_argument("--pages", type=int, default=10000)
    ap.add_argument("--links-per-page", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--plain", action="store_true", help="generate a plain Obsidian vault")
    ap.add_argument("--regen", action="store_true", help="regenerate even if the vault exists in bench/out/")
    ap.add_argument("--reps", type=int, default=5,
                    help="wikic runs per mode (cold, warm, one page edited, removed, added)")
    ap.add_argument("--ot-reps", type=int, default=3, help="obsidiantools runs")
    ap.add_argument("--wikic", help="path of the wikic console script")
    ap.add_argument("--peer", metavar="REF", help="also time commit REF's wikic, run by run with this tree's")
    ap.add_argument("--no-fast", action="store_true", help="also time this tree without the fast extra (msgspec)")
    ap.add_argument("--skip-wikic", action="store_true")
    ap.add_argument("--skip-obsidiantools", action="store_true")
    ap.add_argument("--ot-json", type=Path, help="reuse obsidiantools results from an earlier JSON result file")
    a = ap.parse_args(argv)
    reused = _reused_obsidiantools(a.ot_json) if a.ot_json else None  # checked before minutes of runs
    SCRATCH.mkdir(parents=True, exist_ok=True)

    if a.vault:
        vault, stats = a.vault.resolve(), None
    else:
        vault, stats = generate(a)
    res: dict = {"date": dt.datetime.now().isoformat(timespec="seconds"), "vault_name": vault.name,
                 "machine": machine(), "generator": stats, "targets": TARGETS,
                 "pages": stats["pages"] if stats else None, "links": stats["links"] if stats else None}

    if not a.skip_wikic:
        wikic = find_wikic(a.wikic)
        if wikic is None:
            print("wikic console script not found: install the package (pip install -e .) or pass --wikic")
        else:
            linters = [Linter("wikic", [str(wikic)])]
            if a.no_fast:
                linters.append(no_fast_linter())
            if a.peer:
                linters.append(peer_linter(a.peer))
            peer_note = f", interleaved with {a.peer}" if a.peer else ""
            print(f"wikic lint: {a.reps} runs each of cold, warm, one page edited, removed, added{peer_note}",
                  flush=True)
            timed = bench_wikic(linters, vault, a.reps)
            res["wikic"] = timed["wikic"]
            if a.peer:
                res["peer"] = {"ref": a.peer, **timed[a.peer]}
            if a.no_fast:
                res["no_fast"] = timed[NO_FAST]
            summ = res["wikic"].get("summary") or {}
            res["pages"] = res["pages"] or summ.get("pages")
            res["links"] = res["links"] or summ.get("links")
    if reused is not None:
        res["obsidiantools"] = {**reused, "reused_from": a.ot_json.name}
    elif not a.skip_obsidiantools:
        print(f"obsidiantools: {a.ot_reps} runs (slow)", flush=True)
        res["obsidiantools"] = bench_obsidiantools(vault, a.ot_reps)
    w, o = res.get("wikic"), res.get("obsidiantools")
    if w and o and "error" not in o:
        cold, warm = w["cold"]["median_s"], w["warm"]["median_s"]
        res["ratios"] = {"connect_over_cold": o["connect_s"] / cold, "connect_over_warm": o["connect_s"] / warm,
                         "connect_over_edited": o["connect_s"] / w["edited"]["median_s"],
                         "connect_gather_over_cold": (o["connect_s"] + o["gather_s"]) / cold,
                         "cpu_ot_over_cold": o["process_cpu_s"] / w["cold"]["cpu_median_s"]}
        if o.get("connect_cpu_s"):
            res["ratios"]["cpu_connect_over_cold"] = o["connect_cpu_s"] / w["cold"]["cpu_median_s"]
    with contextlib.suppress(OSError):
        res["machine"]["loadavg_end"] = os.getloadavg()
    print_table(res)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = OUT / f"lint-bench-{vault.name}-{stamp}-{os.getpid()}.json"
    path.write_text(json.dumps(res, indent=2))
    (OUT / "lint-bench-latest.json").write_text(json.dumps(res, indent=2))
    if res.get("wikic"):
        shutil.copy(SCRATCH / "wikic-lint.json", OUT / "wikic-lint-last.json")
    shutil.rmtree(SCRATCH, ignore_errors=True)
    print(f"\nresults: {path.relative_to(REPO) if path.is_relative_to(REPO) else path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
