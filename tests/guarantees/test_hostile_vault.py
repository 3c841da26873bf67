"""A hostile vault (a clone or a synced folder whose own files lead elsewhere) and a hostile MCP client:
nothing is read from or written to outside the vault, and each refusal is one clear error naming the path.

End to end through the CLI and the MCP tools, with the stand-in model; every test checks the folder outside
the vault is exactly as it was.
"""

from __future__ import annotations

import json
import os
import shutil
import traceback
from collections.abc import Iterator
from pathlib import Path

import gkit
import pytest
from standin_openai import StandinServer
from typer.testing import CliRunner

from wikic.cli import app
from wikic.config_file import user_config_path


@pytest.fixture(scope="module")
def server() -> Iterator[StandinServer]:
    with StandinServer() as s:
        s.route = gkit.route
        yield s


@pytest.fixture
def wiki(server: StandinServer, tmp_path: Path) -> Path:
    server.route = gkit.route
    server.requests.clear()
    return gkit.make_vault(tmp_path / "wiki", server.base_url, threshold=1)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "keep.txt").write_text("the user's own file\n", encoding="utf-8")
    return folder


def cli(root: Path, *args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [*args, "--vault", str(root)], input=input)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError("".join(traceback.format_exception(result.exception)))
    return result.exit_code, result.stdout, result.stderr


def link(wiki: Path, rel: str, target: Path) -> None:
    """Replace the vault's folder `rel` with a link to `target`, as a hostile clone would hold it."""
    path = wiki / rel
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target, target_is_directory=True)


@pytest.mark.parametrize("rel", [".wikic", "raw", "raw/articles", "entities", ".wikic/cache"])
def test_ingest_writes_nothing_through_a_folder_linked_out(wiki: Path, outside: Path, rel: str) -> None:
    if rel == ".wikic/cache":
        (wiki / ".wikic").mkdir(exist_ok=True)
    link(wiki, rel, outside)
    before = gkit.tree_snapshot(outside)
    code, _, err = cli(wiki, "ingest", *gkit.sources(wiki.parent / "inbox", 2))
    assert gkit.tree_snapshot(outside) == before
    assert code == 1, err
    assert f"refusing to use {rel}: it leads outside the vault" in err
    assert "Traceback" not in err


def test_index_and_capture_write_nothing_through_state_linked_out(wiki: Path, outside: Path) -> None:
    (wiki / ".wikic").mkdir(exist_ok=True)
    link(wiki, ".wikic/capture", outside)
    session = Path(os.environ["HOME"]) / ".claude" / "projects" / "p" / "session.jsonl"
    session.parent.mkdir(parents=True)
    session.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}}) + "\n")
    before = gkit.tree_snapshot(outside)
    hook = json.dumps({"transcript_path": str(session), "session_id": "s1"})
    result = CliRunner().invoke(app, ["capture", "--vault", str(wiki)], input=hook)
    assert result.exit_code == 0  # a hook never breaks the assistant's session
    assert "outside the vault" in result.stderr
    link(wiki, ".wikic", outside)
    code, _, err = cli(wiki, "index")
    assert code == 1 and "refusing to use .wikic: it leads outside the vault" in err
    assert gkit.tree_snapshot(outside) == before


def test_lint_still_lints_a_vault_whose_state_leads_out_and_writes_nothing_there(wiki: Path, outside: Path) -> None:
    link(wiki, ".wikic", outside)
    before = gkit.tree_snapshot(outside)
    code, out, err = cli(wiki, "lint", "--json")
    assert code == 0, err
    assert json.loads(out)["summary"]["errors"] == 0
    assert gkit.tree_snapshot(outside) == before


def test_a_relative_palace_path_that_climbs_out_is_a_configuration_error(wiki: Path, outside: Path) -> None:
    toml = wiki / "wikic.toml"
    toml.write_text(toml.read_text() + '\n[palace]\npath = "../outside/palace"\n', encoding="utf-8")
    code, _, err = cli(wiki, "index")
    assert code == 2
    assert "[palace] path: a relative path must stay inside the vault" in err and "wikic.toml:" in err
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]


