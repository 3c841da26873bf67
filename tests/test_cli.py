"""The command line: `wikic init`, `lint` and `graph` end to end, help texts, errors, and bad inputs.

Commands run in-process through Typer's CliRunner (stdout and stderr apart); one test runs the real
console script to see what a person sees on a terminal.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
import typer
from testkit import make_vault, page
from typer.testing import CliRunner

from wikic.cli import app
from wikic.vault.schema_md import load as load_schema

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "example-vault"

LAYOUT_DIRS = [
    "raw/articles", "raw/papers", "raw/transcripts", "raw/assets", "entities", "concepts", "comparisons", "queries",
    "sources", "inbox", ".obsidian", ".wikic",
]
LAYOUT_FILES = [
    "SCHEMA.md", "index.md", "overview.md", "log.md", "wikic.toml", ".obsidian/app.json", ".obsidian/graph.json",
    ".obsidian/types.json", ".gitignore",
]


def run(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args))
    # an exception other than SystemExit is a crash (a traceback for the user)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def snapshot(root: Path, skip_state: bool = True) -> dict[str, tuple[str, int]]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        if skip_state and rel.parts[:1] == (".wikic",):
            continue
        for name in [*filenames, *(d + "/" for d in dirnames)]:
            path = Path(dirpath) / name
            if name.endswith("/") or path.is_symlink():
                out[(rel / name).as_posix()] = ("", 0)
            else:
                out[(rel / name).as_posix()] = (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns)
    return out


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """A copy of example-vault (lint and graph write their cache under .wikic/)."""
    dest = tmp_path / "example-vault"
    shutil.copytree(EXAMPLE, dest, ignore=shutil.ignore_patterns(".wikic"))
    return dest


# ---- init --------------------------------------------------------------------------------------------


def test_init_creates_the_contract_layout(tmp_path: Path) -> None:
    root = tmp_path / "my wiki"
    result = run("init", str(root))
    assert result.exit_code == 0, result.output
    for folder in LAYOUT_DIRS:
        assert (root / folder).is_dir(), folder
    for name in LAYOUT_FILES:
        assert (root / name).is_file(), name
    app_json = json.loads((root / ".obsidian/app.json").read_text())
    assert app_json["useMarkdownLinks"] is False
    assert app_json["newLinkFormat"] == "shortest"
    assert app_json["alwaysUpdateLinks"] is True
    assert app_json["attachmentFolderPath"] == "raw/assets"
    types = json.loads((root / ".obsidian/types.json").read_text())["types"]
    assert (
        types["tags"] == "tags"
        and types["aliases"] == "aliases"
        and types["sources"] == "multitext"
        and types["created"] == "date"
    )
    graph = json.loads((root / ".obsidian/graph.json").read_text())
    assert {g["query"] for g in graph["colorGroups"]} == {
        "path:entities",
        "path:concepts",
        "path:comparisons",
        "path:queries",
        "path:sources",
    }
    assert not (root / ".obsidian/workspace.json").exists()
    gitignore = (root / ".gitignore").read_text().split("\n")
    assert ".wikic/*" in gitignore and "!.wikic/compiled.json" in gitignore and ".obsidian/workspace.json" in gitignore
    assert (root / "index.md").read_text() == (
        "# Wiki Index\n\nStart with the [[overview]]: what this wiki covers, its main subjects and what changed "
        "lately.\n\n## Entities\n## Concepts\n## Comparisons\n## Queries\n## Sources\n"
    )
    overview = (root / "overview.md").read_text()
    assert overview.startswith("# Overview\n") and "Nothing is compiled yet" in overview
    assert (
        (root / "log.md")
        .read_text()
        .startswith("# Wiki Log\n\n| Date | Action | Target | Notes |\n|------|--------|--------|-------|\n")
    )
    schema = load_schema(root)
    assert schema.present and schema.problems == ()
    assert set(schema.thresholds) >= {
        "entity_min_references",
        "concept_min_sections",
        "comparison_min_axes",
        "query_max_age_days",
    }
    assert schema.naming == "lowercase-with-hyphens.md" and schema.tags
    assert "created  SCHEMA.md" in result.stdout


def test_init_twice_changes_nothing_and_never_overwrites(tmp_path: Path) -> None:
    root = tmp_path / "wiki"
    (root / "entities").mkdir(parents=True)
    (root / "SCHEMA.md").write_text("# Wiki Schema\n## Domain\nMine\n## Taxonomy Tags\n- #mine\n")
    (root / "index.md").write_text("my index\n")
    first = run("init", str(root), "--json")
    data = json.loads(first.stdout)
    assert "SCHEMA.md" in data["existing"] and "index.md" in data["existing"] and "entities/" in data["existing"]
    assert "log.md" in data["created"] and "entities/" not in data["created"]
    assert (root / "SCHEMA.md").read_text() == "# Wiki Schema\n## Domain\nMine\n## Taxonomy Tags\n- #mine\n"
    # the person's index is kept, and leads to the overview init wrote
    assert "overview.md" in data["created"] and "This wiki covers Mine." in (root / "overview.md").read_text()
    assert (root / "index.md").read_text() == (
        "Start with the [[overview]]: what this wiki covers, its main subjects and what changed lately.\n\nmy index\n"
    )
    before = snapshot(root, skip_state=False)
    second = run("init", str(root))
    assert second.exit_code == 0
    assert second.stdout == f"{root.resolve()}: already a vault, nothing to do\n"

    def without_caches(files: dict[str, tuple[str, int]]) -> dict[str, tuple[str, int]]:
        return {path: value for path, value in files.items() if not path.startswith(".wikic/cache/")}

    assert without_caches(snapshot(root, skip_state=False)) == without_caches(before)
    assert json.loads(run("init", str(root), "--json").stdout)["created"] == []


def test_a_note_made_in_obsidian_lints_clean(tmp_path: Path) -> None:
    """Obsidian puts a new note where .obsidian/app.json says: a folder init made, outside the page folders,
    so the note is linted for its links only (not as a wiki page without frontmatter or index entry)."""
    root = tmp_path / "v"
    run("init", str(root))
    settings = json.loads((root / ".obsidian/app.json").read_text())
    assert settings["newFileLocation"] == "folder"
    folder = root / settings["newFileFolderPath"]
    assert folder.is_dir()
    (folder / "Untitled.md").write_text("")  # what Obsidian's "New note" writes
    (folder / "Meeting 2026-01-05.md").write_text("# Meeting\n\nTalked about [[index]] and [[Missing page]].\n")
    result = run("lint", str(root), "--strict", "--format", "json")
    findings = [(f["rule"], f["path"]) for f in json.loads(result.stdout)["findings"]]
    assert findings == [("broken-wikilink", "inbox/Meeting 2026-01-05.md")]
    (folder / "Meeting 2026-01-05.md").write_text("# Meeting\n\nTalked about [[index]].\n")
    assert run("lint", str(root), "--strict").exit_code == 0


def test_init_in_an_obsidian_vault_keeps_its_notes_linted(tmp_path: Path) -> None:
    """An existing vault's notes outside the page folders keep their link findings after `wikic init`."""
    root = tmp_path / "My Vault"
    notes = {
        "Home.md": "# Home\n\n[[Projects/Plan]] [[Nowhere]]\n",
        "Projects/Plan.md": "---\ntags: [unclosed\n---\n[[Home]] [[Home#No such heading]]\n",
        "Daily/2026-01-01.md": "no frontmatter, not in any index. [[dup]] [[Plan]]\n",
        "a/dup.md": "x\n",
        "b/dup.md": "y\n",
    }
    for rel, text in notes.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    link_rules = "broken-wikilink,ambiguous-link,malformed-link"

    def findings(*args: str) -> list[tuple[str, str, int | None]]:
        out = json.loads(run("lint", str(root), "--format", "json", "--no-cache", *args).stdout)["findings"]
        return [(f["rule"], f["path"], f["line"]) for f in out]

    before = findings("--select", link_rules)
    assert before == [
        ("ambiguous-link", "Daily/2026-01-01.md", 1),
        ("broken-wikilink", "Home.md", 3),
        ("broken-wikilink", "Projects/Plan.md", 4),
    ]
    assert run("init", str(root)).exit_code == 0
    assert findings("--select", link_rules) == before
    # the schema governs the wiki pages only: nothing else is said about the notes
    assert [f for f in findings() if f[1] in notes] == before


