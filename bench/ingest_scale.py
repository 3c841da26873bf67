"""Ingest at scale: what wikic's own work costs per source as the wiki grows (the model answers at once).

    python bench/ingest_scale.py                          # both parts, the default sizes
    python bench/ingest_scale.py --part growth --batch 100 --base 600
    python bench/ingest_scale.py --part overhead --sizes 100,1000,10000 --sources 10
    python bench/ingest_scale.py --json out.json --profile scale.prof   # cProfile of the largest overhead run

Run it with the Python of the venv where wikic, its `llm` and `palace` extras and the dev extras are
installed. OMP_NUM_THREADS and the like are pinned to 1.

The model is the stand-in OpenAI-compatible server of the tests (tests/standin_openai.py, on 127.0.0.1, in a
child process) answering every request at once with what a faithful model would propose for the source: each
report names three to five organisations of a cast of several hundred (drawn with Zipf weights, so some are
named often and most rarely, as in a real corpus), one line of figures each, and every quote is a line of the
source. So everything timed is wikic's: reading and capturing the source, choosing the pages it may touch (the
palace search), compiling, writing, the palace update and the lint after. `[llm] concurrency = 4` (`-j 4`),
composing off (one more model call per changed page: the model's cost, not the wiki's), the palace on with
the static embedder.

Part "growth": in one run, a batch of sources (default 100) into an empty vault, then the same number of new
sources into a vault that already compiled `--base` sources (default 600; built first, not timed). The
figure is seconds per source in each and their ratio (goal: at most 1.25). Beside it, the pages each batch
writes (every page a source created or updated, counted once for each source that wrote it) and seconds a
page written (a source's own page in sources/ counted as one): a source of the second batch names pages that
exist already, so it writes more of them than one of the first, which mostly leaves names waiting for a
second source.

Part "overhead": a generated vault of N wiki pages (the cast's pages among unrelated ones, each with a lead
and a section, listed in index.md; indexed in the palace, its compiled ledger and parse cache written before
the run, as earlier runs leave them), then `--sources` new reports ingested; seconds per source at each size,
with the time inside the palace search and update and the lint after the run shown apart.

Every figure is a median over `--reps` runs; the load average is printed with them (the machine is shared).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ[_var] = "1"
os.environ["WIKIC_EMBEDDING_PROVIDER"] = "static"
for _var in ("WIKIC_LLM_BASE_URL", "WIKIC_LLM_MODEL", "WIKIC_LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
    os.environ.pop(_var, None)

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(BENCH))

import ingest_bench  # noqa: E402 - the stand-in loader and the vault helpers of the other ingest bench

from wikic.context import VaultContext  # noqa: E402
from wikic.ingest.pipeline import IngestOptions, ingest  # noqa: E402
from wikic.text.tokens import estimate_messages, estimate_tokens  # noqa: E402
from wikic.vault.init import init_vault  # noqa: E402

standin = ingest_bench.standin
CONCURRENCY = 4
SUFFIXES = ("Labs", "Systems", "Works", "Group", "Partners", "Foundry", "Analytics", "Dynamics")
MEASURES = ("incidents", "releases", "open positions", "customer escalations", "audits", "pilot sites")


def cast(size: int = 480, seed: int = 5) -> list[str]:
    """Organisation names, distinct after case folding."""
    rng = random.Random(seed)
    names: list[str] = []
    seen: set[str] = set()
    while len(names) < size:
        name = f"{rng.choice(ingest_bench.BRANDS).title()} {rng.choice(SUFFIXES)}"
        if name.lower() not in seen:
            seen.add(name.lower())
            names.append(name)
    return names


def make_reports(first: int, count: int, seed: int = 9) -> dict[str, str]:
    """Reports number `first` .. `first + count - 1`: each names three to five organisations, Zipf-weighted."""
    names = cast()
    weights = [1.0 / (rank + 1) ** 0.8 for rank in range(len(names))]
    out: dict[str, str] = {}
    for i in range(first, first + count):
        rng = random.Random(seed * 100_003 + i)
        named: list[str] = []
        while len(named) < rng.randint(3, 5):
            pick = rng.choices(names, weights)[0]
            if pick not in named:
                named.append(pick)
        lines = [f"# Quarterly report {i}", "", f"Figures gathered for report {i} of the regional survey.", ""]
        for name in named:
            lines.append(f"{name} logged {rng.randint(2, 9000)} {rng.choice(MEASURES)} in the period of report {i}.")
            lines.append("")
        out[f"report-{i:04d}.md"] = "\n".join(lines)
    return out


_SOURCE = re.compile(r"<<<SOURCE (\w+)>>>\n(.*?)<<<END SOURCE \1>>>", re.DOTALL)
_LINE = re.compile(r"^(.+?) logged \d+ .+ in the period of report \d+\.$")


def plan_for(text: str) -> dict[str, Any]:
    """A faithful model's plan for a report: each organisation with its line as fact and quote."""
    entities = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if m:
            name = m.group(1)
            entities.append({"name": name, "kind": "organization", "aliases": [],
                             "summary": f"{name} is an organisation in the regional survey.",
                             "facts": [{"text": line, "quote": line}]})
    title = (text.splitlines() or [""])[0].lstrip("# ")
    return {"summary": title, "entities": entities, "concepts": [], "comparisons": [], "relations": []}


