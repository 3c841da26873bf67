"""Ingest benchmark: parallel extraction against a model with a fixed latency, and a prompt
that does not grow with the wiki.

    python bench/ingest_bench.py                    # both parts, 3 repetitions, medians
    python bench/ingest_bench.py --part wall --reps 5
    python bench/ingest_bench.py --part wall --wall-palace   # also time the 40 sources with the palace on
    python bench/ingest_bench.py --part prompt --no-palace
    python bench/ingest_bench.py --json out.json --profile wall.prof   # cProfile of the first wall run

Run it with the Python of the venv where wikic and its dependencies are installed.

Part "wall": the stand-in OpenAI-compatible server (tests/standin_openai.py, on 127.0.0.1, started and
stopped here, in a child process so that it does not share the client's GIL) answers every chat request
after a fixed latency (0.3 s). 40 related synthetic sources
(a shared cast of entities and concepts, so pages are held back by the thresholds, then created, then
updated) are ingested in one run at concurrency 8. The ideal wall time is requests x latency / 8; the
target is a wall time within 1.25x of it. The wall time is split into phases by timing around the
library's own functions (no change to the library is needed): prepare (capture, page names, context),
extract (first model request sent to last reply parsed; each source is compiled meanwhile, as soon as
it and every source before it have their plans), write (under the vault lock: the check that the vault
is still what the compile read, then the writes), palace and lint. "compile (busy)" is the time spent
compiling sources, summed: it lies within the phases, mostly within extract.

Part "prompt": one fixed source ingested into a vault that already holds 10 pages, then into one that
holds 1,000 (written directly as valid pages and listed in index.md); the prompt tokens of the request
the server received are compared (target: within 1.2x), without and with the palace (static embedder,
indexed before the ingest).

Token counts are wikic's offline estimate (wikic.text.tokens), computed by the server from the
request it received, and returned as the reply's `usage`, so the report's prompt_tokens are the
request's size. Every run sets OMP_NUM_THREADS=1. The machine's load average is printed with the
numbers: on a shared machine, compare medians.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
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
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Self

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ[_var] = "1"
os.environ.setdefault("WIKIC_EMBEDDING_PROVIDER", "static")
for _var in ("WIKIC_LLM_BASE_URL", "WIKIC_LLM_MODEL", "WIKIC_LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
    os.environ.pop(_var, None)

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def _load_standin() -> Any:
    spec = importlib.util.spec_from_file_location("standin_openai", REPO / "tests" / "standin_openai.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["standin_openai"] = module
    spec.loader.exec_module(module)
    return module


standin = _load_standin()

from wikic.context import VaultContext  # noqa: E402
from wikic.ingest import pipeline  # noqa: E402 - after the thread limits and sys.path above
from wikic.ingest.pipeline import MAX_CONTEXT_PAGES, IngestOptions, ingest  # noqa: E402 - after the thread limits and sys.path above
from wikic.text.tokens import estimate_messages, estimate_tokens  # noqa: E402 - after the thread limits and sys.path above
from wikic.vault.init import init_vault  # noqa: E402 - after the thread limits and sys.path above

LATENCY = 0.3
CONCURRENCY = 8
SOURCES = 40

# -- the synthetic world ---------------------------------------------------------------------------------

# name, kind, maker (an organization in the cast, or "")
ENTITIES = [
    ("Harbor Labs", "organization", ""), ("Nimbus Cloud", "organization", ""),
    ("Fernwood Institute", "organization", ""), ("Acorn DB", "product", "Harbor Labs"),
    ("Kestrel Router", "product", "Nimbus Cloud"), ("Basalt Queue", "product", "Harbor Labs"),
    ("Quartz Index", "product", "Fernwood Institute"), ("Osprey Gateway", "product", "Nimbus Cloud"),
    ("Tundra Cache", "product", "Harbor Labs"), ("Lumen Embedder", "model", "Fernwood Institute"),
    ("Cobalt Reranker", "model", "Nimbus Cloud"), ("Heron Chat", "model", "Harbor Labs"),
    ("Fjord Questions", "dataset", "Fernwood Institute"), ("Mira Okafor", "person", "Harbor Labs"),
    ("Tove Lindqvist", "person", "Fernwood Institute"), ("Rafael Quintero", "person", "Nimbus Cloud"),
]
CONCEPTS = {
    "Vector Search": ("nearest neighbours of a query vector", "recall at 10"),
    "Query Routing": ("sending each query to the cheapest model that can answer it", "share of queries routed"),
    "Reranking": ("reordering retrieved passages with a stronger model", "precision at 5"),
    "Index Compaction": ("merging index segments to reclaim space", "segments per shard"),
    "Embedding Drift": ("the slow change of embeddings after a model update", "mean cosine shift"),
}
SECTIONS = ("Definition", "Trade-offs", "Measurement")
VERBS = {
    "product": "shipped",
    "model": "released",
    "dataset": "published",
    "organization": "opened",
    "person": "joined",
}


def make_sources(n: int = SOURCES, seed: int = 1) -> dict[str, str]:
    """`n` related field notes: each names five of the cast and discusses one concept in three sections."""
    rng = random.Random(seed)
    out: dict[str, str] = {}
    concepts = list(CONCEPTS)
    for i in range(1, n + 1):
        cast = rng.sample(ENTITIES, 5)
        concept = concepts[(i - 1) % len(concepts)]
        lines = [f"# Field notes {i}: {cast[0][0]}, {cast[1][0]} and {concept.lower()}", "",
                 f"Notes from week {i} of the platform evaluation.", "", "## Observations", ""]
        for name, kind, maker in cast:
            n1, n2 = rng.randint(2, 97), rng.randint(100, 9000)
            if kind == "person":
                lines.append(f"{name} reviewed {n1} design documents in week {i}.")
                lines.append(f"{name} estimated {n2} hours of remaining work after week {i}.")
            elif kind == "organization":
                lines.append(f"{name} staffed {n1} engineers on the evaluation in week {i}.")
                lines.append(f"{name} reported {n2} support tickets during week {i}.")
            else:
                lines.append(f"{name} handled {n2} requests per second in trial {i}.")
                lines.append(f"{name} failed {n1} of the nightly checks in trial {i}.")
            if maker:
                lines.append(f"{name} is maintained by {maker}.")
            lines.append("")
        what, metric = CONCEPTS[concept]
        lines += [f"## {concept}", ""]
        lines.append(f"Definition: {concept} means {what}, as used in week {i}.")
        lines.append(f"Trade-offs: {concept} cost {rng.randint(5, 90)} ms of extra latency in trial {i}.")
        lines.append(
            f"Measurement: {concept} was tracked by {metric}, which reached 0.{rng.randint(50, 99)} in trial {i}."
        )
        out[f"field-notes-{i:02d}.md"] = "\n".join(lines) + "\n"
    return out


_SOURCE = re.compile(r"<<<SOURCE (\w+)>>>\n(.*?)<<<END SOURCE \1>>>", re.DOTALL)
_BY_NAME = {name: (kind, maker) for name, kind, maker in ENTITIES}


def plan_for(text: str) -> dict[str, Any]:
    """What a faithful model would propose for a field note: every quote is a verbatim line of it."""
    entities: dict[str, dict[str, Any]] = {}
    relations: list[dict[str, str]] = []
    concepts: dict[str, dict[str, list[dict[str, str]]]] = {}
    heading = ""
    for line in text.splitlines():
        if line.startswith("## "):
            heading = line[3:].strip()
            continue
        if heading in CONCEPTS and ": " in line:
            section, _ = line.split(": ", 1)
            if section in SECTIONS:
                concepts.setdefault(heading, {}).setdefault(section, []).append(
                    {"text": line.split(": ", 1)[1], "quote": line}
                )
            continue
        for name, (kind, _maker) in _BY_NAME.items():
            if line.startswith(name + " "):
                m = re.match(rf"{re.escape(name)} is maintained by (.+)\.$", line)
                if m:
                    relations.append({"source": name, "relation": "maintained by", "target": m.group(1), "quote": line})
                    break
                item = entities.setdefault(
                    name,
                    {
                        "name": name,
                        "kind": kind,
                        "aliases": [],
                        "summary": f"{name}, a {kind} in the evaluation.",
                        "facts": [],
                    },
                )
                item["facts"].append({"text": line, "quote": line})
                break
    return {
        "summary": (text.splitlines() or [""])[0].lstrip("# ")[:400],
        "entities": list(entities.values())[:12],
        "concepts": [
            {
                "name": name,
                "summary": f"{name}: {CONCEPTS[name][0]}.",
                "sections": [{"heading": h, "facts": f[:5]} for h, f in sections.items()],
            }
            for name, sections in concepts.items()
        ],
        "comparisons": [],
        "relations": relations[:20],
    }


def route(body: dict[str, Any]) -> Any:
    """The stand-in's answer to one chat request: the plan, with usage counted from the request itself."""
    messages = body.get("messages") or []
    match = _SOURCE.search(messages[-1]["content"]) if messages else None
    data = plan_for(match.group(2) if match else "")
    content = json.dumps(data)
    return standin.reply(content, prompt_tokens=estimate_messages(messages), completion_tokens=estimate_tokens(content))


