"""A vault of tens of thousands of pages: each command's time and peak memory, as a whole process.

    python bench/scale30k.py                                  # 10,000 and 30,000 pages, medians of 5
    python bench/scale30k.py --pages 100000 --lint --runs 3   # what breaks first at 100,000 pages
    python bench/scale30k.py --pages 30000 --chroma-server    # the index also built by a chroma server
    python bench/scale30k.py --pages 30000 --kill-at 0.5      # index --rebuild killed half-way, then resumed

Run it with the Python of the venv where wikic and its `palace` extra are installed. Threads are pinned to 1.

Each vault is `gen_vault.py --pages N --seed 1` (kept in bench/out/scale-N/ and reused), with the compiled
ledger its pages tell (every raw file a page cites, into the pages citing it) and a palace built by `wikic
index --rebuild` with the static embedder (timed once: the first figure). Then, each a `wikic` process from its
start to its exit, the runs of a command one after the other, the first (which reads the files into the
operating system's cache) not counted:

- `wikic status`;
- `wikic search QUERY --json` for `--runs` queries of two or three words of page titles, then as many while
  `wikic serve` runs (each answer checked against the same search made alone);
- with `--lint`: `wikic lint` cold (no `.wikic/cache/`) and warm (the second run on an unchanged vault).

Beside each figure: the median, the load average when the runs started, and the peak resident memory of the
largest process (the command's, or a child it waited for: chromadb's), from `wait4`. `--kill-at F` SIGKILLs an
`index --rebuild` once F of its files are written, then times the plain `wikic index` that finishes it and
counts the drawers that one embedded. `--chroma-server` builds the same palace in a `chroma run` server on
127.0.0.1 (`[palace] url`) and searches it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
OUT = BENCH / "out"
ENV = {
    **os.environ,
    "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "RAYON_NUM_THREADS": "1",
    "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False",
    "WIKIC_EMBEDDING_PROVIDER": "static", "PYTHONPATH": str(REPO),
}
for _secret in ("WIKIC_LLM_BASE_URL", "WIKIC_LLM_MODEL", "WIKIC_LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
    ENV.pop(_secret, None)
WIKIC = [sys.executable, "-c", "from wikic.cli import main; main()"]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run(args: list[str], *, ok: tuple[int, ...] = (0, 1)) -> dict[str, Any]:
    """One `wikic` process: wall seconds, the peak resident memory (MB) of it or a child it waited for, and
    what it printed (into files: a pipe nobody reads while it runs would stall it)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen([*WIKIC, *args], env=ENV, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        printed, errors = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    if code not in ok:
        raise SystemExit(f"wikic {' '.join(args)} exited {code}: {errors[-2000:]}")
    return {"seconds": wall, "rss_mb": usage.ru_maxrss / 1024, "code": code, "stdout": printed}


def measured(label: str, runs: list[dict[str, Any]], load_before: str) -> dict[str, Any]:
    out = {"median_s": statistics.median(r["seconds"] for r in runs), "runs_s": [r["seconds"] for r in runs],
           "peak_mb": max(r["rss_mb"] for r in runs), "load": load_before}
    print(f"  {label:<34} {out['median_s']:7.3f} s  (runs {', '.join(f'{s:.2f}' for s in out['runs_s'])})  "
          f"peak {out['peak_mb']:6.0f} MB  load {load_before}", flush=True)
    return out


LEDGER = """
import sys
from pathlib import Path
from wikic.context import VaultContext
from wikic.ingest.rebuild import rebuilt_compiled
root = Path(sys.argv[1])
with VaultContext(root) as context:
    rebuilt_compiled(root, sys.argv[2], context.schema).save()
"""


def make_vault(pages: int) -> Path:
    root = OUT / f"scale-{pages}"
    if (OUT / f"scale-{pages}.ready").exists():
        return root
    if root.exists():
        shutil.rmtree(root)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, str(BENCH / "gen_vault.py"), str(root), "--pages", str(pages), "--seed", "1",
                    "--quiet"], check=True, env=ENV)
    # in a process of its own: reading every page here would leave this process big, and each command forked
    # from it would start as big (its peak memory, read from wait4, would be this process's)
    subprocess.run([sys.executable, "-c", LEDGER, str(root), dt.date.today().isoformat()], check=True, env=ENV)
    (OUT / f"scale-{pages}.ready").write_text("", encoding="utf-8")
    print(f"  generated {pages} pages with their ledger: {time.perf_counter() - t0:.0f} s", flush=True)
    return root