def route(body: dict[str, Any]) -> Any:
    messages = body.get("messages") or []
    match = _SOURCE.search(messages[-1]["content"]) if messages else None
    content = json.dumps(plan_for(match.group(2) if match else ""))
    return standin.reply(content, prompt_tokens=estimate_messages(messages), completion_tokens=estimate_tokens(content))


def _serve(conn: Any) -> None:
    server = standin.StandinServer(latency=0.0)
    server.route = route
    server.start()
    conn.send(server.base_url)
    conn.recv()
    server.stop()
    conn.send(None)


class Server:
    """The stand-in in a child process: its request handling does not share this process's GIL."""

    def __enter__(self) -> Server:
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_serve, args=(child,), daemon=True)
        self._proc.start()
        self.base_url: str = self._conn.recv()
        return self

    def __exit__(self, *exc: object) -> None:
        self._conn.send("stop")
        self._conn.recv()
        self._proc.join(timeout=10)


def new_vault(root: Path, base_url: str) -> Path:
    init_vault(root)
    (root / "wikic.toml").write_text(
        f'[llm]\nbase_url = "{base_url}"\nmodel = "standin-model"\ntimeout = 30\nmax_retries = 0\n'
        f'concurrency = {CONCURRENCY}\ncompose = false\n\n[embedding]\nprovider = "static"\n',
        encoding="utf-8",
    )
    return root


def write_inbox(folder: Path, texts: dict[str, str]) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    return [str(folder / name) for name in sorted(texts)]