def listed_pages(body: dict[str, Any]) -> list[str]:
    """The existing-page titles a request told the model about."""
    user = body["messages"][-1]["content"]
    _, _, rest = user.partition("(use these exact names when you mean the same thing):\n")
    block = rest.split("\n\n", 1)[0]
    return [line[2:] for line in block.splitlines() if line.startswith("- ")]


# -- vaults ----------------------------------------------------------------------------------------------


def new_vault(root: Path, base_url: str, concurrency: int = CONCURRENCY) -> Path:
    init_vault(root)
    (root / "wikic.toml").write_text(
        f'[llm]\nbase_url = "{base_url}"\nmodel = "standin-model"\ntimeout = 30\nmax_retries = 0\n'
        f"concurrency = {concurrency}\n\n[embedding]\nprovider = \"static\"\n",
        encoding="utf-8",
    )
    schema = (root / "SCHEMA.md").read_text(encoding="utf-8")
    schema = schema.replace("## Domain\nGeneral Knowledge", "## Domain\nSearch infrastructure evaluation notes")
    schema = schema.replace("- #tool\n", "- #tool\n- #model\n- #dataset\n")
    (root / "SCHEMA.md").write_text(schema, encoding="utf-8")
    return root


BRANDS = [
    "acorn", "alder", "amber", "anvil", "apex", "aria", "arbor", "argon", "aster", "atlas", "aurora", "axiom", "beacon",
    "birch", "bolt", "bramble", "cairn", "calyx", "canopy", "cedar", "cinder", "cirrus", "citadel", "clover", "comet",
    "copper", "coral", "cortex", "crest", "cypress", "delta", "dune", "ember", "fathom", "fern", "flint", "forge",
    "garnet", "glacier", "granite", "gryphon", "hazel", "helix", "horizon", "indigo", "iris", "ivory", "jade",
    "juniper", "krypton", "lagoon", "lantern", "larch", "lynx", "magnet", "maple", "marble", "meadow", "meridian",
    "mica", "nebula", "nova", "oak", "onyx", "opal", "orbit", "pebble", "pine", "pixel", "plume", "polaris", "prism",
    "pulsar", "quill", "raven", "reef", "ridge", "rook", "rowan", "saffron", "sage", "sequoia", "shale", "sierra",
    "silica", "slate", "sorrel", "spruce", "summit", "talon", "thistle", "tidal", "topaz", "torch", "umber", "vale",
    "velvet", "verdant", "vertex", "willow", "yarrow", "zenith", "zephyr",
]
PRODUCTS = [
    "store", "embedder", "router", "agent", "server", "planner", "notebook", "graph", "engine", "pipeline", "loader",
    "retriever", "scheduler", "monitor", "proxy", "compiler", "linter", "mesh", "lake", "bridge", "studio", "shell",
    "bench", "tokenizer", "crawler", "parser",
]


