"""Bad input and odd vaults: clear messages, no model call where none can help."""

from __future__ import annotations

from pathlib import Path

import pytest
from querykit import QueryWiki, write_settings
from standin_openai import StandinServer
from typer.testing import CliRunner, Result

from wikic.cli import app
from wikic.vault.init import init_vault


def run(root: Path, *args: str) -> Result:
    return CliRunner().invoke(app, [*args, "--vault", str(root)], catch_exceptions=False)


def test_an_empty_vault_says_it_is_empty(tmp_path: Path, standin: StandinServer) -> None:
    root = tmp_path / "empty"
    init_vault(root)
    write_settings(root, standin)
    result = run(root, "query", "Who is the CEO of OpenAI?")
    assert result.exit_code == 1
    assert "The wiki is empty" in result.stdout and "wikic ingest" in result.stdout
    assert standin.chat_requests() == []
    data = run(root, "query", "anything at all", "--json")
    assert '"status": "not_found"' in data.stdout


def test_pages_the_palace_never_indexed_are_named(tmp_path: Path, standin: StandinServer, make_vault, page) -> None:
    root = make_vault({"entities/openai.md": page("OpenAI", body="# OpenAI\n\nSam Altman is its CEO.\n")})
    write_settings(root, standin)
    result = run(root, "query", "Who is the CEO of OpenAI?")
    assert result.exit_code == 1
    assert "the palace has not indexed this vault yet" in result.stderr
    assert "Hint: run `wikic index`" in result.stderr
    assert not (root / ".wikic" / "palace").exists()  # told before the palace (its model, its process) opened
    assert run(root, "index").exit_code == 0
    standin.route = lambda body: "Sam Altman [[openai]]."
    assert run(root, "query", "Who is the CEO of OpenAI?").stdout.strip() == "Sam Altman [[openai]]."


def test_a_palace_opened_but_never_filled_is_told_as_never_indexed(
    tmp_path: Path, standin: StandinServer, make_vault, page
) -> None:
    from library import open_palace

    root = make_vault({"entities/openai.md": page("OpenAI", body="# OpenAI\n\nSam Altman is its CEO.\n")})
    write_settings(root, standin)
    with open_palace(root) as palace:
        palace.manifest.counts()  # opened (its manifest made), nothing indexed
    result = run(root, "query", "Who is the CEO of OpenAI?")
    assert result.exit_code == 1 and "the palace has not indexed this vault yet" in result.stderr


def test_a_palace_built_with_another_embedding_model(wiki: QueryWiki, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIKIC_EMBEDDING_PROVIDER", "use")
    result = wiki.cli("query", "Who is the CEO of OpenAI?")
    assert result.exit_code == 1
    assert "the palace was built with embedding model static:" in result.stderr
    assert "but use:" in result.stderr and "wikic index --rebuild" in result.stderr
    assert wiki.server.chat_requests() == []


@pytest.mark.parametrize("question", ["", "   "])
def test_an_empty_question(wiki: QueryWiki, question: str) -> None:
    result = wiki.cli("query", question)
    assert result.exit_code == 2 and "give a question" in result.stderr


def test_a_question_that_is_really_a_document(wiki: QueryWiki) -> None:
    result = wiki.cli("query", "OpenAI " * 1000)
    assert result.exit_code == 2 and "characters long (at most 4,000)" in result.stderr and "ingest" in result.stderr
    assert wiki.server.chat_requests() == []


def test_no_model_configured(wiki: QueryWiki) -> None:
    (wiki.root / "wikic.toml").write_text("[llm]\nbase_url = \"http://127.0.0.1:9/v1\"\n", encoding="utf-8")
    result = wiki.cli("query", "Who is the CEO of OpenAI?")
    assert result.exit_code == 2 and "no model configured" in result.stderr


def test_an_unreachable_endpoint(wiki: QueryWiki) -> None:
    (wiki.root / "wikic.toml").write_text(
        '[llm]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\nmax_retries = 0\ntimeout = 5\n', encoding="utf-8")
    result = wiki.cli("query", "Who is the CEO of OpenAI?", "--json")
    assert result.exit_code == 1
    assert "cannot connect" in result.stderr and '"error"' in result.stdout


def test_a_plain_obsidian_vault_is_answered_and_filed_once_it_is_a_wikic_vault(tmp_path: Path, make_vault) -> None:
    from fake_llm import FakeLLM
    from library import answer_question, save_answer, sync

    from wikic.errors import UsageError

    root = make_vault({"Projects/Garden.md": "# Garden\n\nThe tomatoes go in the south bed in May.\n",
                       "Daily/2026-05-01.md": "Planted basil next to [[Garden]].\n"}, schema=False)
    for call in (lambda: sync(root), lambda: answer_question(root, "Where do the tomatoes go?", llm=FakeLLM("x"))):
        with pytest.raises(UsageError, match="is not a wikic vault"):
            call()
    assert not (root / ".wikic").exists()  # a palace is never created outside a vault
    init_vault(root)  # the notes stay where they are, outside the page folders: the palace's "notes" wing
    sync(root)
    llm = FakeLLM("Tomatoes go in the south bed in May [[Garden]].")
    result = answer_question(root, "Where do the tomatoes go?", llm=llm)
    assert result.answered and [c.path for c in result.citations] == ["Projects/Garden.md"]
    assert llm.history[0].schema_name == "complete_text"  # nothing shows it as it comes: asked in one piece
    saved = save_answer(root, result)
    assert saved.path == "queries/where-do-the-tomatoes-go.md"
    assert "[[where-do-the-tomatoes-go|Where do the tomatoes go?]]" in (root / "Projects/Garden.md").read_text(
        encoding="utf-8"
    )
