"""`wikic index` and `wikic search` through the real Typer app."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wikic.cli import app

runner = CliRunner()


def invoke(*args: str, input: str | None = None):
    return runner.invoke(app, list(args), input=input)


@pytest.mark.parametrize("command", ["index", "search"])
def test_help_has_an_example(command: str) -> None:
    result = invoke(command, "--help")
    assert result.exit_code == 0
    assert "Example:" in result.output and f"wikic {command}" in result.output


def test_index_then_search_text_and_json(vault: Path) -> None:
    result = invoke("index", "--vault", str(vault))
    assert result.exit_code == 0, result.output
    assert "6 added, 0 updated, 0 removed" in result.output and "static:tokenlearn-static-64" in result.output
    result = invoke("index", "--json", "--vault", str(vault))
    report = json.loads(result.output)
    assert report["drawers_embedded"] == 0 and report["unchanged"] == 6 and "seconds" in report

    result = invoke("search", "who trains Claude", "--k", "2", "--vault", str(vault))
    assert result.exit_code == 0
    assert result.output.splitlines()[0].startswith(" 1. entities/anthropic.md:")

    result = invoke("search", "HNSW", "--json", "--wing", "concepts", "--vault", str(vault))
    data = json.loads(result.output)
    assert [r["path"] for r in data["results"]] == ["concepts/vector-database.md"]
    assert data["results"][0]["heading"] == "Vector database > Indexes"

    result = invoke("search", "company", "--tag", "company", "--path", "entities/open", "--json", "--vault", str(vault))
    assert [r["path"] for r in json.loads(result.output)["results"]] == ["entities/openai.md"]


def test_search_batch_from_file_and_stdin(vault: Path, tmp_path: Path) -> None:
    invoke("index", "--vault", str(vault))
    batch = tmp_path / "q.jsonl"
    batch.write_text('{"id": "q1", "query": "disk was full"}\n{"id": 2, "query": "Constitutional AI"}\n')
    result = invoke("search", "--batch", str(batch), "--k", "3", "--vault", str(vault))
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert [line["id"] for line in lines] == ["q1", 2]
    assert lines[0]["results"][0]["path"] == "raw/transcripts/standup.txt" and len(lines[1]["results"]) == 3
    assert set(lines[1]["results"][0]) == {"path", "score", "heading", "snippet"}
    result = invoke("search", "--batch", "-", "--vault", str(vault), input='{"id": 7, "query": "GPT"}\n')
    assert json.loads(result.output)["id"] == 7


def test_errors_are_messages_with_exit_codes(vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    invoke("index", "--vault", str(vault))
    (vault / "wikic.toml").write_text('[embedding]\nprovider = "use"\n')

    def never(*_: object) -> None:
        raise AssertionError("the configured model was loaded for a palace built with another")

    # told from the manifest's record, before the configured model is loaded (on a big palace, seconds)
    with monkeypatch.context() as patched:
        patched.setattr("wikic.palace.palace.make_embedder", never)
        result = invoke("search", "anything", "--vault", str(vault))
    assert result.exit_code == 1
    assert "Error: the palace was built with embedding model static:tokenlearn-static-64" in result.output
    assert "but use:use-multilingual-v3 is configured" in result.output
    assert "wikic index --rebuild" in result.output

    (vault / "wikic.toml").write_text("[palace]\nbogus = 1\n")
    result = invoke("index", "--json", "--vault", str(vault))
    assert result.exit_code == 2
    assert (
        "[palace] bogus: unknown key (known keys: path, url, collection,"
        in json.loads(result.output.splitlines()[0])["error"]
    )

    (vault / "wikic.toml").write_text('[embedding]\nprovider = "static"\n')
    result = invoke("search", "--vault", str(vault))
    assert result.exit_code == 2 and "give a QUERY or --batch FILE" in result.output
    result = invoke("search", "--batch", str(tmp_path / "missing.jsonl"), "--vault", str(vault))
    assert result.exit_code == 2 and "cannot read batch file" in result.output
