"""Structure benchmark: how often one ingest re-opens what it already has, how far it travels between
packages, and how the code is shaped. Run it on two commits and compare.

    python bench/structure.py                  # every part, a table on stdout
    python bench/structure.py --json out.json  # the same figures as JSON too
    python bench/structure.py --part static    # the code alone (no ingest): import chain, largest functions
    python bench/structure.py --sources 10     # a smaller corpus for a quick look

Run it with the Python of the venv where wikic and its dev extras are installed (radon, when installed,
computes the cyclomatic complexity; without it, the same rules are applied here over `ast`).

The ingest parts build a fresh vault and run `wikic ingest -C VAULT SOURCE...` in this process, through the
command line (typer's CliRunner), so the figures are those of a person's run: the command's own work counts.
The model is the stand-in OpenAI-compatible server of the tests (tests/standin_openai.py, on 127.0.0.1)
answering with the scripted plans of tests/gkit.py (a shared company, a project per source, three
methods: pages are held back by the thresholds, then created, then updated); the palace is on, embedded,
with the static embedder.

What is counted, and how (the definitions do not depend on how the code is organised):

- settings loads: reads of the vault's `wikic.toml` (every load of the settings reads the file; the audit
  event "open" of the interpreter, so a read through any function counts);
- SCHEMA.md reads: opens of the vault's `SCHEMA.md` (audit event "open");
- vault walks: listings of the vault's root folder (audit events "os.scandir" and "os.listdir" on it), which
  every walk of the whole vault starts with; a listing of `raw/` or of one folder is not one;
- palace opens: `Palace` objects made (its `__init__` wrapped on the class);
- each of the four for one ingest of `--sources` sources (default 40) into a new vault;
- package hops of one ingest: one further source ingested into that vault (it already holds the pages and
  the palace of the 40) under a profiler (`sys.setprofile` and `threading.setprofile`). A *unit* is a
  package `wikic/X/` or a top-level module `wikic/X.py` (the units of tests/test_layers.py). A call whose
  called function is defined in a unit, made while the nearest wikic function below it on the stack is in
  another unit, crosses from that unit to the called one. A *hop* is one distinct crossing site: the pair
  (calling function, called function), counted once however often it runs. A hop is a *return* when the
  called unit is already on the stack below the calling function at one of its calls: the call climbs
  back into a unit that called out of it. *Two-way package pairs* are the pairs of units that each call
  the other during the run. *Packages* are the distinct units one of whose functions ran.
  The run's own threads count (their stacks start at the pool's worker function), the stand-in server's
  do not;
- longest import chain: the longest path of units in the import graph read from the source with `ast`
  (every `import wikic.X` and `from wikic.X import ...`, also inside a function or under TYPE_CHECKING,
  as tests/test_layers.py reads them), and the cycles of that graph if there are any;
- largest functions: the functions and methods of `wikic/` with the most lines (the `def` line to the last
  line of the body) and with the highest cyclomatic complexity (McCabe, radon's rules); and the modules'
  count, mean lines and mean complexity.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import datetime as dt
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import CodeType, FrameType, ModuleType
from typing import Any

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ[_var] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
for _var in [v for v in os.environ if v.startswith(("WIKIC_", "OPENAI_"))]:
    os.environ.pop(_var)
os.environ["WIKIC_EMBEDDING_PROVIDER"] = "static"

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "wikic"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))  # the stand-in server and gkit (the scripted corpus and its plans)
TODAY = dt.date(2026, 1, 15)


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# -- file-level counters (audit hooks) -----------------------------------------------------------------


class FileCounts:
    """Opens of wikic.toml and SCHEMA.md and listings of the root of one vault, while `active`."""

    def __init__(self) -> None:
        self.root = ""
        self.active = False
        self.counts: Counter[str] = Counter()
        sys.addaudithook(self._hook)  # an audit hook cannot be removed: it is off unless `active`

    def _hook(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.active:
            return
        if event == "open" and args and isinstance(args[0], (str, os.PathLike)):
            path = os.fspath(args[0])
            if path == os.path.join(self.root, "wikic.toml"):
                self.counts["settings loads"] += 1
            elif path == os.path.join(self.root, "SCHEMA.md"):
                self.counts["SCHEMA.md reads"] += 1
        elif (
            event in ("os.scandir", "os.listdir")
            and args
            and isinstance(args[0], (str, os.PathLike))
            and os.path.normpath(os.fspath(args[0])) == self.root
        ):
            self.counts["vault walks"] += 1

    @contextlib.contextmanager
    def counting(self, root: Path) -> Iterator[Counter[str]]:
        self.root = os.path.normpath(str(root))
        self.counts = Counter()
        self.active = True
        try:
            yield self.counts
        finally:
            self.active = False


@contextlib.contextmanager
def palace_opens(counts: Counter[str]) -> Iterator[None]:
    import wikic.palace

    palace_class = wikic.palace.Palace
    original = palace_class.__init__

    def counted(self: Any, *args: Any, **kwargs: Any) -> None:
        counts["palace opens"] += 1
        original(self, *args, **kwargs)

    palace_class.__init__ = counted  # type: ignore[method-assign]
    try:
        yield
    finally:
        palace_class.__init__ = original  # type: ignore[method-assign]


# -- package hops (a profiler) -------------------------------------------------------------------------


def unit_of_file(filename: str, _cache: dict[str, str | None] = {}) -> str | None:  # noqa: B006 - a memo
    unit = _cache.get(filename, "?")
    if unit == "?":
        path = Path(filename)
        try:
            rel = path.resolve().relative_to(PACKAGE)
        except ValueError:
            unit = None
        else:
            unit = rel.parts[0].removesuffix(".py") if rel.parts else None
        _cache[filename] = unit
    return unit


class Hops:
    """The crossing sites between units seen by a profiler (see the module docstring)."""

    def __init__(self) -> None:
        self.sites: dict[tuple[CodeType, CodeType], bool] = {}  # (caller, callee) -> seen as a return
        self.units: set[str] = set()
        self._lock = threading.Lock()

    def profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        unit = unit_of_file(code.co_filename)
        if unit is None:
            return
        self.units.add(unit)
        caller = frame.f_back
        while caller is not None and unit_of_file(caller.f_code.co_filename) is None:
            caller = caller.f_back
        if caller is None:
            return
        caller_unit = unit_of_file(caller.f_code.co_filename)
        if caller_unit == unit:
            return
        key = (caller.f_code, code)
        if self.sites.get(key):
            return  # already known as a return
        below = caller.f_back
        climbs = False
        while below is not None:
            if unit_of_file(below.f_code.co_filename) == unit:
                climbs = True
                break
            below = below.f_back
        with self._lock:
            self.sites[key] = self.sites.get(key, False) or climbs

    @contextlib.contextmanager
    def tracing(self) -> Iterator[None]:
        threading.setprofile(self.profile)
        sys.setprofile(self.profile)
        try:
            yield
        finally:
            sys.setprofile(None)
            threading.setprofile(None)  # type: ignore[arg-type]

    def summary(self) -> dict[str, Any]:
        edges: Counter[str] = Counter()
        for (caller, callee), _ in self.sites.items():
            edges[f"{unit_of_file(caller.co_filename)} -> {unit_of_file(callee.co_filename)}"] += 1
        return {
            "packages": len(self.units),
            "hops": len(self.sites),
            "returns": sum(1 for back in self.sites.values() if back),
            "package edges": len(edges),
            "two-way package pairs": sorted(
                f"{a} <-> {b}" for a, b in (e.split(" -> ") for e in edges) if a < b and f"{b} -> {a}" in edges
            ),
            "units": sorted(self.units),
            "edges": dict(sorted(edges.items())),
            "return sites": sorted(
                f"{unit_of_file(a.co_filename)}.{a.co_name} -> {unit_of_file(b.co_filename)}.{b.co_name}"
                for (a, b), back in self.sites.items()
                if back
            ),
        }


# -- the ingest parts --------------------------------------------------------------------------------


def run_cli(args: list[str]) -> tuple[int, str]:
    from typer.testing import CliRunner

    from wikic.cli import app

    result = CliRunner().invoke(app, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def ingest_parts(n_sources: int, files: FileCounts) -> dict[str, Any]:
    gkit = _load("gkit", REPO / "tests" / "gkit.py")
    standin = _load("standin_openai", REPO / "tests" / "standin_openai.py")
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="wikic-structure-") as tmp, standin.StandinServer() as server:
        server.route = gkit.route
        root = gkit.make_vault(Path(tmp) / "vault", server.base_url)
        sources = gkit.sources(Path(tmp) / "in", n_sources + 1)
        started = time.perf_counter()
        with files.counting(root.resolve()) as counts, palace_opens(counts):
            code, output = run_cli(["ingest", "-C", str(root), *sources[:-1]])
        if code != 0:
            raise SystemExit(f"the ingest of {n_sources} sources failed ({code}):\n{output}")
        out[f"ingest of {n_sources} sources"] = {
            "settings loads": counts["settings loads"],
            "SCHEMA.md reads": counts["SCHEMA.md reads"],
            "vault walks": counts["vault walks"],
            "palace opens": counts["palace opens"],
            "model requests": len(server.chat_requests()),
            "seconds": round(time.perf_counter() - started, 1),
        }
        hops = Hops()
        with files.counting(root.resolve()) as counts, palace_opens(counts), hops.tracing():
            code, output = run_cli(["ingest", "-C", str(root), sources[-1]])
        if code != 0:
            raise SystemExit(f"the ingest of one more source failed ({code}):\n{output}")
        out["ingest of one source"] = {
            "settings loads": counts["settings loads"],
            "SCHEMA.md reads": counts["SCHEMA.md reads"],
            "vault walks": counts["vault walks"],
            "palace opens": counts["palace opens"],
            **hops.summary(),
        }
    return out


# -- the static part -------------------------------------------------------------------------------------


def units() -> list[str]:
    return sorted(
        {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
        | {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    )


def unit_imports() -> dict[str, set[str]]:
    """unit -> the other units it imports (every import, as tests/test_layers.py reads them)."""
    graph: dict[str, set[str]] = {u: set() for u in units()}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE)
        unit = rel.parts[0].removesuffix(".py")
        if unit == "__init__":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            found: set[str] = set()
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                parts = node.module.split(".")
                if parts[0] == "wikic":
                    found = {parts[1]} if len(parts) > 1 else {a.name for a in node.names}
            elif isinstance(node, ast.Import):
                found = {a.name.split(".")[1] for a in node.names if a.name.startswith("wikic.")}
            graph[unit] |= {f for f in found if f in graph and f != unit}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one unit (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def longest_chain(graph: dict[str, set[str]]) -> list[str]:
    """The longest simple path of units, following imports (exhaustive, with a memo when acyclic)."""
    acyclic = not cycles(graph)
    memo: dict[str, list[str]] = {}

    def walk(v: str, seen: frozenset[str]) -> list[str]:
        if acyclic and v in memo:
            return memo[v]
        best: list[str] = []
        for w in sorted(graph[v]):
            if w not in seen:
                path = walk(w, seen | {w})
                if len(path) > len(best):
                    best = path
        result = [v, *best]
        if acyclic:
            memo[v] = result
        return result

    return max((walk(v, frozenset({v})) for v in sorted(graph)), key=len)


class _Complexity(ast.NodeVisitor):
    """McCabe complexity by radon's rules, for when radon is not installed."""

    def __init__(self) -> None:
        self.complexity = 1

    def generic_visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.Try):
            self.complexity += len(node.handlers) + bool(node.orelse)
        elif isinstance(node, ast.BoolOp):
            self.complexity += len(node.values) - 1
        elif isinstance(node, (ast.With, ast.AsyncWith, ast.If, ast.IfExp)):
            self.complexity += 1
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            self.complexity += bool(node.orelse) + 1
        elif isinstance(node, ast.comprehension):
            self.complexity += len(node.ifs) + 1
        elif isinstance(node, ast.Match):
            self.complexity += len(node.cases) - 1 + 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return  # a nested function is a function of its own
        super().generic_visit(node)