def filler_titles(count: int, seed: int = 3) -> list[str]:
    """Distinct titles of pages unrelated to the benchmark's cast (none is named in its sources)."""
    rng = random.Random(seed)
    titles: list[str] = []
    seen: set[str] = set()
    while len(titles) < count:
        title = f"{rng.choice(BRANDS).title()} {rng.choice(PRODUCTS).title()}"
        if len(seen) >= len(BRANDS) * len(PRODUCTS) // 2:
            title += f" {len(titles)}"
        if title.lower() not in seen:
            seen.add(title.lower())
            titles.append(title)
    return titles


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def page_text(title: str, kind: str, summary: str, body: str) -> str:
    return (
        f"---\ntitle: {title}\ncreated: 2026-09-01\nupdated: 2026-09-02\ntype: {kind}\ntags: [tool]\n"
        f"sources:\n  - raw/articles/seed.md\nsummary: {summary}\n---\n\n# {title}\n\n{body}\n"
    )


def populate(root: Path, pages: int, seed: int = 3, first: str = "") -> list[str]:
    """Write `pages` entity pages: the benchmark's cast first (those named in `first` before the others:
    the pages a source should update), then unrelated fillers with prose of their own; list them all in
    index.md. Returns their paths."""
    (root / "raw/articles/seed.md").write_text(
        "# Seed\n\nPages written before the benchmark cite this file.\n", encoding="utf-8"
    )
    rng = random.Random(seed)
    ordered = sorted(ENTITIES, key=lambda e: e[0] not in first)
    cast = [(name, f"{name}, a {kind} in the evaluation.") for name, kind, _ in ordered]
    fillers = [
        (t, f"{t}, an internal {t.split()[1].lower()} kept by another team.")
        for t in filler_titles(max(0, pages - len(cast)), seed)
    ]
    chosen = (cast + fillers)[:pages]
    words = [
        "latency", "storage", "throughput", "shard", "replica", "schema", "budget", "review", "rollout", "cache",
        "index", "vector",
    ]
    paths = []
    entries = []
    for title, summary in chosen:
        path = f"entities/{slug(title)}.md"
        prose = " ".join(rng.choice(words) for _ in range(40))
        body = f"{summary} ^[raw/articles/seed.md:L3]\n\n## Notes\n\n{prose.capitalize()}.\n"
        (root / path).write_text(page_text(title, "entity", summary, body), encoding="utf-8")
        paths.append(path)
        entries.append(f"- [[{slug(title)}]] — {summary}")
    index = (root / "index.md").read_text(encoding="utf-8")
    index = index.replace("## Entities\n", "## Entities\n" + "\n".join(entries) + "\n", 1)
    (root / "index.md").write_text(index, encoding="utf-8")
    return paths


