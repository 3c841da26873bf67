"""The map of `wikic/`: every unit (a package `wikic/X/`, or a top-level module `wikic/X.py`), what it is, and
the units it may import, bottom layer first. What each unit imports, read from its source (every import, also
one inside a function or under TYPE_CHECKING), is held to the table: an edge the table does not allow fails.
A unit imports only units above it in the table, so the table is the layering, and has no cycle.
ARCHITECTURE.md's layer list is this table (`python tests/test_layers.py` prints it)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "wikic"
ARCHITECTURE = PACKAGE.parent / "ARCHITECTURE.md"

# (unit, what it is, the units it may import), bottom layer first, under the layer's name. `__init__` is the
# package itself (its version).
LAYERS: list[tuple[str, str, set[str]] | str] = [
    "ground",
    ("__init__", "the version", set()),
    ("errors", "the error types, each with its exit code and hint; the check of an extra", set()),
    ("progress", "the progress events long work reports", set()),
    ("redact", "secrets (an API key, a URL's credentials) masked wherever text is shown", set()),
    ("resources", "the shipped templates and SCHEMA.md", set()),
    ("text", "text alone: the token estimate, scripts, sentences, terms, HTML and PDF text", {"errors"}),
    "the vault model",
    ("vault", "the vault model: layout, SCHEMA.md, notes parsed, links resolved, in-page formats, state files",
     {"__init__", "errors", "resources", "text"}),
    ("config_file", "wikic.toml read (lines of keys, syntax errors), its fingerprint", {"__init__", "errors", "vault"}),
    ("settings", "the settings: wikic.toml, the environment and the flags, validated",
     {"config_file", "errors", "redact"}),
    ("facts", "facts over time: claims with their intervals, read from the pages", {"errors", "text", "vault"}),
    ("pages", "the one writer of wiki content: the journal, the vault lock, index.md, log.md, blocks",
     {"resources", "text", "vault"}),
    ("graph_export", "the link graph as a report", {"errors", "vault"}),
    ("mcp_tools", "the MCP server's tools as data (names, what each may do, descriptions)", {"vault"}),
    ("conversations", "chat exports and the capture queue turned into transcripts",
     {"config_file", "errors", "progress", "text", "vault"}),
    ("hubs", "the hub pages planned: index.md's entries, overview.md, a page per source",
     {"facts", "pages", "resources", "vault"}),
    "models and search",
    ("user_config", "the user's config outside every vault: trusted endpoints, the MCP token",
     {"config_file", "errors", "redact", "settings", "vault"}),
    ("llm", "the model client, typed replies, the reply cache", {"errors", "redact", "settings", "text", "vault"}),
    ("embed", "the embedding models", {"errors", "llm", "redact", "settings", "text"}),
    ("palace", "the search index over pages and sources (chromadb)",
     {"__init__", "config_file", "embed", "errors", "progress", "redact", "settings", "text", "vault"}),
    ("context", "the vault opened once: settings, SCHEMA.md, palace and model, each read on first use",
     {"config_file", "llm", "palace", "settings", "vault"}),
    "deciding",
    ("lint", "the rules, their run and report cache, the safe fixes",
     {"__init__", "context", "errors", "facts", "hubs", "pages", "text", "vault"}),
    ("memory", "memories merged into pages, recalled; the wake-up briefing",
     {"context", "embed", "errors", "hubs", "pages", "settings", "text", "vault"}),
    ("compile", "an anchored plan made pages: claims placed, pages rendered and merged, prose composed",
     {"errors", "facts", "llm", "memory", "pages", "resources", "text", "vault"}),
    ("query", "questions answered from the palace, citations checked, answers filed",
     {"context", "errors", "facts", "hubs", "llm", "pages", "palace", "resources", "settings", "text", "vault"}),
    ("ingest", "sources captured, extracted and anchored; the run that compiles, composes and indexes them",
     {"compile", "context", "conversations", "errors", "facts", "hubs", "lint", "llm", "memory", "pages", "palace",
      "progress", "settings", "text", "vault"}),
    ("review", "a run kept as a proposal: shown, accepted whole or in part, or rejected",
     {"compile", "context", "errors", "ingest", "lint", "llm", "pages", "palace", "progress", "query", "vault"}),
    ("evaluation", "the quality report: figures checked by code, per page and whole, a score",
     {"__init__", "compile", "context", "errors", "facts", "hubs", "ingest", "lint", "llm", "pages", "progress",
      "settings", "text", "vault"}),
    ("export", "the wiki outside Obsidian: a static site with each citation's lines at hand",
     {"__init__", "context", "errors", "evaluation", "hubs", "pages", "text", "vault"}),
    ("status", "what the vault holds and how it stands",
     {"__init__", "context", "conversations", "errors", "evaluation", "lint", "pages", "palace", "review", "settings",
      "vault"}),
    ("json_schemas", "the JSON schemas shipped in schema/, generated from the models",
     {"ingest", "llm", "resources", "vault"}),
    "faces",
    ("mcp_server", "the MCP server: each tool a thin call into the library",
     {"__init__", "context", "errors", "evaluation", "facts", "ingest", "lint", "mcp_tools", "memory", "palace",
      "query", "review", "status", "user_config", "vault"}),
    ("search_server", "`wikic serve`: the palace kept loaded for `wikic search`",
     {"config_file", "context", "errors", "palace", "query", "vault"}),
    ("cli", "the command line: each command parses, calls one library function, renders",
     {"__init__", "context", "conversations", "errors", "evaluation", "export", "facts", "graph_export", "hubs",
      "ingest", "lint", "mcp_server", "mcp_tools", "memory", "palace", "progress", "query", "review",
      "search_server", "status", "user_config", "vault"}),
    ("__main__", "python -m wikic", {"cli"}),
]
UNIT_ROWS = [row for row in LAYERS if not isinstance(row, str)]
ALLOWED = {unit: allowed for unit, _, allowed in UNIT_ROWS}
UNITS = sorted(
    {p.stem for p in PACKAGE.glob("*.py")} | {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
)


def _imports(unit: str, package: Path = PACKAGE) -> dict[str, set[str]]:
    """For each module of the package or top-level module `unit`: the `wikic` units it imports."""
    root = package / unit
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
        # `from wikic import __version__` imports the package itself
        found = {"__init__" if name == "__version__" else name for name in found}
        out[path.relative_to(package.parent).as_posix()] = found - {unit}
    return out


def _forbidden(unit: str, package: Path = PACKAGE) -> dict[str, list[str]]:
    """The modules of `unit` that import a unit the table does not allow it, and those units."""
    found = {module: sorted(units - ALLOWED[unit]) for module, units in _imports(unit, package).items()}
    return {module: units for module, units in found.items() if units}


def test_the_table_covers_every_unit_once() -> None:
    names = [unit for unit, _, _ in UNIT_ROWS]
    assert len(names) == len(set(names))
    assert sorted(names) == UNITS


def test_the_table_is_a_layering() -> None:
    # each unit may import only units below it: the table has no cycle, and its order is the layers'
    seen: set[str] = set()
    for unit, _, allowed in UNIT_ROWS:
        assert allowed <= seen, (unit, sorted(allowed - seen))
        seen.add(unit)


@pytest.mark.parametrize("unit", UNITS)
def test_each_unit_imports_only_what_the_table_allows(unit: str) -> None:
    assert _forbidden(unit) == {}


def test_a_forbidden_edge_fails_also_inside_a_function_or_under_type_checking(tmp_path: Path) -> None:
    (tmp_path / "wikic" / "lint").mkdir(parents=True)
    (tmp_path / "wikic" / "lint" / "probe.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from wikic.llm.client import LLM\n\n\n"
        "def f():\n    from wikic.palace import search\n    import wikic.ingest.pipeline\n",
        encoding="utf-8",
    )
    assert _forbidden("lint", tmp_path / "wikic") == {"wikic/lint/probe.py": ["ingest", "llm", "palace"]}


def render() -> str:
    """The table as ARCHITECTURE.md's layer list."""
    rows = ["| layer | unit | what it is | may import |", "|---|---|---|---|"]
    layer = ""
    for row in LAYERS:
        if isinstance(row, str):
            layer = row
            continue
        unit, what, allowed = row
        name = f"`{unit}.py`" if (PACKAGE / f"{unit}.py").is_file() else f"`{unit}/`"
        imports = ", ".join(f"`{u}`" for u in sorted(allowed)) or "nothing of wikic"
        rows.append(f"| {layer} | {name} | {what} | {imports} |")
        layer = ""
    return "\n".join(rows)


def test_the_architecture_lists_the_layers_of_the_table() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    found = re.search(r"<!-- layers: begin -->\n(.*?)\n<!-- layers: end -->", text, re.DOTALL)
    assert found is not None, "ARCHITECTURE.md has no layer list between its markers"
    assert found.group(1) == render(), "run `python tests/test_layers.py` and paste its table into ARCHITECTURE.md"



def test_the_architecture_page_is_read_in_minutes() -> None:
    # the map, the layers, the glossary and the rules; what is detail belongs in the docstrings of its package
    assert len(ARCHITECTURE.read_bytes()) <= 12 * 1024


if __name__ == "__main__":
    print(render())
