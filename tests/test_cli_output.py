"""What the command line prints never carries a control character to the terminal: a file name, a source or
an argument holding an escape sequence (OSC 52 sets the clipboard, OSC 0 the window title) is shown with the
sequence written out, and `--json` keeps the exact value. Every command prints through `cli/_output.py`, and a
scan of `wikic/cli/` holds new code to it."""

from __future__ import annotations

import ast
import io
import json
import sys
from pathlib import Path

import pytest
from testkit import make_vault, page
from typer.testing import CliRunner, Result

import wikic.cli
from wikic.cli import app
from wikic.cli._output import printable, printable_json, say, say_json
from wikic.cli.capture_fast import run_fast

CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07"  # OSC 52: puts "rm -rf ~" on the clipboard
TITLE = "\x1b]0;pwned\x1b\\"  # OSC 0, closed by ST: sets the window title
SHOWN_CLIPBOARD = "\\x1b]52;c;cm0gLXJmIH4=\\x07"
# Every character a terminal may act on, or that shows text in another order than it is read.
UNSHOWABLE = [chr(c) for c in (*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))] + [
    "\ud800", "\udfff", "\u202a", "\u202e", "\u2066", "\u2069",
]


def run(*args: str, input: str | None = None) -> Result:
    result = CliRunner().invoke(app, list(args), input=input)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def shows_nothing_raw(text: str) -> bool:
    return not any(char in text for char in UNSHOWABLE)


# ---- the one function ----------------------------------------------------------------------------------


def test_printable_writes_every_control_out_and_keeps_layout() -> None:
    assert printable(f"a{CLIPBOARD}b") == f"a{SHOWN_CLIPBOARD}b"
    assert printable("one\r\ntwo\rthree\tfour\n") == "one\ntwo\\x0dthree\tfour\n"
    assert printable("csi \x9b31m, override \u202etxt.md, lone \ud800") == (
        "csi \\x9b31m, override \\u202etxt.md, lone \\ud800")
    assert printable("Ünïcode 数据库 — fine") == "Ünïcode 数据库 — fine"
    assert all(shows_nothing_raw(printable(f"x{char}y")) for char in UNSHOWABLE)


def test_printable_json_keeps_the_value() -> None:
    value = {"name": f"x{CLIPBOARD}\x9b\u202e\ud800 é"}
    text = printable_json(json.dumps(value, ensure_ascii=False))
    assert shows_nothing_raw(text) and "é" in text
    assert json.loads(text) == value


def test_say_and_say_json(monkeypatch: pytest.MonkeyPatch) -> None:
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    say(f"name {TITLE}")
    say(f"error {CLIPBOARD}", err=True)
    say_json({"name": TITLE + "\x9b"})
    assert out.getvalue() == 'name \\x1b]0;pwned\\x1b\\\n{"name": "\\u001b]0;pwned\\u001b\\\\\\u009b"}\n'
    assert err.getvalue() == f"error {SHOWN_CLIPBOARD}\n"


# ---- the commands ----------------------------------------------------------------------------------------


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A vault with a page and a raw source whose file names hold escape sequences."""
    root = make_vault(tmp_path, {f"entities/evil{CLIPBOARD}.md": page("Evil", body="[[nowhere]]\n")})
    (root / "raw" / "articles" / f"note{TITLE}.md").write_text(f"# Note\n\nA note {CLIPBOARD} here.\n")
    return root


def test_lint_shows_a_file_name_with_escapes_written_out(hostile: Path) -> None:
    result = run("lint", str(hostile))
    assert result.exit_code == 1
    assert shows_nothing_raw(result.stdout) and shows_nothing_raw(result.stderr)
    assert f"entities/evil{SHOWN_CLIPBOARD}.md" in result.stdout
    for fmt in ("json", "sarif"):
        out = run("lint", str(hostile), "--format", fmt).stdout
        assert shows_nothing_raw(out) and f"evil{CLIPBOARD}.md" in out.encode().decode("unicode_escape")
    github = run("lint", str(hostile), "--format", "github").stdout
    assert shows_nothing_raw(github) and "::error file=entities/evil" in github


def test_lint_json_keeps_the_exact_name(hostile: Path) -> None:
    report = json.loads(run("lint", str(hostile), "--json").stdout)
    assert f"entities/evil{CLIPBOARD}.md" in {f["path"] for f in report["findings"]}


def test_ingest_shows_a_raw_name_with_escapes_written_out(hostile: Path) -> None:
    result = run("ingest", "--estimate", "--vault", str(hostile))
    assert result.exit_code == 0, result.output
    assert shows_nothing_raw(result.stdout) and shows_nothing_raw(result.stderr)
    assert "raw/articles/note\\x1b]0;pwned\\x1b\\.md: ~" in result.stdout


def test_an_error_naming_an_argument_with_escapes(tmp_path: Path) -> None:
    result = run("lint", str(tmp_path / f"missing{TITLE}"))
    assert result.exit_code == 2
    assert shows_nothing_raw(result.stderr) and "missing\\x1b]0;pwned" in result.stderr
    result = run("lint", str(tmp_path / f"missing{TITLE}"), "--json")
    assert shows_nothing_raw(result.stdout) and TITLE in json.loads(result.stdout)["error"]
    result = run("status", f"--bogus{CLIPBOARD}")  # the argument parser's own usage error
    assert result.exit_code == 2 and shows_nothing_raw(result.stderr) and "--bogus\\x1b]52;c;" in result.stderr


def test_capture_outside_typer_prints_through_it_too(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    assert run_fast([f"--bogus{CLIPBOARD}"]) == 0
    assert shows_nothing_raw(err.getvalue()) and f"--bogus{SHOWN_CLIPBOARD}" in err.getvalue()


# ---- no way around it ------------------------------------------------------------------------------------

# Calls that write to the terminal: print(), typer.echo/secho, click.echo, stream.write, a Rich console's
# print, traceback.print_exception and its kin.
_WRITERS = {"echo", "secho", "print", "write", "writelines", "print_exception", "print_exc", "print_tb",
            "print_stack"}


def direct_writes(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name in _WRITERS:
            found.append(f"line {node.lineno}: {ast.unparse(func)}(...)")
    return found


def test_no_command_prints_but_through_the_output_module() -> None:
    folder = Path(wikic.cli.__file__).parent
    found = {
        path.name: writes
        for path in sorted(folder.glob("*.py"))
        if path.name != "_output.py" and (writes := direct_writes(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_scan_sees_every_way_of_writing() -> None:
    source = (
        "import sys, typer, traceback\nprint('x')\ntyper.echo('x')\nsys.stdout.write('x')\n"
        "console.print('x')\ntraceback.print_exception(e)\ntyper.secho('x', err=True)\n"
    )
    assert len(direct_writes(source)) == 6