class Timed:
    """Seconds spent inside some library functions (patched where they are looked up; nothing in the library
    changes): the wall time during which at least one call was running (calls made at once by several
    threads, such as the extraction workers' searches, count once), and the CPU time of the threads making
    them, summed (`<label> cpu`)."""

    def __init__(self, targets: dict[str, tuple[Any, str]]) -> None:
        self.targets = targets
        self.spans: dict[str, list[tuple[float, float]]] = {label: [] for label in targets}
        self.cpu = dict.fromkeys(targets, 0.0)
        self._lock = threading.Lock()

    @property
    def seconds(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for label, spans in self.spans.items():
            total, reach = 0.0, float("-inf")
            for start, end in sorted(spans):
                if end > reach:
                    total += end - max(start, reach)
                    reach = end
            out[label] = total
            out[f"{label} cpu"] = self.cpu[label]
        return out

    def __enter__(self) -> Timed:
        self._saved = {}
        for label, (owner, attr) in self.targets.items():
            fn = getattr(owner, attr)
            self._saved[label] = fn
            setattr(owner, attr, self._wrap(label, fn))
        return self

    def _wrap(self, label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t0, c0 = time.perf_counter(), time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = time.thread_time() - c0
                with self._lock:
                    self.spans[label].append((t0, time.perf_counter()))
                    self.cpu[label] += spent

        return wrapper

    def __exit__(self, *exc: object) -> None:
        for label, (owner, attr) in self.targets.items():
            setattr(owner, attr, self._saved[label])


def timed_targets() -> dict[str, tuple[Any, str]]:
    """The palace's search and update as the ingest calls them, wherever this tree keeps them."""
    import wikic.palace
    from wikic.ingest import pipeline

    targets: dict[str, tuple[Any, str]] = {}
    import wikic.palace.todo

    # the update as the pipeline makes it (its to-do, then `Palace.update_paths`), wherever this tree keeps it
    update = wikic.palace.todo if hasattr(wikic.palace.todo, "update_palace") else wikic.palace
    import wikic.lint.run

    for label, owner, attr in (("palace search", pipeline, "relevant_pages"),
                               ("palace update", update, "update_palace"),
                               ("lint after", wikic.lint.run, "run_lint")):
        if hasattr(owner, attr):
            targets[label] = (owner, attr)
    return targets


def run_ingest(root: Path, inputs: list[str], profile: Path | None = None) -> dict[str, Any]:
    with Timed(timed_targets()) as timed:
        profiler = None
        if profile is not None:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        t0, c0 = time.perf_counter(), time.process_time()
        with VaultContext(root) as context:
            report = ingest(context, IngestOptions(inputs=inputs))
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(str(profile))
    totals = report.totals()
    if totals["failed"]:
        raise SystemExit(f"benchmark run failed: {[s.error for s in report.failed][:3]}")
    # every page a source created or updated, a page each source writes counted once for each of them (a
    # source's own page in sources/ aside): the pages a batch renders, writes and indexes
    page_writes = sum(len(s.created) + len(s.updated) for s in report.sources)
    return {"wall": wall, "cpu": cpu, "per_source": wall / len(inputs), "created": totals["created"],
            "updated": totals["updated"], "page_writes": page_writes,
            "per_page_write": wall / max(page_writes + len(inputs), 1),
            **{k: v for k, v in timed.seconds.items()}}


def pages_in(root: Path) -> int:
    return sum(1 for folder in ("entities", "concepts", "comparisons") for _ in (root / folder).glob("*.md"))


# -- part "growth" --------------------------------------------------------------------------------------


def run_growth(batch: int, base: int, reps: int) -> dict[str, Any]:
    empty_runs, grown_runs = [], []
    with tempfile.TemporaryDirectory(prefix="wikic-scale-") as tmp, Server() as server:
        tmp_path = Path(tmp)
        base_inputs = write_inbox(tmp_path / "base", make_reports(1, base))
        template = new_vault(tmp_path / "template", server.base_url)
        t0 = time.perf_counter()
        with VaultContext(template) as context:
            ingest(context, IngestOptions(inputs=base_inputs))
        build = time.perf_counter() - t0
        base_pages = pages_in(template)
        print(f"  built the {base}-source vault: {base_pages} pages, {build:.0f} s", flush=True)
        new_inputs = write_inbox(tmp_path / "new", make_reports(base + 1, batch))
        for rep in range(reps):
            # interleaved, so that a busier minute of the machine weighs on both alike
            root = new_vault(tmp_path / f"empty-{rep}", server.base_url)
            empty_runs.append(run_ingest(root, new_inputs))
            print(f"  {batch} into an empty vault {rep + 1}/{reps}: {empty_runs[-1]['per_source']:.3f} s/source",
                  flush=True)
            root = tmp_path / f"grown-{rep}"
            shutil.copytree(template, root)
            grown_runs.append(run_ingest(root, new_inputs))
            print(f"  {batch} into the {base}-source vault {rep + 1}/{reps}: "
                  f"{grown_runs[-1]['per_source']:.3f} s/source", flush=True)
    empty = {k: statistics.median(r[k] for r in empty_runs) for k in empty_runs[0]}
    grown = {k: statistics.median(r[k] for r in grown_runs) for k in grown_runs[0]}
    return {"batch": batch, "base": base, "base_pages": base_pages, "build_seconds": build, "empty": empty,
            "grown": grown, "ratio": grown["per_source"] / empty["per_source"],
            "writes_ratio": grown["page_writes"] / max(empty["page_writes"], 1),
            "per_write_ratio": grown["per_page_write"] / empty["per_page_write"]}


# -- part "overhead" ------------------------------------------------------------------------------------


def populate(root: Path, pages: int) -> None:
    """`pages` entity pages: the whole cast (the pages the reports update) and unrelated fillers, each with a
    lead and a section, listed in index.md."""
    names = cast()
    fillers = ingest_bench.filler_titles(max(0, pages - len(names)))
    (root / "raw/articles/seed.md").write_text("# Seed\n\nPages written before the benchmark cite this.\n",
                                               encoding="utf-8")
    rng = random.Random(11)
    words = ["latency", "storage", "audit", "region", "survey", "budget", "review", "rollout", "staff", "quarter"]
    entries = []
    for title in (names + fillers)[:pages]:
        slug = ingest_bench.slug(title)
        summary = f"{title} is an organisation kept in the regional survey's records."
        prose = " ".join(rng.choice(words) for _ in range(40)).capitalize()
        body = f"{summary} ^[raw/articles/seed.md:L3]\n\n## Notes\n\n{prose}.\n"
        (root / f"entities/{slug}.md").write_text(ingest_bench.page_text(title, "entity", summary, body),
                                                  encoding="utf-8")
        entries.append(f"- [[{slug}]] — {summary}")
    index = (root / "index.md").read_text(encoding="utf-8")
    (root / "index.md").write_text(index.replace("## Entities\n", "## Entities\n" + "\n".join(entries) + "\n", 1),
                                   encoding="utf-8")


def settle(root: Path) -> None:
    """Leave the generated vault as the runs that wrote its pages would have: its compiled ledger (the seed
    source, into every page citing it), its hubs (the seed's source page, the overview) and the caches of the
    lint that ends a run (parsed notes, resolved links). Without them the first ingest rebuilds the ledger,
    writes the seed's source page from all the pages citing it, and parses every page once: costs of the
    generated vault, not of ingesting."""
    import datetime as dt

    from wikic.hubs.setup import add_hubs
    from wikic.ingest.rebuild import rebuilt_compiled
    from wikic.lint.run import LintOptions, run_lint

    rebuilt_compiled(root, dt.date.today().isoformat(), VaultContext(root).schema).save()
    add_hubs(root)
    rules = ("broken-wikilink", "index-gap", "frontmatter")
    run_lint(VaultContext(root), LintOptions(select=rules, use_cache=True))
    # a second lint (another day: not served the first one's report) from the parse cache, as the lint ending a
    # later run: it leaves the cache of link resolutions that a cold lint never writes
    later = dt.date.today() + dt.timedelta(days=1)
    run_lint(VaultContext(root), LintOptions(select=rules, use_cache=True, today=later))
    # and a lint of every rule today, as the one ending the run before: the lint after an ingest starts from its
    # findings (`lint/changed.py`)
    run_lint(VaultContext(root), LintOptions(use_cache=True))


def run_overhead(sizes: list[int], sources: int, reps: int, profile: Path | None) -> dict[str, Any]:
    from wikic.palace import sync

    out: dict[str, Any] = {"sources": sources, "sizes": {}}
    with tempfile.TemporaryDirectory(prefix="wikic-scale-") as tmp, Server() as server:
        tmp_path = Path(tmp)
        inputs = write_inbox(tmp_path / "new", make_reports(100_001, sources))
        for size in sizes:
            template = new_vault(tmp_path / f"template-{size}", server.base_url)
            populate(template, size)
            t0 = time.perf_counter()
            sync(template, VaultContext(template).settings)
            index_seconds = time.perf_counter() - t0
            settle(template)
            runs = []
            for rep in range(reps):
                root = tmp_path / f"wiki-{size}-{rep}"
                shutil.copytree(template, root)
                prof = profile if (profile is not None and size == max(sizes) and rep == 0) else None
                runs.append(run_ingest(root, inputs, prof))
                shutil.rmtree(root)
                print(f"  {size} pages {rep + 1}/{reps}: {runs[-1]['per_source']:.3f} s/source", flush=True)
            shutil.rmtree(template)
            med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            out["sizes"][size] = {**med, "index_seconds": index_seconds}
    lo, hi = min(sizes), max(sizes)
    out["ratio"] = out["sizes"][hi]["per_source"] / out["sizes"][lo]["per_source"]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=("all", "growth", "overhead"), default="all")
    ap.add_argument("--batch", type=int, default=100, help="sources per timed batch (growth)")
    ap.add_argument("--base", type=int, default=600, help="sources compiled before the second batch (growth)")
    ap.add_argument("--sizes", default="100,1000,10000", help="vault sizes in pages (overhead)")
    ap.add_argument("--sources", type=int, default=10, help="sources ingested at each size (overhead)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--profile", type=Path, help="a cProfile of the first run at the largest size (overhead)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)

    ingest_bench.warm_imports()
    import wikic.palace  # noqa: F401

    result: dict[str, Any] = {"concurrency": CONCURRENCY, "load_before": ingest_bench.load()}
    print(f"load average before: {result['load_before']}")
    if args.part in ("all", "growth"):
        g = run_growth(args.batch, args.base, args.reps)
        result["growth"] = g
        print(f"\n== growth: {args.batch} sources, medians of {args.reps}")
        print(f"  into an empty vault:              {g['empty']['per_source']:.3f} s/source")
        print(f"  into a {g['base']}-source vault ({g['base_pages']} pages): {g['grown']['per_source']:.3f} s/source")
        print(f"  ratio: {g['ratio']:.2f}x (goal <= 1.25x)")
        print(f"  page writes: {g['empty']['page_writes']:.0f} and {g['grown']['page_writes']:.0f} "
              f"({g['writes_ratio']:.2f}x); seconds a page written (a source's own page counted): "
              f"{g['empty']['per_page_write']:.4f} and {g['grown']['per_page_write']:.4f} "
              f"({g['per_write_ratio']:.2f}x)")
    if args.part in ("all", "overhead"):
        sizes = [int(s) for s in args.sizes.split(",")]
        o = run_overhead(sizes, args.sources, args.reps, args.profile)
        result["overhead"] = o
        print(f"\n== overhead: {args.sources} sources per run, medians of {args.reps}")
        print(f"  {'pages':>7} {'s/source':>9} {'search s':>9} {'(cpu s)':>8} {'update s':>9} {'lint s':>7} "
              f"{'indexing s':>10}")
        for size, r in o["sizes"].items():
            print(f"  {size:>7} {r['per_source']:>9.3f} {r.get('palace search', 0.0):>9.2f} "
                  f"{r.get('palace search cpu', 0.0):>8.2f} {r.get('palace update', 0.0):>9.2f} "
                  f"{r.get('lint after', 0.0):>7.2f} {r['index_seconds']:>10.1f}")
        print(f"  ratio largest/smallest: {o['ratio']:.2f}x")
    result["load_after"] = ingest_bench.load()
    print(f"\nload average after: {result['load_after']}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
