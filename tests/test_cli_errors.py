"""Every command's usage errors, the way a new user meets them: a missing vault, a file given as a vault, a
bad date, an unknown format, a number out of range, an empty query. Each one exits 2 with `Error: ...` and a
`Hint: ...` on stderr, no traceback, nothing on stdout (with `--json`: `{"error": ...}` there). The table
must name every command, so a new command is held to the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from testkit import make_vault
from typer.testing import CliRunner

from wikic.cli import app

# `wikic capture` is left out on purpose: a hook must never break the assistant's session, so whatever it is
# given it exits 0 with one line on stderr (tests/conversations hold it to that).
NOT_USAGE_ERRORS = {"capture"}


def leaf_commands() -> dict[str, Any]:
    """'lint' -> its click command; 'hooks install' -> the subcommand; groups by their own name too."""
    out: dict[str, Any] = {}

    def walk(prefix: str, group: Any) -> None:
        for name, command in group.commands.items():
            path = f"{prefix} {name}".strip()
            out[path] = command
            if hasattr(command, "commands"):
                walk(path, command)

    walk("", typer.main.get_command(app))
    return out


COMMANDS = leaf_commands()


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    vault = make_vault(tmp_path, {"queries/q.md": "---\ntitle: Q\n---\n# Q\n"})
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "Note.md").write_text("# Note\n", encoding="utf-8")
    a_file = tmp_path / "a-file.md"
    a_file.write_text("# A file\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # `hooks` would write into the working folder's .claude/: nothing may be written
    return {"vault": str(vault), "plain": str(plain), "file": str(a_file), "missing": str(tmp_path / "no such dir"),
            "note": str(a_file)}


# (command line, what the error says): each exits 2 with a hint.
USAGE_ERRORS = [
    ("init {file}", "exists and is not a folder"),
    ("ingest {note} --vault {plain}", "is not a wikic vault"),
    ("ingest {note} --estimate --dry-run --vault {vault}", "--estimate and --dry-run do not go together"),
    ("ingest {note} -j 0 --vault {vault}", "[llm] concurrency: Input should be greater than or equal to 1 (got 0) "
     "(from the --concurrency flag)"),
    ("ingest {note} -j -1 --vault {vault}", "(from the --concurrency flag)"),
    ("ingest {note} -j 100000 --vault {vault}", "less than or equal to 64"),
    ("ingest {note} --max-tokens -5 --vault {vault}", "Invalid value for '--max-tokens'"),
    ("ingest {missing}/x.md --vault {vault}", "no such file"),
    ("ingest {note} --kind nope --vault {vault}", "unknown source kind 'nope'"),
    ("ingest {note} --strategy fast --vault {vault}", "(from the --strategy flag)"),
    ("lint {missing}", "vault folder does not exist"),
    ("lint {file}", "vault is not a folder"),
    ("lint nope-dir", "vault folder does not exist: nope-dir"),
    ("lint {vault} --vault {vault}", "either as the first argument or with --vault"),
    ("lint --as-of 2024-13-01 {vault}", "--as-of must be a date YYYY-MM-DD"),
    ("lint --format xml {vault}", "unknown format 'xml'"),
    ("lint --json --format sarif {vault}", "--json and --format sarif do not go together"),
    ("lint --select nope {vault}", "unknown rule(s) for --select: nope"),
    ("lint --no-such-option {vault}", "No such option: --no-such-option"),
    ("eval --vault {plain}", "is not a wikic vault"),
    ("eval --format sarif --vault {vault}", "unknown format 'sarif'"),
    ("eval --json --format markdown --vault {vault}", "--json and --format markdown do not go together"),
    ("eval --out entities/eval.md --vault {vault}", "entities/ is a page folder"),
    ("eval --out raw/eval.md --vault {vault}", "raw/ holds the sources and is never modified"),
    ("eval --out ../eval.md --vault {vault}", "outside the vault"),
    ("eval --page nope --vault {vault}", "no subject page is named 'nope'"),
    ("eval --min-score 120 --vault {vault}", "Invalid value for '--min-score'"),
    ("graph --graphml {missing}/g.graphml --vault {vault}", "its folder does not exist"),
    ("graph --json-file {missing}/g.json --vault {vault}", "its folder does not exist"),
    ("graph --top -1 --vault {vault}", "Invalid value for '--top'"),
    ("graph --vault {file}", "vault is not a folder"),
    ("index --vault {plain}", "is not a wikic vault"),
    ("index --vault {missing}", "vault folder does not exist"),
    ("search --vault {vault}", "give a QUERY or --batch FILE"),
    ("search '' --vault {vault}", "the query is empty"),
    ("search '   ' --vault {vault}", "the query is empty"),
    ("search x --k 0 --vault {vault}", "Invalid value for '--k'"),
    ("search x --k 100000 --vault {vault}", "Invalid value for '--k'"),
    ("search --batch {missing}/q.jsonl --vault {vault}", "cannot read batch file"),
    ("search x --batch {missing}/q.jsonl --vault {vault}", "not both"),
    ("search x --vault {plain}", "is not a wikic vault"),
    ("serve --vault {plain}", "is not a wikic vault"),
    ("serve --idle -1 --vault {vault}", "Invalid value for '--idle'"),
    ("query --vault {vault}", "give a question"),
    ("query '  ' --vault {vault}", "give a question"),
    ("query x --k 0 --vault {vault}", "Invalid value for '--k'"),
    ("query x --budget 5 --vault {vault}", "Invalid value for '--budget'"),
    ("query x --max-tokens 1 --vault {vault}", "Invalid value for '--max-tokens'"),
    ("query x --as-of junk --vault {vault}", "--as-of 'junk' is not a date"),
    ("query x --refresh queries/q.md --vault {vault}", "not both"),
    ("query x --as-of 2024 --save --vault {vault}", "--as-of does not go with --save"),
    ("query --refresh queries/q.md --allow-general --vault {vault}", "--allow-general does not go with --refresh"),
    ("status --vault {plain}", "is not a wikic vault"),
    ("status --vault {missing}", "vault folder does not exist"),
    ("status --recent -1 --vault {vault}", "Invalid value for '--recent'"),
    ("facts", "Missing argument"),
    ("facts Nobody --vault {vault}", "no page is named 'Nobody'"),
    ("facts Nobody --as-of garbage --vault {vault}", "is not a date"),
    ("wake-up --budget 10 --vault {vault}", "Invalid value for '--budget'"),
    ("wake-up --as-of 2024-02-30 --vault {vault}", "--as-of must be a date YYYY-MM-DD"),
    ("wake-up --project nope --vault {vault}", "no project 'nope'"),
    ("wake-up --vault {plain}", "is not a wikic vault"),
    ("mcp --vault {missing}", "vault folder does not exist"),
    ("mcp --vault {plain}", "is not a wikic vault"),
    ("mcp --http 0 --vault {vault}", "Invalid value for '--http'"),
    ("watch --vault {plain}", "is not a wikic vault"),
    ("watch --vault {missing}", "vault folder does not exist"),
    ("watch --vault {vault}", "no model configured"),
    ("watch --debounce -5 --vault {vault}", "Invalid value for '--debounce'"),
    ("hooks bogus", "No such command 'bogus'"),
    ("hooks install nope --vault {vault}", "unknown assistant 'nope'"),
    ("hooks install claude-code --vault {plain}", "is not a wikic vault"),
    ("hooks install", "Missing argument"),
    ("hooks uninstall nope --vault {vault}", "unknown assistant 'nope'"),
    ("hooks uninstall codex --vault {missing}", "vault folder does not exist"),
    ("init ''", "Invalid value for 'DIR': the path is empty"),
    ("lint ''", "Invalid value for 'VAULT [FILE]': the path is empty"),
    ("lint --vault ''", "the path is empty (for the current folder, give .)"),
    ("ingest {note} --vault ''", "the path is empty"),
    ("status --vault ''", "the path is empty"),
    ("lint --as-of '' {vault}", "--as-of must be a date YYYY-MM-DD, not ''"),
    ("wake-up --as-of '' --vault {vault}", "--as-of must be a date YYYY-MM-DD, not ''"),
    ("trust", "give the URL of the endpoint to trust, or --list"),
    ("review --vault {missing}", "vault folder does not exist"),
    ("review --vault {plain}", "is not a wikic vault"),
    ("review show", "Missing argument"),
    ("review show nope --vault {vault}", "no proposal 'nope'"),
    ("review accept nope --vault {vault}", "no proposal 'nope'"),
    ("review reject nope --claim c1a2b3c4 --vault {vault}", "no proposal 'nope'"),
    ("trust 'http://[::1:9/v1'", "cannot trust 'http://[::1:9/v1': it is not a valid URL"),
    ("trust ftp://host/v1", "must be an http(s) URL"),
    ("trust --list https://llm.example.com", "--list takes no URL"),
    ("export bogus", "No such command 'bogus'"),
    ("export site --vault {vault}", "Missing argument 'DIR'"),
    ("export site {vault} --vault {vault}", "refusing to export into {vault}: it is the vault itself"),
    ("export site {vault}/entities/site --vault {vault}", "it is inside entities/ (a page folder)"),
    ("export site {vault}/raw/site --vault {vault}", "it is inside raw/ (the raw sources)"),
    ("export site {vault}/.wikic/site --vault {vault}", "it is inside .wikic/ (wikic's own state)"),
    ("export site {file} --vault {vault}", "it is not a folder"),
    ("export site {plain} --vault {vault}", "it holds files that no export of wikic wrote"),
    ("export site out --template {missing}/page.html --vault {vault}", "cannot read the page template"),
    ("export llms --vault {vault}", "Missing argument 'DIR'"),
    ("export llms {vault}/raw/llms --vault {vault}", "it is inside raw/ (the raw sources)"),
    ("export llms {plain} --vault {vault}", "it holds files that no export of wikic wrote"),
    ("export llms out --site-url wiki.example.org --vault {vault}", "--site-url wiki.example.org is not a web address"),
    ("nope", "No such command 'nope'"),
    ("--bogus", "No such option: --bogus"),
]


def command_of(line: str) -> str:
    words = [w for w in line.split() if not w.startswith("-")]
    two = " ".join(words[:2])
    return two if two in COMMANDS else (words[0] if words and words[0] in COMMANDS else "")


def run(line: str, places: dict[str, str]) -> Any:
    import shlex

    args = [a.format(**places) for a in shlex.split(line)]
    result = CliRunner().invoke(app, args)
    # an exception other than SystemExit is a crash: a traceback for the user
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def assert_usage_error(result: Any, shown: str, *, json_output: bool = False) -> None:
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    errors = [n for n, line in enumerate(lines) if line.startswith("Error: ")]
    assert len(errors) == 1, result.stderr
    hints = [line for line in lines[errors[0]:] if line.startswith("Hint: ")]
    assert len(hints) == 1 and len(hints[0]) > len("Hint: ") + 10, result.stderr
    assert shown in result.stderr, result.stderr
    assert "Traceback" not in result.output
    if json_output:
        data = json.loads(result.stdout)
        assert set(data) == {"error", "hint", "exit_code"} and data["exit_code"] == 2 and data["hint"], data
    else:
        assert result.stdout == "", result.stdout


def test_the_table_names_every_command() -> None:
    """A new command must come with its usage errors here (and their hints)."""
    named = {command_of(line) for line, _ in USAGE_ERRORS}
    assert set(COMMANDS) - NOT_USAGE_ERRORS <= named, set(COMMANDS) - NOT_USAGE_ERRORS - named


@pytest.mark.parametrize(("line", "shown"), USAGE_ERRORS, ids=[line for line, _ in USAGE_ERRORS])
def test_a_usage_error_says_what_is_wrong_and_what_to_do(places: dict[str, str], line: str, shown: str) -> None:
    asks_json = "--json" in line.split() or "--format json" in line or "-f json" in line
    assert_usage_error(run(line, places), shown.format(**places), json_output=asks_json)


def _options(command: Any) -> set[str]:
    return {opt for param in getattr(command, "params", []) for opt in getattr(param, "opts", [])}


LEAVES = sorted(name for name, command in COMMANDS.items() if not hasattr(command, "commands"))


@pytest.mark.parametrize("name", [n for n in LEAVES if n not in NOT_USAGE_ERRORS])
def test_every_command_refuses_an_unknown_option_a_missing_vault_and_a_file_as_vault(
    places: dict[str, str], name: str
) -> None:
    args = {"facts": " Acme", "hooks install": " codex", "hooks uninstall": " codex", "search": " x",
            "query": " x", "ingest": " {note}", "review show": " x", "review accept": " x",
            "review reject": " x", "export site": " out", "export llms": " out"}.get(name, "")
    assert_usage_error(run(f"{name}{args} --no-such-option", places), "No such option: --no-such-option")
    if name == "init":  # init makes its folder: only a file in its place is refused
        assert_usage_error(run("init --vault {file}", places), "exists and is not a folder")
    elif "--vault" in _options(COMMANDS[name]):
        assert_usage_error(run(f"{name}{args} --vault {{missing}}", places), "vault folder does not exist")
        assert_usage_error(run(f"{name}{args} --vault {{file}}", places), "vault is not a folder")


@pytest.mark.parametrize("name", [n for n in LEAVES if "--json" in _options(COMMANDS[n])])
def test_with_json_an_error_is_also_json_on_stdout(places: dict[str, str], name: str) -> None:
    args = {"facts": " Acme", "hooks install": " codex", "hooks uninstall": " codex", "search": " x",
            "query": " x", "ingest": " {note}", "init": " {file}", "review show": " x", "review accept": " x",
            "review reject": " x", "export site": " out", "export llms": " out"}.get(name, "")
    where = "" if name == "init" else " --vault {missing}"
    shown = "exists and is not a folder" if name == "init" else "vault folder does not exist"
    assert_usage_error(run(f"{name}{args}{where} --json", places), shown, json_output=True)
    # and for an error the argument parser finds
    assert_usage_error(run(f"{name}{args} --json --no-such-option", places), "No such option", json_output=True)


def test_lint_format_json_errors_are_json_too(places: dict[str, str]) -> None:
    assert_usage_error(run("lint {missing} --format json", places), "vault folder does not exist", json_output=True)
    assert_usage_error(run("lint --as-of never -f json {vault}", places), "--as-of must be a date", json_output=True)


def test_an_error_without_a_hint_of_its_own_points_at_the_commands_help(places: dict[str, str]) -> None:
    result = run("wake-up --budget 10 --vault {vault}", places)
    assert result.stderr.splitlines()[-1] == (
        "Hint: see `wikic wake-up --help`; for example: wikic wake-up --budget 900 --vault my-wiki"
    )


def test_watch_says_it_is_watching_only_once_it_is(places: dict[str, str]) -> None:
    for where in ("{plain}", "{missing}", "{vault}"):
        result = run(f"watch --vault {where}", places)
        assert result.exit_code == 2 and "(Ctrl-C to stop)" not in result.output


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_and_subcommand_has_help_with_an_example(name: str) -> None:
    result = CliRunner().invoke(app, [*name.split(), "--help"])
    assert result.exit_code == 0
    assert "Example:" in result.stdout, f"`wikic {name} --help` shows no example"


def test_the_mcp_search_tool_answers_an_empty_query_with_guidance(places: dict[str, str]) -> None:
    from wikic.mcp_server import WikiTools

    tools = WikiTools(Path(places["vault"]))
    try:
        for query in ("", "   "):
            answer = tools.search(query)
            assert answer.startswith("Nothing to search for: the query is empty.") and "list_pages" in answer
    finally:
        tools.close()