def test_init_on_a_file_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    result = run("init", str(tmp_path / "file"))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"Error: {tmp_path / 'file'} exists and is not a folder\n"
        "Hint: give the name of a new folder, or of an existing one\n"
    )


def test_a_fresh_vault_lints_clean(tmp_path: Path) -> None:
    run("init", str(tmp_path / "v"))
    result = run("lint", str(tmp_path / "v"), "--strict")
    assert result.exit_code == 0, result.stdout


# ---- lint on the example vault ----------------------------------------------------------------------


# the begin marker of a block an earlier version wrote per source (`facts:<source>`, `section:<name>:<source>`)
_PER_SOURCE_BLOCK = re.compile(r"^<!-- wikic:begin (?:facts:|section:[^:\s]+:(?!more )\S)", re.M)


def _unexpected(root: Path, findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The findings a vault wikic wrote should not have. A page still in the per-source layout of an earlier
    version may be reported by `source-sections`: that rule is there to find such pages, which a recompile
    writes by topic."""

    def per_source(f: dict[str, Any]) -> bool:
        return f["rule"] == "source-sections" and bool(
            _PER_SOURCE_BLOCK.search((root / f["path"]).read_text(encoding="utf-8")))

    return [f for f in findings if f["severity"] != "info" and not per_source(f)]


def _strict_exit(findings: list[dict[str, Any]]) -> int:
    return 1 if any(f["severity"] != "info" for f in findings) else 0


def test_example_vault_is_lint_clean_under_strict(example: Path) -> None:
    result = run("lint", str(example), "--strict", "--as-of", "2026-11-29", "--json")
    data = json.loads(result.stdout)
    assert _unexpected(example, data["findings"]) == []
    assert result.exit_code == _strict_exit(data["findings"]), result.stdout
    assert data["summary"]["pages"] == 19


def test_example_vault_in_the_repo_lints_clean_without_writing(tmp_path: Path) -> None:
    before = snapshot(EXAMPLE)
    result = run("lint", str(EXAMPLE), "--strict", "--as-of", "2026-11-29", "--no-cache", "--json")
    findings = json.loads(result.stdout)["findings"]
    assert _unexpected(EXAMPLE, findings) == []
    assert result.exit_code == _strict_exit(findings), result.stdout
    assert snapshot(EXAMPLE) == before


def test_lint_finds_the_vault_from_a_subfolder(example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(example / "entities")
    result = run("lint", "--as-of", "2026-11-29", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["summary"]["pages"] == 19


def test_ingest_prints_its_lint_findings_as_lint_does() -> None:
    from wikic.ingest.pipeline import IngestReport
    from wikic.ingest.report import render_report
    from wikic.lint.finding import Finding
    from wikic.lint.render import text
    from wikic.lint.run import LintReport

    findings = [
        Finding("frontmatter", "warning", "SCHEMA.md", None, None, "unknown section '## Extra'"),
        Finding("broken-wikilink", "error", "entities/a.md", 12, 5, "link target 'ghost' does not exist"),
    ]
    lint = LintReport("v", findings, pages=1, links=1, seconds=0.0)
    shown = render_report(IngestReport(lint=lint)).splitlines()
    assert shown[-3].startswith("lint: 1 error(s)")
    assert shown[-2:] == [
        "  SCHEMA.md: warning frontmatter unknown section '## Extra'",
        "  entities/a.md:12:5: error broken-wikilink link target 'ghost' does not exist",
    ]
    assert [f"  {line}" for line in text(lint).splitlines()[:-1]] == shown[-2:]


# ---- graph ---------------------------------------------------------------------------------------------


def test_graph_text(example: Path) -> None:
    result = run("graph", "--vault", str(example), "--top", "3")
    assert result.exit_code == 0
    lines = result.stdout.split("\n")
    assert lines[0] == "19 pages, 561 links (0 broken, 273 citing raw sources), 31 files"
    assert lines[1] == "1 connected component(s); the largest holds 19 pages"
    assert lines[2:6] == [
        "most linked:",
        "    23  entities/ollama.md",
        "    19  entities/qwen3.md",
        "    19  concepts/retrieval-augmented-generation.md",
    ]


def test_graph_json(example: Path) -> None:
    data = json.loads(run("graph", "--vault", str(example), "--json").stdout)
    keys = ("pages", "files", "links", "resolved_links", "broken_links", "citations", "components", "largest_component")
    assert {k: data[k] for k in keys} == {
        "pages": 19,
        "files": 31,
        "links": 561,
        "resolved_links": 561,
        "broken_links": 0,
        "citations": 273,
        "components": 1,
        "largest_component": 19,
    }
    assert (
        data["isolated_pages"] == []
        and data["dead_ends"] == []
        and data["wanted_pages"] == []
        and data["written"] == []
    )
    assert data["missing_sources"] == []
    assert data["most_linked"][0] == {"path": "entities/ollama.md", "inbound": 23}


def test_graph_reports_broken_and_wanted_pages(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {"a.md": "[[ghost]] [[ghost]] [[b]]\n", "b.md": "x\n", "lone.md": "y\n"}, schema=False)
    data = json.loads(run("graph", "--vault", str(root), "--json").stdout)
    assert (data["pages"], data["links"], data["broken_links"], data["components"]) == (3, 3, 2, 2)
    assert data["wanted_pages"] == [{"target": "ghost", "links": 2}]
    assert data["dead_ends"] == ["b.md", "lone.md"] and data["isolated_pages"] == ["lone.md"]


def test_graph_exports_load_back(example: Path, tmp_path: Path) -> None:
    graphml, node_link = tmp_path / "out dir" / "g.graphml", tmp_path / "g.json"
    graphml.parent.mkdir()
    result = run("graph", "--vault", str(example), "--graphml", str(graphml), "--json-file", str(node_link))
    assert result.exit_code == 0
    assert f"wrote {graphml}" in result.stdout and f"wrote {node_link}" in result.stdout
    g = nx.read_graphml(graphml, force_multigraph=True)
    assert isinstance(g, nx.MultiDiGraph)
    assert g.number_of_nodes() == 31 and g.number_of_edges() == 561
    assert g.nodes["entities/chroma.md"] == {"kind": "note", "type": "entity", "title": "Chroma"}
    assert g.nodes["raw/assets/rag-pipeline.png"]["kind"] == "attachment"
    edges = g.get_edge_data("entities/chroma.md", "concepts/embeddings.md")
    assert edges and all(e["kind"] == "wikilink" and e["line"] >= 1 and e["column"] >= 1 for e in edges.values())
    cited = g.get_edge_data("entities/chroma.md", "raw/articles/vector-databases-field-notes.md")
    assert cited and all(e["citation"] for e in cited.values())
    h = nx.node_link_graph(json.loads(node_link.read_text(encoding="utf-8")), edges="links")
    assert sorted(h.nodes) == sorted(g.nodes) and h.number_of_edges() == 561 and h.is_multigraph() and h.is_directed()


def test_graph_export_to_an_impossible_path_is_a_usage_error(example: Path, tmp_path: Path) -> None:
    result = run("graph", "--vault", str(example), "--graphml", str(tmp_path / "no" / "such" / "g.graphml"))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: cannot write {tmp_path / 'no' / 'such' / 'g.graphml'}")


# ---- help and errors ---------------------------------------------------------------------------------------


def command_names() -> list[str]:
    group = typer.main.get_command(app)
    return sorted(group.commands)  # type: ignore[attr-defined]


def test_the_commands_of_this_suite_are_registered() -> None:
    assert {"init", "lint", "graph"} <= set(command_names())


@pytest.mark.parametrize("name", command_names())
def test_every_command_has_help_with_an_example(name: str) -> None:
    result = run(name, "--help")
    assert result.exit_code == 0
    assert "Example:" in result.stdout, f"`wikic {name} --help` shows no example"


# Typer's own help named values by Python type and ate Rich markup: none of that may reach a person.
HELP_ARTEFACTS = re.compile(r"<[a-z][\w\[\], ]*>|\[\[[A-Z]+\]\]|\{[a-z_]+\}|\[\]")


@pytest.mark.parametrize("name", ["", *command_names()])
def test_help_shows_no_type_names_or_eaten_markup(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")  # narrow: wrapping must not break an example either
    result = run(*([name] if name else []), "--help")
    assert result.exit_code == 0
    assert HELP_ARTEFACTS.findall(result.stdout) == [], result.stdout
    if name:
        command = typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]
        example = next(line for line in command.help.splitlines() if line.strip().startswith("Example:")).strip()
        assert f"  {example}\n" in result.stdout, "the example is rewrapped"


def test_help_keeps_brackets_written_in_it() -> None:
    assert "every [[link]] in it is checked" in " ".join(run("query", "--help").stdout.split())
    assert "or [llm] max_output_tokens if lower" in " ".join(run("query", "--help").stdout.split())
    usage = {name: run(name, "--help").stdout.splitlines()[0] for name in ("lint", "init", "search")}
    assert usage == {
        "lint": "Usage: wikic lint [OPTIONS] [VAULT [FILE]]...",
        "init": "Usage: wikic init [OPTIONS] [DIR]",
        "search": "Usage: wikic search [OPTIONS] [QUERY]",
    }


def test_help_names_arguments_however_their_metavar_is_written() -> None:
    from wikic.cli._help import HelpCommand

    tiny = typer.Typer(rich_markup_mode=None)

    @tiny.command(cls=HelpCommand)
    def one(sources: list[str] | None = typer.Argument(None, metavar="[SOURCE]...", help="Files."), k: int = 1) -> None:  # noqa: B008 - the old default style is the case under test
        """Example: one a b"""

    @tiny.command(cls=HelpCommand)
    def two(names: list[str] = typer.Argument(..., help="Names.")) -> None:  # noqa: B008 - as above
        """Example: two a"""

    runner = CliRunner()
    one_help = runner.invoke(tiny, ["one", "--help"]).stdout
    assert one_help.startswith("Usage: root one [OPTIONS] [SOURCE]...\n")
    assert "  SOURCE...  Files." in one_help and "--k INTEGER" in one_help
    assert runner.invoke(tiny, ["two", "--help"]).stdout.startswith("Usage: root two [OPTIONS] NAMES...\n")


def test_top_level_help_and_version() -> None:
    result = run("--help")
    assert result.exit_code == 0 and "lint" in result.stdout and "graph" in result.stdout
    assert run("--version").stdout == "wikic 0.1.0\n"


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["lint", "{missing}"], id="lint-argument"),
        pytest.param(["lint", "--vault", "{missing}"], id="lint-option"),
        pytest.param(["graph", "--vault", "{missing}"], id="graph"),
    ],
)
def test_missing_vault_is_a_usage_error(tmp_path: Path, args: list[str]) -> None:
    missing = str(tmp_path / "no such [vault]")
    result = run(*(a.replace("{missing}", missing) for a in args))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == f"Error: vault folder does not exist: {missing}\nHint: {MISSING_VAULT_HINT}\n"


MISSING_VAULT_HINT = (
    "give the folder of a vault with --vault DIR (or run the command inside it); `wikic init DIR` makes a new one"
)

NEEDS_A_VAULT = [
    pytest.param(["search", "tomatoes"], id="search"),
    pytest.param(["search", "--batch", "-"], id="search-batch"),
    pytest.param(["index"], id="index"),
    pytest.param(["query", "where do the tomatoes go?"], id="query"),
    pytest.param(["query", "--refresh", "queries/x.md"], id="query-refresh"),
    pytest.param(["status"], id="status"),
    pytest.param(["status", "--no-lint", "--json"], id="status-json"),
    pytest.param(["ingest", "{note}"], id="ingest"),
    pytest.param(["mcp"], id="mcp"),
]


def plain_folder(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "Projects").mkdir(parents=True)
    (root / "Projects/Garden.md").write_text("# Garden\n\nThe tomatoes go in the south bed. [[Ideas]]\n")
    (root / "Daily.md").write_text("Planted basil next to [[Garden]].\n")
    return root


@pytest.mark.parametrize("args", NEEDS_A_VAULT)
@pytest.mark.parametrize("how", ["--vault", "cwd"])
def test_a_command_that_needs_a_vault_refuses_a_plain_folder_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], how: str
) -> None:
    root = plain_folder(tmp_path)
    args = [a.replace("{note}", str(root / "Daily.md")) for a in args]
    before = snapshot(root, skip_state=False)
    if how == "cwd":
        monkeypatch.chdir(root)
        result = run(*args)
    else:
        result = run(*args, "--vault", str(root))
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines()[-2:] == [
        f"Error: {root.resolve()} is not a wikic vault (no SCHEMA.md)",
        "Hint: run `wikic init` to make it one, or give a vault with --vault DIR",
    ]
    assert snapshot(root, skip_state=False) == before


@pytest.mark.parametrize(
    "args, code, shown",
    [
        (["lint"], 1, "Projects/Garden.md:3:35: error broken-wikilink"),
        (["lint", "--format", "json", "--strict"], 1, '"target": "Ideas"'),
        (["graph"], 0, "2 pages, 2 links (1 broken)"),
        (["graph", "--json"], 0, '"broken_links": 1'),
    ],
)
def test_lint_and_graph_read_a_plain_folder_and_leave_it_as_it_was(
    tmp_path: Path, args: list[str], code: int, shown: str
) -> None:
    root = plain_folder(tmp_path)
    before = snapshot(root, skip_state=False)
    result = run(*args, "--vault", str(root))
    assert result.exit_code == code, result.output
    assert shown in result.stdout
    assert snapshot(root, skip_state=False) == before


def test_lint_of_a_plain_folder_keeps_a_cache_when_asked(tmp_path: Path) -> None:
    root = plain_folder(tmp_path)
    first = run("lint", str(root), "--cache", "--format", "json")
    # its broken link's "did you mean" name is kept too, and broken-wikilink's findings with the files they are of
    assert sorted(p.name for p in (root / ".wikic" / "cache").iterdir()) == [
        "close-names.json", "lint-base.json", "lint-files", "lint-report.json", "parse-cache.jsonl",
        "rule-broken-wikilink.json", "settings-checked.json"]
    again = run("lint", str(root), "--cache", "--format", "json")
    assert json.loads(again.stdout)["findings"] == json.loads(first.stdout)["findings"]


def test_vault_that_is_a_file_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "f.md").write_text("x")
    result = run("lint", "--vault", str(tmp_path / "f.md"))
    assert (result.exit_code, result.stderr) == (
        2,
        f"Error: vault is not a folder: {tmp_path / 'f.md'}\n"
        "Hint: give the vault's folder, not a file in it, with --vault DIR\n",
    )


@pytest.mark.slow  # a wikic process
def test_the_console_script_prints_no_traceback(tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("wikic")
    command = [str(exe)] if exe.exists() else [sys.executable, "-c", "from wikic.cli import main; main()"]
    proc = subprocess.run(
        [*command, "lint", str(tmp_path / "nope")], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 2
    assert proc.stderr == f"Error: vault folder does not exist: {tmp_path / 'nope'}\nHint: {MISSING_VAULT_HINT}\n"
    assert proc.stdout == ""


# ---- bad inputs: a finding or a clear error naming the file, never a traceback, nothing written -------------

OK_PAGES = {
    "entities/a.md": page("A", body="[[b]] [[c]]\n"),
    "entities/b.md": page("B", body="[[a]] [[c]]\n"),
    "entities/c.md": page("C", body="[[a]] [[b]]\n"),
}


def _huge() -> bytes:
    return ("---\ntitle: Huge\n---\n" + ("text [[a]] more text " * 10 + "\n") * 95_000).encode()


BAD_INPUTS = [
    pytest.param("entities/latin.md", "caf\u00e9 [[a]]\n".encode("latin-1"), [("encoding", "error", 1)], id="non-utf8"),
    pytest.param(
        "entities/bin.md", b"\x00\x01\x02\x03binary\xff", [("encoding", "error", None)], id="binary-in-a-page-folder"
    ),
    pytest.param(
        "entities/yaml.md", b"---\ntitle: Y\ntags: [a, b\n---\n", [("frontmatter", "error", 3)], id="invalid-yaml"
    ),
    pytest.param(
        "entities/open.md", b"---\ntitle: Y\n# body\n", [("frontmatter", "error", 1)], id="unclosed-frontmatter"
    ),
    pytest.param(
        "entities/late.md", b"\n\n---\ntitle: Y\n---\n", [("frontmatter", "error", 3)], id="frontmatter-not-on-line-1"
    ),
    pytest.param(
        "entities/unclosed.md",
        page("U", body="[[a]] [[b]]\nsee [[a\n").encode(),
        [("malformed-link", "warning", 14)],
        id="unclosed-wikilink",
    ),
    pytest.param(
        "entities/fence.md",
        page("F", body="[[a]] [[b]]\n\n```\ncode\n").encode(),
        [("malformed-link", "warning", 15)],
        id="unclosed-fence",
    ),
    pytest.param(
        "entities/huge.md",
        None,
        [("page-too-long", "warning", None), ("page-too-long", "warning", None)],
        id="20-MB-page",
    ),
]


@pytest.mark.parametrize("path, data, expected", BAD_INPUTS)
def test_bad_input_yields_a_finding_naming_the_file(
    tmp_path: Path, path: str, data: bytes | None, expected: list[tuple[str, str, int | None]]
) -> None:
    root = make_vault(tmp_path / "a [b] c", {**OK_PAGES, path: data if data is not None else _huge()})
    before = snapshot(root, skip_state=False)
    result = run("lint", str(root), "--json", "--no-cache")
    assert result.exit_code in (0, 1)
    assert result.stderr == ""
    findings = json.loads(result.stdout)["findings"]
    rule = expected[0][0]
    assert [
        (f["rule"], f["severity"], f["line"]) for f in findings if f["path"] == path and f["rule"] == rule
    ] == expected
    assert snapshot(root, skip_state=False) == before
    # the other formats and commands cope too
    for args in (
        ["lint", str(root)],
        ["lint", str(root), "--format", "sarif"],
        ["lint", str(root), "--diff"],
        ["graph", "--vault", str(root), "--json"],
    ):
        assert run(*args).exit_code in (0, 1), args
    text = run("lint", str(root), "--no-cache").stdout
    assert any(line.startswith(f"{path}:") and rule in line for line in text.split("\n"))


def test_symlink_outside_the_vault_is_reported_and_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("---\ntitle: secret\n---\n[[ghost]]\n")
    root = make_vault(tmp_path / "vault with space [1]", OK_PAGES)
    os.symlink(outside / "secret.md", root / "entities" / "secret.md")
    os.symlink(outside, root / "raw" / "elsewhere")
    before = snapshot(root, skip_state=False)
    outside_before = snapshot(outside, skip_state=False)
    result = run("lint", str(root), "--json", "--no-cache")
    findings = json.loads(result.stdout)["findings"]
    assert sorted((f["rule"], f["path"]) for f in findings if f["rule"] == "unsafe-path") == [
        ("unsafe-path", "entities/secret.md"),
        ("unsafe-path", "raw/elsewhere"),
    ]
    assert not any("ghost" in f["message"] for f in findings)
    assert result.exit_code == 1
    assert snapshot(root, skip_state=False) == before and snapshot(outside, skip_state=False) == outside_before
    run("lint", str(root), "--fix")
    assert snapshot(outside, skip_state=False) == outside_before
    graph = run("graph", "--vault", str(root), "--json")
    assert graph.exit_code == 0 and "raw/elsewhere" not in graph.stdout


def test_vault_path_with_brackets_and_spaces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_vault(
        tmp_path, {**OK_PAGES, "entities/d.md": page("D", body="[[a]] [[nowhere]]\n")}, name="My [Vault] (2026)"
    )
    monkeypatch.chdir(root)
    for args in (["lint", str(root)], ["lint", "--vault", str(root)], ["lint"]):
        result = run(*args, "--json")
        data = json.loads(result.stdout)
        assert result.exit_code == 1
        assert [(f["path"], f["target"]) for f in data["findings"] if f["rule"] == "broken-wikilink"] == [
            ("entities/d.md", "nowhere")
        ]
    assert run("graph", "--json").exit_code == 0


# ---- exit codes as the README's table gives them ---------------------------------------------------


def test_exit_codes_of_the_readme_table(tmp_path: Path) -> None:
    """One row per documented case that needs no model or palace (ingest, lint and query have their own
    tests): what scripts and hooks rely on."""
    import socket

    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    assert run("init", str(a_file)).exit_code == 2  # the path is a file
    assert run("init", str(a_file / "sub")).exit_code == 1  # the folder cannot be made
    root = tmp_path / "wiki"
    assert run("init", str(root)).exit_code == 0
    assert run("init", str(root)).exit_code == 0  # already complete
    assert run("status", "--vault", str(root), "--no-lint").exit_code == 0
    assert run("search", "--vault", str(root)).exit_code == 2  # neither a query nor --batch
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        result = run("mcp", "--vault", str(root), "--http", str(taken.getsockname()[1]))
    assert result.exit_code == 2 and "choose another port" in result.stderr


def test_graph_names_the_isolated_pages(tmp_path: Path) -> None:
    for name, text in {"a.md": "# A\n\n[[b]]\n", "b.md": "# B\n", "alone.md": "# Alone\n"}.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    shown = run("graph", "--vault", str(tmp_path)).stdout.splitlines()
    at = shown.index("isolated pages (no link in or out): 1")
    assert shown[at + 1].strip() == "alone.md"


def test_init_takes_the_folder_as_vault_too(tmp_path: Path) -> None:
    assert run("init", "--vault", str(tmp_path / "v")).exit_code == 0
    assert (tmp_path / "v" / "SCHEMA.md").is_file()


def test_the_mcp_help_lists_every_tool_the_server_offers() -> None:
    from wikic.mcp_tools import TOOLS

    shown = " ".join(run("mcp", "--help").stdout.split())
    assert "Tools: " + ", ".join(name for name, _, _ in TOOLS) + "." in shown


def test_the_ingest_report_says_each_name_once_counts_bad_dates_and_interrupted_sources() -> None:
    from wikic.ingest.pipeline import IngestReport
    from wikic.ingest.report import SourceReport, render_report

    bad = [f"'claim {n}': from 'spring {n}' is not a date (YYYY, YYYY-MM or YYYY-MM-DD)" for n in range(30)]
    compiled = SourceReport("raw/a.md", "A", "compiled", created=["entities/x.md", "entities/x.md"],
                            pending=["Acme", "Acme"], rejected=[*bad, "'claim': the interval ends before it starts"])
    report = IngestReport(sources=[compiled, *(SourceReport(f"raw/{n}.md", "", "interrupted") for n in range(4))])
    shown = render_report(report).splitlines()
    assert shown.count("  + entities/x.md") == 1 and "1 created" in shown[0]
    assert "  waiting for more sources (below threshold): Acme" in shown
    refused = [line for line in shown if line.startswith("  refused: ")]
    assert refused == ["  refused: 'claim': the interval ends before it starts",
                       "  refused: 30 dates that are not dates (YYYY, YYYY-MM or YYYY-MM-DD), the first: 'claim 0': "
                       "from 'spring 0'"]
    assert "1 compiled, 0 unchanged, 0 failed, 4 interrupted: " in shown[-1]
