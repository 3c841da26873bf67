"""The `wikic` script's fast path for a plain `wikic lint` (`cli/lint_fast.py`): the same report, stderr and exit
code as the full command for every plain form, nothing printed for any other form (the full command then runs),
Ctrl-C and a closed pipe as the full command ends on them, and no Typer loaded on the way."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from processes import wikic_script
from testkit import make_vault, page
from typer.testing import CliRunner

from wikic.cli import app, main
from wikic.cli.lint_fast import linted_fast

AS_OF = "2026-03-01"
PAGES = {
    "entities/a.md": page("A", body="[[b]] [[c]]\n"),
    "entities/b.md": page("B", body="[[a]] [[c]] [[ghost]]\n"),  # an error: a broken link
    "entities/c.md": page("C", body="[[a]] [[b]]\n"),
    "entities/d.md": page("D", body="[[a]]\n"),  # warnings: an orphan, few links
}


def plain_forms(v: str, a: str, b: str) -> list[list[str]]:
    return [
        [v], [v, a], [v, a, b], ["--vault", v, a], ["-C", v, b], [f"--vault={v}"], [v, "--json"],
        [v, "--format", "json"], [v, "-f", "sarif"], [v, "--format=github", a], [v, "--strict"], [v, "--no-strict"],
        [v, "--select", "broken-wikilink,orphan-page"], [v, "--ignore=orphan-page", "--json"], [v, "--as-of", AS_OF],
        [v, "--no-cache"], [v, "--cache", "--strict", a], [v, "--changed"], ["--changed", "-C", v, "--json"],
    ]


def not_plain(v: str, a: str) -> list[list[str]]:
    return [
        [v, "--fix"], [v, "--diff"], ["--explain", "orphan-page"], [v, "--help"], [v, "-h"], [v, "--json", "--json"],
        [v, "--strict", "--no-strict"], [v, "-fjson"], [v, "-f=json"], [v, "--format"], ["--vault", ""], [""],
        [v, "--select", "-x"], ["--", v], [v, "--bogus"], ["-C", v, "-C", v], [v, " "],
    ]


def wrong(v: str, root: Path) -> list[list[str]]:
    """Plain forms whose lint stops on an error: the full command reports each (exit 2)."""
    return [
        [v, "--format", "xml"], [v, "--json", "--format", "sarif"], [v, "--as-of", "2026-13-01"],
        [str(root / "missing")], [v, str(root / "entities")], [v, str(root / "entities" / "nothing.md")],
        [v, "--select", "no-such-rule"], [str(root / "entities" / "a.md")],
    ]


def full(args: list[str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["lint", *args])
    return result.exit_code, steady(result.stdout), result.stderr


def fast(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int | None, str, str]:
    capsys.readouterr()
    code = linted_fast(args)
    out = capsys.readouterr()
    return code, steady(out.out), out.err


def steady(report: str) -> str:
    """A report without the time its lint took, the one thing two runs of it may print differently."""
    return re.sub(r'(?<=\bin )\d+\.\d\ds(?= — )|(?<="seconds": )[0-9.e-]+', "T", report)


@pytest.fixture(name="vault")
def vault_fixture(tmp_path: Path) -> Path:
    root = make_vault(tmp_path, PAGES)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q", str(root)], check=True)
    subprocess.run([*git, "-C", str(root), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(root), "commit", "-qm", "vault"], check=True)
    (root / "entities" / "d.md").write_text(page("D", body="[[a]] [[nowhere]]\n"))  # changed since the commit
    return root


def test_every_plain_form_prints_what_the_full_command_prints(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = str(vault / "entities" / "b.md"), str(vault / "entities" / "d.md")
    for words in plain_forms(str(vault), a, b):
        code, out, err = fast(words, capsys)
        assert (code, out, err) == full(words), words
        assert code in (0, 1) and out, words
    assert fast([str(vault), "--changed"], capsys)[1].startswith("entities/d.md:")  # only the changed page's


def test_the_vault_found_from_the_current_folder(vault: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(vault / "entities")
    for words in ([], ["--json"], [str(vault), "a.md"]):
        assert fast(words, capsys) == full(words), words


def test_any_other_form_is_left_to_the_full_command(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = str(vault / "entities" / "a.md")
    for words in not_plain(str(vault), a):
        assert fast(words, capsys) == (None, "", ""), words
    for words in wrong(str(vault), vault):
        assert fast(words, capsys) == (None, "", ""), words
        code, _, err = full(words)
        assert code == 2 and err.startswith("Error: "), (words, err)


def test_a_broken_config_is_the_full_commands_to_report(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (vault / "wikic.toml").write_text("[lint]\nstrict = maybe\n")
    assert fast([str(vault)], capsys) == (None, "", "")
    code, _, err = full([str(vault)])
    assert code == 2 and "wikic.toml" in err


def test_ctrl_c_ends_it_as_the_full_command(vault: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    import wikic.lint.run

    def interrupted(*_: Any, **__: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(wikic.lint.run, "run_lint", interrupted)
    assert full([str(vault)])[0] == 130
    assert fast([str(vault)], capsys) == (130, "", "")


def test_the_script_lints_without_typer_and_falls_back_to_it(vault: Path) -> None:
    plain = wikic_script(["lint", str(vault)], capture_output=True)
    assert plain.returncode == 1 and plain.stderr == "False\n" and "broken-wikilink" in plain.stdout
    help_ = wikic_script(["lint", str(vault), "--help"], capture_output=True)
    assert help_.returncode == 0 and help_.stderr == "True\n" and "Usage: wikic lint" in help_.stdout
    bad = wikic_script(["lint", str(vault), "--format", "xml"], capture_output=True)
    assert bad.returncode == 2 and bad.stderr.startswith("Error: unknown format 'xml'") and bad.stderr.endswith(
        "True\n")


def test_a_closed_pipe_ends_it_quietly_with_exit_1(vault: Path) -> None:
    read, write = os.pipe()
    os.close(read)  # `wikic lint | head`, the reader gone before the report is written
    try:
        done = wikic_script(["lint", str(vault)], stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    assert done.returncode == 1 and done.stderr == "False\n", done.stderr


def test_main_exits_with_the_fast_paths_code(vault: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["wikic", "lint", str(vault), "--json"])
    with pytest.raises(SystemExit) as stopped:
        main()
    assert stopped.value.code == 1 and capsys.readouterr().out.startswith('{"wikic": ')