# -- phase timing (around the library's own functions; nothing in it changes) ----------------------------


class PhaseClock:
    def __init__(self) -> None:
        self.marks: dict[str, list[float]] = {}
        self.busy: dict[str, float] = {}  # seconds spent inside a function, summed over its calls
        self.lock = threading.Lock()

    def mark(self, name: str, start: float, end: float) -> None:
        with self.lock:
            span = self.marks.setdefault(name, [start, end])
            span[0], span[1] = min(span[0], start), max(span[1], end)

    def add(self, name: str, seconds: float) -> None:
        with self.lock:
            self.busy[name] = self.busy.get(name, 0.0) + seconds

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        import wikic.compile.compiler
        import wikic.ingest.extract
        import wikic.lint.run
        import wikic.palace

        # the pipeline imports extract_plan when a run starts: patched where it is imported from
        originals = (wikic.ingest.extract.extract_plan, pipeline.vault_lock, wikic.palace.update_paths,
                     wikic.lint.run.run_lint)
        compile_source = wikic.compile.compiler.Compiler.compile
        clock = self

        def timed_compile(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return compile_source(*args, **kwargs)
            finally:
                clock.add("compile", time.perf_counter() - t0)

        def timed(name: str, fn: Any) -> Any:
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                t0 = time.perf_counter()
                try:
                    return fn(*args, **kwargs)
                finally:
                    clock.mark(name, t0, time.perf_counter())

            return wrapper

        @contextlib.contextmanager
        def timed_lock(*args: Any, **kwargs: Any) -> Iterator[Any]:
            t0 = time.perf_counter()
            try:
                with originals[1](*args, **kwargs) as held:
                    yield held
            finally:
                clock.mark("write", t0, time.perf_counter())

        wikic.ingest.extract.extract_plan = timed("extract", originals[0])
        pipeline.vault_lock = timed_lock
        wikic.palace.update_paths = timed("palace", originals[2])
        wikic.lint.run.run_lint = timed("lint", originals[3])
        wikic.compile.compiler.Compiler.compile = timed_compile  # type: ignore[method-assign]
        try:
            yield
        finally:
            (wikic.ingest.extract.extract_plan, pipeline.vault_lock, wikic.palace.update_paths,
             wikic.lint.run.run_lint) = originals
            wikic.compile.compiler.Compiler.compile = compile_source  # type: ignore[method-assign]

    def seconds(self, start: float, end: float) -> dict[str, float]:
        out = {}
        first = min((s for s, _ in self.marks.values()), default=end)
        out["prepare"] = first - start
        for name in ("extract", "write", "palace", "lint"):
            if name in self.marks:
                s, e = self.marks[name]
                out[name] = e - s
        out["other"] = (end - start) - sum(out.values())
        # not a phase of its own: sources are compiled while later ones are extracted, and under the lock
        # only if the vault changed meanwhile
        out["compile (busy, within the phases)"] = self.busy.get("compile", 0.0)
        return out


# -- part 1: wall time ----------------------------------------------------------------------------------


def warm_imports() -> None:
    """Import what ingest imports lazily, so the first repetition does not pay for module loading."""
    import openai  # noqa: F401

    import wikic.lint.run
    import wikic.llm.client  # noqa: F401


class ServerProcess:
    """The stand-in server in a child process, so that its request handling does not compete with the
    client for this process's GIL (a real model server is another process too)."""

    def __init__(self, latency: float) -> None:
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_serve, args=(child, latency), daemon=True)
        self._proc.start()
        self.base_url: str = self._conn.recv()

    def request_times(self) -> list[float]:
        self._conn.send("times")
        times: list[float] = self._conn.recv()
        return times

    def stop(self) -> None:
        self._conn.send("stop")
        self._conn.recv()
        self._proc.join(timeout=10)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _serve(conn: Any, latency: float) -> None:
    server = standin.StandinServer(latency=latency)
    server.route = route
    server.start()
    conn.send(server.base_url)
    while True:
        msg = conn.recv()
        if msg == "times":
            conn.send([r.time for r in server.chat_requests()])  # CLOCK_MONOTONIC: one clock for both processes
        else:
            server.stop()
            conn.send(None)
            return


