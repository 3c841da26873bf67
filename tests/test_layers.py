"""The layers import only downward: what each package of `wikic/` imports, read from its source (every
import, also one inside a function), held to the rules of ARCHITECTURE.md's layering."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "wikic"
# What may sit under `pages`, the only writer: the vault model, text and the ground (errors, settings, shipped files).
BELOW_PAGES = {"pages", "vault", "text", "errors", "settings", "resources"}
ABOVE_VAULT = {"pages", "ingest", "query", "lint", "palace", "llm", "memory", "facts", "hubs", "cli", "mcp",
               "mcp_server", "status", "graph_export", "config_file", "progress"}
DECIDING_ELSEWHERE = {"llm", "palace", "ingest", "query"}
FACES = {"cli", "mcp", "mcp_server", "__main__"}


def _imports(unit: str) -> dict[str, set[str]]:
    """For each module of the package or top-level module `unit`: the `wikic` units it imports."""
    root = PACKAGE / unit
    files = sorted(root.rglob("*.py")) if root.is_dir() else [root.with_suffix(".py")]
    out: dict[str, set[str]] = {}
    for path in files:
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                parts = node.module.split(".")
                if parts[0] == "wikic":
                    found |= {parts[1]} if len(parts) > 1 else {alias.name for alias in node.names}
            elif isinstance(node, ast.Import):
                found |= {a.name.split(".")[1] for a in node.names if a.name.startswith("wikic.")}
        out[path.relative_to(PACKAGE.parent).as_posix()] = found - {unit}
    return out


def _offending(unit: str, allowed: set[str] | None = None, forbidden: set[str] = frozenset()) -> dict[str, list[str]]:
    bad = {}
    for module, units in _imports(unit).items():
        wrong = sorted(u for u in units if (allowed is not None and u not in allowed) or u in forbidden)
        if wrong:
            bad[module] = wrong
    return bad


def test_pages_imports_only_the_vault_text_and_the_ground() -> None:
    assert _offending("pages", allowed=BELOW_PAGES) == {}


def test_the_vault_model_imports_nothing_above_it() -> None:
    assert _offending("vault", forbidden=ABOVE_VAULT) == {}


def test_lint_decides_alone() -> None:
    assert _offending("lint", forbidden=DECIDING_ELSEWHERE) == {}


def test_the_hubs_are_planned_from_the_vault_alone() -> None:
    # ingest, query write-back, lint --fix and init all plan hubs: the hubs import none of them, nor a model
    assert _offending("hubs", forbidden={*DECIDING_ELSEWHERE, "lint", "memory", "status"}) == {}


UNITS = sorted(
    {p.stem for p in PACKAGE.glob("*.py")} | {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
)


@pytest.mark.parametrize("unit", [u for u in UNITS if u not in FACES and u != "__init__"])
def test_nothing_below_the_faces_imports_one(unit: str) -> None:
    assert _offending(unit, forbidden=FACES) == {}


def test_imports_inside_functions_count() -> None:
    # ingest imports the palace only where it uses it (inside functions): the walk must still see it
    assert "palace" in _imports("ingest")["wikic/ingest/pipeline.py"]


# Facts over time is read by the compiler, lint, query and the palace; it reads only the pages and the vault.
ABOVE_FACTS = {"ingest", "query", "lint", "palace", "llm", "memory", "status", "hubs"}


def test_facts_sit_below_everything_that_reads_them() -> None:
    assert _offending("facts", forbidden=ABOVE_FACTS) == {}


@pytest.mark.parametrize("below", ["lint", "palace"])
def test_nothing_ingest_builds_on_imports_ingest(below: str) -> None:
    assert _offending(below, forbidden={"ingest"}) == {}
