"""`wikic status`: pages per type, sources, palace, last operations, lint summary, token totals."""

from __future__ import annotations

import json

from library import vault_status
from querykit import QueryWiki

from wikic.status import read_log


def test_status_after_ingest_and_a_saved_query(wiki: QueryWiki) -> None:
    assert wiki.cli("query", "Who is the CEO of OpenAI?", "--save").exit_code == 0
    result = wiki.cli("status", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["pages"]["by_type"] == {"entity": 3, "concept": 0, "comparison": 0, "query": 1, "source": 3}
    assert data["pages"]["total"] == 7
    assert data["sources"] == {"raw": 3, "compiled": 3}
    palace = data["palace"]
    assert palace["model"] == "static:tokenlearn-static-64" and palace["dim"] == 64
    assert palace["files"] >= 7 and palace["drawers"] > palace["files"]
    assert data["last_operations"][0]["action"] == "query"
    assert data["last_operations"][0]["target"] == "[[who-is-the-ceo-of-openai|Who is the CEO of OpenAI?]]"
    # token totals are the sum of log.md's rows: 3 ingests (20 each from the stand-in) and the query (366)
    assert data["tokens"]["by_action"]["query"] == {"tokens": 366, "operations": 1}
    assert data["tokens"]["total"] == sum(r.tokens for r in read_log(wiki.root)) == 366 + 3 * 20
    assert data["lint"]["errors"] == 0 and "warnings" in data["lint"]

    text = wiki.cli("status").stdout
    assert "Pages: 7 (3 entity, 0 concept, 0 comparison, 1 query, 3 source)" in text
    assert "Sources: 3 raw file(s), 3 compiled" in text
    assert "model static:tokenlearn-static-64, 64-d" in text
    assert "Tokens: 426 (ingest 60 in 3, query 366 in 1)" in text
    # a row's links read as their labels
    assert "query Who is the CEO of OpenAI? — cited OpenAI, Sam Altman, GPT-4; 366 tokens" in text


def test_status_of_a_fresh_vault_creates_nothing(tmp_path, make_vault) -> None:
    root = make_vault({}, raw=False)
    status = vault_status(root)
    assert status.pages_total == 0 and status.palace is None and status.tokens["total"] == 0
    assert not (root / ".wikic" / "palace").exists()
    from typer.testing import CliRunner

    from wikic.cli import app

    out = CliRunner().invoke(app, ["status", "--no-lint", "--vault", str(root)]).stdout
    assert "Palace: not built yet (run `wikic index`)" in out
    assert "Last operations: none yet" in out and "Lint:" not in out


def test_log_rows_with_costs_and_escaped_pipes(tmp_path, make_vault) -> None:
    root = make_vault(
        {
            "log.md": "# Wiki Log\n\n| Date | Action | Target | Notes |\n|------|--------|--------|-------|\n"
            "| 2026-11-01 | ingest | raw/a.md | 1 created, 1,200 tokens, $0.0100 |\n"
            "| 2026-11-02 | query | queries/a\\|b.md | 2 cited, 300 tokens |\n"
            "not a row\n"
        }
    )
    rows = read_log(root)
    assert [(r.action, r.target, r.tokens, r.cost) for r in rows] == [
        ("ingest", "raw/a.md", 1200, 0.01), ("query", "queries/a|b.md", 300, None)]