def functions() -> list[dict[str, Any]]:
    """Every function and method of wikic/: its lines and cyclomatic complexity."""
    try:
        from radon.complexity import cc_visit  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        cc_visit = None
    out: list[dict[str, Any]] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        radon_cc: dict[tuple[str, int], int] = {}
        if cc_visit is not None:
            for block in cc_visit(text):
                for item in [block, *getattr(block, "methods", [])]:
                    radon_cc[(item.name, item.lineno)] = item.complexity
                for closure in getattr(block, "closures", []):
                    radon_cc[(closure.name, closure.lineno)] = closure.complexity

        def visit(node: ast.AST, prefix: str, rel: str = rel, radon_cc: dict[tuple[str, int], int] = radon_cc) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    name = f"{prefix}{child.name}"
                    first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                    counter = _Complexity()
                    for stmt in child.body:
                        counter.visit(stmt)
                    cc = radon_cc.get((child.name, child.lineno), counter.complexity)
                    out.append({"function": f"{rel}: {name}", "lines": (child.end_lineno or first) - first + 1,
                                "complexity": cc})
                    visit(child, f"{name}.")
                elif isinstance(child, ast.ClassDef):
                    visit(child, f"{prefix}{child.name}.")

        visit(tree, "")
    return out


def static_part(top: int) -> dict[str, Any]:
    graph = unit_imports()
    chain = longest_chain(graph)
    funcs = functions()
    modules = sorted(PACKAGE.rglob("*.py"))
    module_lines = [len(p.read_text(encoding="utf-8").splitlines()) for p in modules]
    by_lines = sorted(funcs, key=lambda f: (-f["lines"], f["function"]))[:top]
    by_cc = sorted(funcs, key=lambda f: (-f["complexity"], f["function"]))[:top]
    return {
        "units (packages and top-level modules)": len(graph),
        "modules": len(modules),
        "mean module lines": round(statistics.mean(module_lines), 1),
        "largest module": max(zip(module_lines, (p.relative_to(REPO).as_posix() for p in modules), strict=True)),
        "functions": len(funcs),
        "mean complexity": round(statistics.mean(f["complexity"] for f in funcs), 2),
        "functions over complexity 20": sum(1 for f in funcs if f["complexity"] > 20),
        "functions over 80 lines": sum(1 for f in funcs if f["lines"] > 80),
        "unit import edges": sum(len(v) for v in graph.values()),
        "import cycles": cycles(graph),
        "longest import chain": len(chain),
        "the chain": " -> ".join(chain),
        "largest by lines": by_lines,
        "largest by complexity": by_cc,
        "complexity by": "radon" if importlib.util.find_spec("radon") else "ast (radon's rules)",
    }


# -- output --------------------------------------------------------------------------------------------


def render(figures: dict[str, Any]) -> str:
    lines: list[str] = []
    for part, values in figures.items():
        lines.append(f"## {part}")
        for key, value in values.items():
            if key in ("largest by lines", "largest by complexity"):
                lines.append(f"{key}:")
                lines += [f"  {f['lines']:4d} lines  CC {f['complexity']:3d}  {f['function']}" for f in value]
            elif key in ("edges", "units", "return sites"):
                continue  # in the JSON
            else:
                lines.append(f"{key}: {value}")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("all", "ingest", "static"), default="all")
    parser.add_argument("--sources", type=int, default=40)
    parser.add_argument("--top", type=int, default=8, help="functions listed by lines and by complexity")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    figures: dict[str, Any] = {}
    if args.part in ("all", "ingest"):
        figures |= ingest_parts(args.sources, FileCounts())
    if args.part in ("all", "static"):
        figures["code"] = static_part(args.top)
    print(render(figures))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