def test_an_absolute_palace_path_elsewhere_is_the_users_choice_not_the_vaults(
    wiki: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    toml = wiki / "wikic.toml"
    elsewhere = tmp_path / "palaces" / "mine"
    toml.write_text(toml.read_text() + f'\n[palace]\npath = "{elsewhere}"\n', encoding="utf-8")
    code, _, err = cli(wiki, "index")
    assert code == 2 and "[palace] path: the vault's own wikic.toml may not widen what wikic reaches" in err
    assert "set WIKIC_PALACE_PATH in the environment" in err and not (tmp_path / "palaces").exists()
    toml.write_text(toml.read_text().replace(f'\n[palace]\npath = "{elsewhere}"\n', ""), encoding="utf-8")
    monkeypatch.setenv("WIKIC_PALACE_PATH", str(elsewhere))
    code, _, err = cli(wiki, "index")
    assert code == 0, err
    assert (elsewhere / "lexical.sqlite3").is_file()


def test_a_page_type_mapped_to_raw_is_refused_and_no_page_lands_there(wiki: Path) -> None:
    schema = wiki / "SCHEMA.md"
    schema.write_text(schema.read_text() + "\n## Page Types\n- entity: raw\n- note: Inbox\n", encoding="utf-8")
    raw_before = sorted(p.relative_to(wiki).as_posix() for p in (wiki / "raw").rglob("*"))
    _, out, _ = cli(wiki, "lint", "--json", "--select", "frontmatter")
    messages = [f["message"] for f in json.loads(out)["findings"] if f["path"] == "SCHEMA.md"]
    assert any("page type 'entity' cannot use the folder 'raw', which holds the sources" in m for m in messages)
    assert any("page type 'note' cannot use the folder 'Inbox'" in m for m in messages)
    code, _, err = cli(wiki, "ingest", *gkit.sources(wiki.parent / "inbox", 1))
    assert code == 2 and "SCHEMA.md:" in err and "cannot use the folder 'raw'" in err, err
    assert sorted(p.relative_to(wiki).as_posix() for p in (wiki / "raw").rglob("*")) == raw_before


# -- a hostile MCP client -------------------------------------------------------------------------------


@pytest.fixture
def tools(wiki: Path) -> object:
    from wikic.mcp_server import WikiTools

    return WikiTools(wiki)


def call_ingest(tools: object, sources: list[str]) -> str:
    from mcp.server.mcpserver.exceptions import ToolError

    from wikic.mcp_server import _tool_errors

    try:
        return str(_tool_errors(tools.ingest)(sources))  # type: ignore[attr-defined]
    except ToolError as exc:
        return f"ToolError: {exc}"


def test_the_mcp_ingest_tool_refuses_every_path_outside_the_vault(
    wiki: Path, outside: Path, tools: object, server: StandinServer
) -> None:
    secret = outside / ".env"
    secret.write_text("OPENAI_API_KEY=sk-outside-the-vault\n", encoding="utf-8")
    (wiki / ".env").write_text("TOKEN=inside-but-hidden\n", encoding="utf-8")
    raw_before = gkit.tree_snapshot(wiki / "raw")
    for asked in ([str(secret)], ["../outside/.env"], [".env"], [".wikic/llm-endpoints.json"], ["-"],
                  [str(outside / "keep.txt")]):
        answer = call_ingest(tools, asked)
        assert answer.startswith("ToolError: refusing to ingest"), (asked, answer)
    assert gkit.tree_snapshot(wiki / "raw") == raw_before
    assert not server.requests  # nothing reached the model


def test_the_mcp_ingest_tool_reads_the_vault_and_the_folders_a_person_allowed(
    wiki: Path, outside: Path, tools: object
) -> None:
    (wiki / "inbox" / "mine.md").write_text(gkit.source_text(0), encoding="utf-8")
    assert "ToolError" not in call_ingest(tools, ["inbox/mine.md"])
    (outside / "allowed.md").write_text(gkit.source_text(1), encoding="utf-8")
    assert call_ingest(tools, [str(outside / "allowed.md")]).startswith("ToolError")
    config = user_config_path()  # the person's own config: a vault cannot allow itself more
    config.parent.mkdir(parents=True)
    config.write_text(f'[mcp]\nallow = ["{outside}"]\n', encoding="utf-8")
    answer = call_ingest(tools, [str(outside / "allowed.md")])
    assert "ToolError" not in answer, answer
    assert any("note-1" in p.name or "allowed" in p.name for p in (wiki / "raw" / "articles").iterdir())


def test_a_vault_cannot_allow_the_mcp_ingest_tool_more(wiki: Path, outside: Path, tools: object) -> None:
    (outside / "allowed.md").write_text(gkit.source_text(1), encoding="utf-8")
    raw_before = gkit.tree_snapshot(wiki / "raw")
    toml = wiki / "wikic.toml"
    toml.write_text(toml.read_text() + '\n[mcp]\nallow = ["/", "http://127.0.0.1:9/"]\n', encoding="utf-8")
    answer = call_ingest(tools, [str(outside / "allowed.md")])
    assert answer.startswith("ToolError: invalid settings:") and "[mcp] allow: the vault's own wikic.toml may not " \
        f"widen what wikic reaches (the vault may be a clone or a synced folder): list it under [mcp] allow in your " \
        f"own {user_config_path()}" in answer, answer
    assert gkit.tree_snapshot(wiki / "raw") == raw_before


def test_the_mcp_ingest_tool_refuses_local_network_urls_unless_allowed(wiki: Path, tools: object) -> None:
    for url in ("http://127.0.0.1:9/x", "http://localhost/x", "http://169.254.169.254/latest/meta-data/",
                "http://[::1]/x", "http://10.0.0.7/x"):
        answer = call_ingest(tools, [url])
        assert answer.startswith("ToolError: refusing to ingest") and "local or private address" in answer, url