def run_wall(reps: int, use_palace: bool, profile: Path | None) -> dict[str, Any]:
    warm_imports()
    if use_palace:
        import wikic.palace  # noqa: F401
    texts = make_sources()
    runs = []
    for rep in range(reps):
        with tempfile.TemporaryDirectory(prefix="wikic-ingest-bench-") as tmp, ServerProcess(LATENCY) as server:
            inbox = Path(tmp) / "inbox"
            inbox.mkdir()
            for name, text in texts.items():
                (inbox / name).write_text(text, encoding="utf-8")
            root = new_vault(Path(tmp) / "wiki", server.base_url)
            clock = PhaseClock()
            profiler = None
            if profile is not None and rep == 0:
                import cProfile

                profiler = cProfile.Profile()
            with clock.installed():
                if profiler:
                    profiler.enable()
                c0, t0 = time.process_time(), time.perf_counter()
                with VaultContext(root) as context:
                    report = ingest(
                        context, IngestOptions(inputs=[str(inbox / n) for n in sorted(texts)], use_palace=use_palace)
                    )
                t1, c1 = time.perf_counter(), time.process_time()
                if profiler:
                    profiler.disable()
                    profiler.dump_stats(str(profile))
            times = server.request_times()
            requests = len(times)
            totals = report.totals()
            runs.append({
                "wall": t1 - t0,
                "cpu": c1 - c0,
                "requests": requests,
                "ideal": requests * LATENCY / CONCURRENCY,
                "phases": clock.seconds(t0, t1),
                "first_request": (min(times) - t0) if times else 0.0,
                "last_request": (max(times) - t0) if times else 0.0,
                "compiled": totals["compiled"],
                "failed": totals["failed"],
                "created": totals["created"],
                "updated": totals["updated"],
                "calls": totals["calls"],
            })
            if totals["failed"]:
                raise SystemExit(f"benchmark run failed: {[s.error for s in report.failed]}")
    keys = ("wall", "cpu", "ideal", "requests", "calls", "created", "updated", "first_request", "last_request")
    med = {k: statistics.median(r[k] for r in runs) for k in keys}
    phases = {k: statistics.median(r["phases"].get(k, 0.0) for r in runs) for k in runs[0]["phases"]}
    return {
        "use_palace": use_palace,
        "runs": runs,
        "median": med,
        "phases": phases,
        "ratio": med["wall"] / med["ideal"],
    }


# -- part 2: prompt size --------------------------------------------------------------------------------


def fixed_source() -> str:
    return make_sources(1, seed=11)["field-notes-01.md"].replace("Field notes 1:", "Field notes on the pilot:")