def queries(root: Path, count: int, seed: int = 3) -> list[str]:
    """Two or three words of page titles (file names), drawn at random."""
    names = sorted(p.stem for folder in ("entities", "concepts") for p in (root / folder).rglob("*.md"))
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        words = [w for w in re.split(r"[-_ ]+", rng.choice(names)) if w.isalpha()]
        if len(words) >= 2:
            out.append(" ".join(words[:3]))
    return out


def index_rebuild(root: Path, extra: list[str]) -> dict[str, Any]:
    before = load()
    r = run(["index", "--rebuild", "--json", "--vault", str(root), *extra], ok=(0,))
    report = json.loads(r["stdout"])
    print(f"    {report.get('files_total')} files, {report.get('drawers_total')} drawers", flush=True)
    return {**measured("index --rebuild", [r], before), "files": report.get("files_total"),
            "drawers": report.get("drawers_total")}


def killed_rebuild(root: Path, share: float) -> dict[str, Any]:
    """`index --rebuild` killed once `share` of the files are in the manifest, then a plain `index`."""
    sys.path.insert(0, str(REPO))
    import sqlite3

    files = sum(1 for _ in root.rglob("*.md")) + sum(1 for _ in (root / "raw").rglob("*") if _.is_file())
    proc = subprocess.Popen([*WIKIC, "index", "--rebuild", "--vault", str(root)], env=ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    manifest = root / ".wikic/palace/lexical.sqlite3"
    done, cleared = -1, False
    while proc.poll() is None:
        try:
            with sqlite3.connect(f"file:{manifest}?mode=ro", uri=True, timeout=1) as db:
                done = db.execute("SELECT count(*) FROM files").fetchone()[0]
        except sqlite3.Error:
            pass
        cleared = cleared or 0 <= done < share * files  # the manifest the last build left is emptied first
        if cleared and done >= share * files:
            os.kill(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.5)
    proc.wait()
    print(f"  index --rebuild killed with {done} of about {files} files written", flush=True)
    before = load()
    t0 = time.perf_counter()
    out = subprocess.run([*WIKIC, "index", "--json", "--vault", str(root)], env=ENV, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"index after the kill failed: {out.stderr[-2000:]}")
    report = json.loads(out.stdout)
    print(f"  index after the kill: {wall:.1f} s, {report.get('drawers_embedded')} drawers embedded of "
          f"{report.get('drawers_total')}, load {before}", flush=True)
    return {"files_written_at_kill": done, "seconds": wall, "report": {k: report.get(k) for k in
            ("drawers_embedded", "drawers_total", "files_total", "unchanged")}, "load": before}


# One process searching query after query, as the MCP server or `wikic search --batch` does: the first query
# pays for opening the palace (the model, the manifest, chromadb's process), the next ones are what a search costs.
IN_PROCESS = """
import json, sys, time
from pathlib import Path
from wikic.context import VaultContext
from wikic.palace import search
root, queries = Path(sys.argv[1]), json.loads(sys.argv[2])
seconds = []
with VaultContext(root) as context:
    palace = context.palace()
    for q in queries:
        t0 = time.perf_counter()
        hits = search(palace, q, 10)
        seconds.append(time.perf_counter() - t0)
print(json.dumps(seconds))
"""


def searches_in_one_process(root: Path, asked: list[str]) -> dict[str, Any]:
    before = load()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen([sys.executable, "-c", IN_PROCESS, str(root), json.dumps(asked)], env=ENV,
                                stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        out.seek(0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit("the searches in one process failed")
        seconds = json.loads(out.read())
    later = seconds[1:]
    result = {"first_s": seconds[0], "median_s": statistics.median(later), "runs_s": later,
              "peak_mb": usage.ru_maxrss / 1024, "load": before}
    print(f"  {'search in one process, first':<34} {seconds[0]:7.3f} s", flush=True)
    print(f"  {'  then a query':<34} {result['median_s']:7.3f} s  (runs {', '.join(f'{x:.3f}' for x in later)})  "
          f"peak {result['peak_mb']:6.0f} MB  load {before}", flush=True)
    return result


def served_searches(root: Path, asked: list[str], vault: list[str]) -> dict[str, Any]:
    """`wikic search` as a process of its own while `wikic serve` runs: each checked against the same search
    made alone (a variable of the environment the server did not start with makes the process search itself)."""
    server = subprocess.Popen([*WIKIC, "serve", *vault], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
    try:
        assert server.stderr is not None
        if "answering searches" not in server.stderr.readline():
            raise SystemExit("wikic serve did not start")
        run(["search", asked[0], "--json", *vault])
        before = load()
        runs = [run(["search", q, "--json", *vault]) for q in asked[1:]]
        alone = {**ENV, "WIKIC_BENCH_SEARCHED_ALONE": "1"}
        for q, r in zip(asked[1:], runs, strict=True):
            own = subprocess.run([*WIKIC, "search", q, "--json", *vault], env=alone, capture_output=True, text=True)
            if own.stdout != r["stdout"]:
                raise SystemExit(f"wikic serve answered {q!r} otherwise than a search alone")
    finally:
        server.terminate()
        server.wait(30)
    return measured("search, wikic serve running", runs, before)


def commands(root: Path, runs: int, lint: bool, extra: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    vault = ["--vault", str(root), *extra]
    run(["status", *vault])  # the files read once into the operating system's cache
    before = load()
    out["status"] = measured("status", [run(["status", *vault]) for _ in range(runs)], before)
    if extra or (root / ".wikic/palace").exists():
        asked = queries(root, runs + 1)
        run(["search", asked[0], "--json", *vault])
        before = load()
        out["search"] = measured("search (a query a process)",
                                 [run(["search", q, "--json", *vault]) for q in asked[1:]], before)
        out["search in one process"] = searches_in_one_process(root, queries(root, runs + 1, seed=4))
        out["search, wikic serve running"] = served_searches(root, queries(root, runs + 1, seed=5), vault)
    if lint:
        cold = []
        before = load()
        for _ in range(runs):
            shutil.rmtree(root / ".wikic/cache", ignore_errors=True)
            cold.append(run(["lint", str(root)]))
        out["lint cold"] = measured("lint cold", cold, before)
        run(["lint", str(root)])
        before = load()
        out["lint warm"] = measured("lint warm", [run(["lint", str(root)]) for _ in range(runs)], before)
    return out


def chroma_server(data: Path) -> tuple[subprocess.Popen[bytes], str]:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    exe = Path(sys.executable).with_name("chroma")
    cli = [str(exe)] if exe.exists() else [sys.executable, "-m", "chromadb.cli.cli"]
    data.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen([*cli, "run", "--path", str(data / "db"), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=(data / "server.log").open("wb"), stderr=subprocess.STDOUT, env=ENV)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2):
                return proc, url
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"chroma server did not start: {(data / 'server.log').read_text()[-2000:]}") from None
            time.sleep(0.3)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", default="10000,30000", help="vault sizes, comma-separated")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--lint", action="store_true", help="also lint cold and warm")
    ap.add_argument("--no-index", action="store_true",
                    help="no index --rebuild: search the palace the last run built (none: no search)")
    ap.add_argument("--kill-at", type=float, help="kill index --rebuild once this share of files is written")
    ap.add_argument("--chroma-server", action="store_true", help="also index into and search a chroma server")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    OUT.mkdir(exist_ok=True)
    result: dict[str, Any] = {"load_before": load(), "sizes": {}}
    print(f"load average before: {result['load_before']}", flush=True)
    for pages in (int(p) for p in args.pages.split(",")):
        print(f"\n== {pages} pages", flush=True)
        root = make_vault(pages)
        size: dict[str, Any] = {}
        if not args.no_index:
            size["index --rebuild"] = index_rebuild(root, [])
        if args.kill_at is not None:
            size["index after a killed rebuild"] = killed_rebuild(root, args.kill_at)
        size.update(commands(root, args.runs, args.lint, []))
        if args.chroma_server:
            server, url = chroma_server(OUT / f"chroma-{pages}")
            try:
                # the vault's own wikic.toml is left alone: the server is named in the environment
                ENV["WIKIC_PALACE_URL"] = url
                size["server: index --rebuild"] = index_rebuild(root, [])
                size["server"] = commands(root, args.runs, False, [])
            finally:
                ENV.pop("WIKIC_PALACE_URL", None)
                server.terminate()
                server.wait(timeout=30)
        result["sizes"][pages] = size
    result["load_after"] = load()
    print(f"\nload average after: {result['load_after']}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
