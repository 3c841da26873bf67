"""A model that proposes nothing for a source full of names is never silent: ingest says so and exits 1,
the compiled ledger records it, and `wikic status` counts it and says what to try."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from standin_openai import StandinServer, reply
from typer.testing import CliRunner

from wikic.cli import app
from wikic.vault.init import init_vault

SOURCE = ("Chroma stores vectors in SQLite and builds an HNSW index. Qdrant does the same in Rust.\n"
          "Ollama serves Qwen3-Embedding on port 11434, and MemPalace uses all-MiniLM-L6-v2 by default.\n")
EMPTY = '{"summary": "A note.", "entities": [], "concepts": [], "comparisons": [], "relations": []}'


def test_an_empty_plan_for_a_named_source_is_reported_counted_and_explained(tmp_path: Path) -> None:
    calls: list[dict[str, Any]] = []

    def route(body: dict[str, Any]) -> Any:
        calls.append(body)
        if "names" in json.dumps(body.get("response_format", {})) and "entities" not in json.dumps(
                body.get("response_format", {})):
            return reply('{"names": []}')
        return reply(EMPTY)

    with StandinServer() as server:
        server.route = route
        root = tmp_path / "wiki"
        init_vault(root)
        (root / "wikic.toml").write_text(
            f'[llm]\nbase_url = "{server.base_url}"\nmodel = "m"\ntimeout = 5\nmax_retries = 0\n', encoding="utf-8")
        (tmp_path / "vectors.md").write_text(SOURCE, encoding="utf-8")
        runner = CliRunner()
        result = runner.invoke(app, ["ingest", str(tmp_path / "vectors.md"), "--vault", str(root), "--no-palace"])
        assert result.exit_code == 1, result.output
        assert "nothing extracted" in result.output
        assert len(calls) >= 2  # the other strategy was tried before giving up

        status = runner.invoke(app, ["status", "--vault", str(root), "--json", "--no-lint"])
        assert status.exit_code == 0, status.output
        counts = json.loads(status.output)["extraction"]
        assert counts["nothing_extracted"] == ["raw/articles/vectors.md"]
        text = runner.invoke(app, ["status", "--vault", str(root), "--no-lint"]).output
        assert "Nothing extracted: 1 compiled source(s)" in text and "--strategy two-pass --force" in text
