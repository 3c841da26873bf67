"""A hostile vault's own files, end to end: a root file (index.md, log.md, overview.md, identity.md, SCHEMA.md,
wikic.toml) that is a link out of the vault is never read, so its target's text never reaches the model, the
assistant or a file of the vault; a `.wikic/journal.json` a synced folder brought replays nothing wikic would
not write; a state file or lock that is a folder is one clear error, never a traceback.

Through the CLI and the MCP tools, with the stand-in model; every test checks the folder outside the vault is
exactly as it was.
"""

from __future__ import annotations

import hashlib
import json
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gkit
import pytest
from standin_openai import StandinServer
from typer.testing import CliRunner

from wikic.cli import app

SECRET = "aws_secret_access_key = SECRET-OUTSIDE-THE-VAULT"


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
    return folder


def cli(root: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [*args, "--vault", str(root)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError("".join(traceback.format_exception(result.exception)))
    return result.exit_code, result.stdout, result.stderr


def ingested(wiki: Path, n: int = 1, tag: str = "") -> None:
    code, _, err = cli(wiki, "ingest", *gkit.sources(wiki.parent / f"inbox{tag}", n, tag=tag))
    assert code == 0, err


def link_out(wiki: Path, rel: str, target: Path) -> None:
    """Replace the vault's file `rel` with a link to `target`, as a hostile clone would hold it."""
    (wiki / rel).unlink(missing_ok=True)
    (wiki / rel).symlink_to(target)


def secret_file(outside: Path, text: str = "") -> Path:
    path = outside / "credentials"
    path.write_text(f"{text}\n{SECRET}\n", encoding="utf-8")
    return path


def nothing_copied(wiki: Path, server: StandinServer) -> bool:
    """The secret is in no file of the vault and in no request to the model."""
    in_files = [p for p in wiki.rglob("*") if p.is_file() and not p.is_symlink() and SECRET.encode() in p.read_bytes()]
    in_requests = [r for r in server.requests if SECRET in json.dumps(r.body)]
    return not in_files and not in_requests


@pytest.mark.parametrize("rel", ["index.md", "log.md", "overview.md", "identity.md", "SCHEMA.md"])
def test_ingest_refuses_a_root_file_linked_out_before_the_model_is_asked(
    wiki: Path, outside: Path, server: StandinServer, rel: str
) -> None:
    template = (wiki / rel).read_text(encoding="utf-8") if (wiki / rel).is_file() else "# Overview\n"
    link_out(wiki, rel, secret_file(outside, template + "\n## Notes for the model\n"))
    before = gkit.tree_snapshot(outside)
    code, _, err = cli(wiki, "ingest", *gkit.sources(wiki.parent / "inbox", 1))
    assert code == 1, err
    assert f"refusing to read {rel}: it leads outside the vault (to {outside / 'credentials'})" in err
    assert "Traceback" not in err
    assert not server.requests  # refused before the model was asked anything
    assert (wiki / rel).is_symlink() and gkit.tree_snapshot(outside) == before
    assert nothing_copied(wiki, server)


def test_query_save_refuses_an_index_linked_out_before_the_model_is_asked(
    wiki: Path, outside: Path, server: StandinServer
) -> None:
    ingested(wiki)
    server.requests.clear()
    link_out(wiki, "index.md", secret_file(outside, (wiki / "index.md").read_text(encoding="utf-8")))
    before = gkit.tree_snapshot(outside)
    code, _, err = cli(wiki, "query", "Who builds widgets?", "--save")
    assert code == 1 and "refusing to read index.md: it leads outside the vault" in err, err
    assert not server.requests and gkit.tree_snapshot(outside) == before
    assert nothing_copied(wiki, server)


def test_lint_reports_an_index_linked_out_and_fix_never_copies_it_in(
    wiki: Path, outside: Path, server: StandinServer
) -> None:
    ingested(wiki)
    index = (wiki / "index.md").read_text(encoding="utf-8")
    unlisted = "".join(line for line in index.splitlines(True) if "project-0" not in line)  # a fix would add it back
    link_out(wiki, "index.md", secret_file(outside, unlisted))
    before = gkit.tree_snapshot(outside)
    code, out, _ = cli(wiki, "lint")
    assert code == 1 and "index.md: error unsafe-path symbolic link points outside the vault: not read" in out
    code, out, err = cli(wiki, "lint", "--fix")
    assert code == 1 and "unsafe-path" in out and "fixed index.md" not in err, (out, err)
    assert (wiki / "index.md").is_symlink() and gkit.tree_snapshot(outside) == before
    assert nothing_copied(wiki, server)


def test_a_briefing_and_the_mcp_tools_never_hand_over_a_file_outside(
    wiki: Path, outside: Path, server: StandinServer
) -> None:
    from mcp.server.mcpserver.exceptions import ToolError

    from wikic.mcp_server import WikiTools, _tool_errors

    ingested(wiki)
    link_out(wiki, "identity.md", secret_file(outside, "---\nname: Sam\n---\n# Identity\n"))
    code, out, err = cli(wiki, "wake-up")
    assert code == 1 and "refusing to read identity.md: it leads outside the vault" in err
    assert SECRET not in out + err
    tools = WikiTools(wiki)
    with pytest.raises(ToolError, match=r"refusing to read identity\.md: it leads outside the vault") as caught:
        _tool_errors(tools.wake_up)()
    assert SECRET not in str(caught.value)
    (wiki / "identity.md").unlink()
    link_out(wiki, "overview.md", secret_file(outside, "# Overview\n"))
    with pytest.raises(ToolError, match=r"refusing to read overview\.md: it leads outside the vault") as caught:
        _tool_errors(tools.overview)()
    assert SECRET not in str(caught.value)
    assert nothing_copied(wiki, server)


def test_wikic_toml_linked_out_is_refused_by_every_command_that_reads_it(wiki: Path, outside: Path) -> None:
    (outside / "other.toml").write_text(f'[llm]\nmodel = "elsewhere"\n{SECRET}\n', encoding="utf-8")
    link_out(wiki, "wikic.toml", outside / "other.toml")
    for command in (["status"], ["index"], ["query", "Who builds widgets?"]):
        code, out, err = cli(wiki, *command)
        assert code == 1 and "refusing to read wikic.toml: it leads outside the vault" in err, (command, err)
        assert SECRET not in out + err


def planted_journal(wiki: Path, pages: dict[str, str]) -> None:
    """`.wikic/journal.json` as a synced `.wikic/` would bring it: each page's `before` is the file's sha256,
    so a replay would write every one of them."""
    planned = {}
    for rel, text in pages.items():
        path = wiki / rel
        before = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
        planned[rel] = {"before": before, "text": text}
    data: dict[str, Any] = {"run": "planted", "pages": planned, "index": [], "compiled": {}, "mentions": None,
                            "log_rows": [], "log_lines": 0, "palace": [], "compose": []}
    (wiki / ".wikic" / "journal.json").write_text(json.dumps(data), encoding="utf-8")


def test_a_planted_journal_is_set_aside_and_replays_nothing(wiki: Path, outside: Path) -> None:
    ingested(wiki)
    raw = sorted(p.relative_to(wiki).as_posix() for p in (wiki / "raw" / "articles").iterdir())[0]
    targets = [raw, "wikic.toml", "SCHEMA.md", ".obsidian/plugins/evil/main.js"]
    planted_journal(wiki, {"entities/acme-corp.md": "# Acme\n", **dict.fromkeys(targets, "EVIL\n")})
    vault_before = gkit.tree_snapshot(wiki, skip=[wiki / ".wikic"])
    code, _, err = cli(wiki, "ingest", *gkit.sources(wiki.parent / "inbox-b", 1, tag="b"))
    assert code == 1 and "refusing to replay .wikic/journal.json: it would write" in err, err
    assert "it is set aside as .wikic/journal.refused-" in err and "Traceback" not in err
    assert gkit.tree_snapshot(wiki, skip=[wiki / ".wikic"]) == vault_before  # not a page, raw file or plugin
    assert not (wiki / ".obsidian" / "plugins" / "evil").exists()
    assert len(list((wiki / ".wikic").glob("journal.refused-*.json"))) == 1
    code, _, err = cli(wiki, "ingest", *gkit.sources(wiki.parent / "inbox-b", 1, tag="b"))
    assert code == 0, err  # the next run goes on without it
    assert all((wiki / rel).read_bytes() != b"EVIL\n" for rel in targets[:3])


@pytest.mark.parametrize(("name", "command"), [
    ("compiled.json", "ingest"), ("sources.json", "ingest"), ("mentions.json", "ingest"), ("journal.json", "ingest"),
    ("vault.lock", "ingest"), ("sources.json.lock", "ingest"), ("set-aside.json.lock", "ingest raw/"),
    ("palace.lock", "index"),
])
def test_state_that_is_a_folder_is_one_clear_error(wiki: Path, name: str, command: str) -> None:
    ingested(wiki)
    (wiki / ".wikic" / name).unlink(missing_ok=True)
    (wiki / ".wikic" / name).mkdir()
    (wiki / "raw" / "articles" / "empty.md").write_bytes(b"")  # what ingest of raw/ sets aside, under its lock
    args = {"ingest": ["ingest", *gkit.sources(wiki.parent / "inbox-b", 1, tag="b")], "ingest raw/": ["ingest"],
            "index": ["index"]}[command]
    code, _, err = cli(wiki, *args)
    assert code == 1, err
    verb = "lock" if name.endswith(".lock") else "write"
    assert f"cannot {verb} .wikic/{name}: it is a folder" in err, err
    assert "Hint: move " in err and f"{wiki / '.wikic' / name} away" in err, err
    assert "Traceback" not in err and "IsADirectoryError" not in err
    (wiki / ".wikic" / name).rmdir()
    code, out, err = cli(wiki, *args)  # moved away, the next run finishes what the journal holds
    assert code == 0 or (command == "ingest raw/" and "empty.md" in out + err), out + err