def run_prompt(sizes: list[int], use_palace: bool) -> dict[str, Any]:
    warm_imports()
    out: dict[str, Any] = {"use_palace": use_palace, "sizes": {}}
    with tempfile.TemporaryDirectory(prefix="wikic-prompt-bench-") as tmp, standin.StandinServer() as server:
        server.route = route
        src = Path(tmp) / "pilot-notes.md"
        src.write_text(fixed_source(), encoding="utf-8")
        for size in sizes:
            template = new_vault(Path(tmp) / f"template-{size}", server.base_url)
            populate(template, size, first=fixed_source())  # every vault holds the pages the source names
            index_seconds = 0.0
            if use_palace:
                from wikic.palace import sync

                t0 = time.perf_counter()
                sync(template, VaultContext(template).settings)
                index_seconds = time.perf_counter() - t0
            root = Path(tmp) / f"wiki-{size}"
            shutil.copytree(template, root)  # a fresh copy: the ingest writes into it
            before = len(server.chat_requests())
            t0 = time.perf_counter()
            with VaultContext(root) as context:
                report = ingest(context, IngestOptions(inputs=[str(src)], use_palace=use_palace, lint_after=False))
            wall = time.perf_counter() - t0
            reqs = server.chat_requests()[before:]
            s = report.sources[0]
            if s.status != "compiled":
                raise SystemExit(f"prompt benchmark: {s.status}: {s.error}")
            out["sizes"][size] = {
                "prompt_tokens": s.prompt_tokens,
                "request_tokens": sum(estimate_messages(r.body["messages"]) for r in reqs),
                "listed": max((len(listed_pages(r.body)) for r in reqs), default=0),
                "context_pages": s.context_pages,
                "requests": len(reqs),
                "updated": len(s.updated),
                "ingest_seconds": wall,
                "index_seconds": index_seconds,
            }
    lo, hi = min(sizes), max(sizes)
    out["ratio"] = out["sizes"][hi]["prompt_tokens"] / out["sizes"][lo]["prompt_tokens"]
    return out


# -- main -----------------------------------------------------------------------------------------------


def load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=("all", "wall", "prompt"), default="all")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--palace", dest="palace", action="store_true", default=None, help="only with the palace")
    ap.add_argument("--no-palace", dest="palace", action="store_false", help="only without the palace")
    ap.add_argument("--wall-palace", action="store_true", help="also time the 40-source run with the palace on")
    ap.add_argument("--sizes", default="10,1000", help="vault sizes for the prompt part (default 10,1000)")
    ap.add_argument("--profile", type=Path, help="write a cProfile of the first wall run here")
    ap.add_argument("--json", type=Path, help="write the results here")
    args = ap.parse_args(argv)

    result: dict[str, Any] = {"latency": LATENCY, "concurrency": CONCURRENCY, "sources": SOURCES, "load_before": load()}
    print(f"load average before: {result['load_before']}")
    if args.part in ("all", "wall"):
        modes = [False, True] if args.wall_palace else [bool(args.palace)]
        result["wall"] = []
        for use_palace in modes:
            w = run_wall(args.reps, use_palace, args.profile)
            result["wall"].append(w)
            m = w["median"]
            print(
                f"\n== wall: {SOURCES} sources, latency {LATENCY}s, concurrency {CONCURRENCY}, palace "
                f"{'on' if use_palace else 'off'}, {args.reps} reps (medians)"
            )
            print(
                f"model requests {m['requests']:.0f}; calls reported {m['calls']:.0f}; pages created "
                f"{m['created']:.0f}, updated {m['updated']:.0f}"
            )
            print(
                f"wall {m['wall']:.3f}s   ideal {m['ideal']:.3f}s   ratio {w['ratio']:.3f}   (target <= 1.25: "
                f"{'met' if w['ratio'] <= 1.25 else 'MISSED'})"
            )
            print(
                f"cpu {m['cpu']:.3f}s (this process); first request sent at {m['first_request']:.3f}s, last at "
                f"{m['last_request']:.3f}s"
            )
            print("phases: " + ", ".join(f"{k} {v:.3f}s" for k, v in w["phases"].items()))
            print("per run: " + "; ".join(f"{r['wall']:.3f}s" for r in w["runs"]))
    if args.part in ("all", "prompt"):
        sizes = [int(x) for x in args.sizes.split(",")]
        modes = [False, True] if args.palace is None else [args.palace]
        result["prompt"] = []
        for use_palace in modes:
            p = run_prompt(sizes, use_palace)
            result["prompt"].append(p)
            print(f"\n== prompt size, palace {'on' if use_palace else 'off'} (MAX_CONTEXT_PAGES={MAX_CONTEXT_PAGES})")
            for size, row in p["sizes"].items():
                print(
                    f"{size:>6} pages: prompt_tokens {row['prompt_tokens']}, pages listed {row['listed']}, "
                    f"requests {row['requests']}, "
                    f"pages updated {row['updated']}, ingest {row['ingest_seconds']:.2f}s"
                    + (f", index {row['index_seconds']:.1f}s" if use_palace else "")
                )
            print(f"ratio {p['ratio']:.3f}   (target <= 1.2: {'met' if p['ratio'] <= 1.2 else 'MISSED'})")
    result["load_after"] = load()
    print(f"\nload average after: {result['load_after']}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
