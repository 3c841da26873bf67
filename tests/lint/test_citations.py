"""Claim anchors are links to raw files: lint and the graph treat them as citations. A citation to a
missing raw file is a broken link; citations are no page links (orphans, too-few-links, hubs, components)
and never "wanted pages"."""

from __future__ import annotations

import json
from pathlib import Path

from library import load_vault, run_lint
from testkit import make_vault, page
from typer.testing import CliRunner

from wikic.cli import app
from wikic.lint.run import LintOptions
from wikic.vault.graph import build, health

A = "raw/articles/source-a.md"
CLAIMS = (
    f"- A claim. ^[[[{A}|source-a.md]] L6]\n"
    f"- A second claim. ^[[[{A}|source-a.md]] L6]\n"
    "- A third claim. ^[[[raw/articles/gone.md|gone.md]] L2-L3]\n"
    f"- An old anchor. ^[{A}:L6]\n"
)


def _vault(tmp_path: Path) -> Path:
    return make_vault(tmp_path, {
        # cites raw files only: no page link at all
        "entities/cited.md": page("Citedia", body="Citedia is a page of claims.\n\n" + CLAIMS),
        "entities/b.md": page("B", body="[[c]] [[cited]]\n"),
        "entities/c.md": page("C", body="[[b]] [[cited]]\n"),
        "raw/papers/gone.md": "# Gone\n\nMoved here.\n",
    })


def test_a_citation_to_a_missing_raw_file_is_a_broken_link_and_the_rest_are_not_page_links(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    findings = run_lint(root, LintOptions(use_cache=False)).findings
    rows = sorted((f.rule, f.path, f.line, f.column, f.message) for f in findings)
    assert rows == [
        (
            "broken-wikilink",
            "entities/cited.md",
            17,
            20,
            "cited source 'raw/articles/gone.md' does not exist; did you mean raw/papers/gone.md?",
        ),
        (
            "too-few-links",
            "entities/cited.md",
            None,
            None,
            "links to 0 other wiki page(s); SCHEMA.md asks for at least 2",
        ),
    ]


def test_the_graph_counts_citations_apart_and_wants_no_raw_file(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    vault = load_vault(root)
    lg = build(vault)
    report = health(lg, vault)
    assert report["citations"] == 3 and report["broken_links"] == 1
    assert report["wanted_pages"] == [] and report["missing_sources"] == [
        {"target": "raw/articles/gone.md", "links": 1}
    ]
    assert report["dead_ends"] == ["entities/cited.md"] and report["components"] == 1
    assert report["most_linked"][0] == {"path": "entities/cited.md", "inbound": 2}  # raw files are no hubs
    assert {m["path"] for m in report["most_linked"]} == {"entities/cited.md", "entities/b.md", "entities/c.md"}
    edges = lg.graph.get_edge_data("entities/cited.md", A)
    assert [e.get("citation") for e in edges.values()] == [True, True]
    assert all("citation" not in e for e in lg.graph.get_edge_data("entities/b.md", "entities/c.md").values())

    shown = CliRunner().invoke(app, ["graph", "--vault", str(root)]).stdout
    assert "(1 broken, 3 citing raw sources)" in shown
    assert "cited but missing raw sources:\n     1  raw/articles/gone.md" in shown
    assert "wanted" not in shown
    data = json.loads(CliRunner().invoke(app, ["graph", "--vault", str(root), "--json"]).stdout)
    assert data["citations"] == 3
