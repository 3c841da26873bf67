"""A lint asked about some files: the whole vault is linted, the report holds the findings on those files."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from testkit import make_vault, page
from typer.testing import CliRunner

from wikic.cli import app
from wikic.context import VaultContext
from wikic.lint.run import LintOptions, run_lint
from wikic.lint.scope import changed_in_git, in_vault

PAGES = {
    "entities/a.md": page("A", body="[[b]] [[c]]\n"),
    "entities/b.md": page("B", body="[[a]] [[c]] [[ghost]]\n"),
    "entities/c.md": page("C", body="[[a]] [[b]]\n"),
}


def run(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def _lines(result: Any) -> list[str]:
    return result.stdout.strip().splitlines()


def test_the_report_holds_the_findings_on_the_files_named(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, PAGES)
    whole = run("lint", str(vault))
    assert whole.exit_code == 1 and any("entities/b.md" in line and "ghost" in line for line in _lines(whole))
    on_a = run("lint", str(vault), str(vault / "entities/a.md"))
    assert on_a.exit_code == 0, on_a.stdout
    assert _lines(on_a) == [_lines(whole)[-1].split(" in ")[0].replace(
        ": 1 error(s)", ": 0 error(s)") + " on the 1 file asked about in " + _lines(on_a)[-1].split(" in ")[-1]]
    on_b = run("lint", "--vault", str(vault), str(vault / "entities/a.md"), str(vault / "entities/b.md"))
    assert on_b.exit_code == 1
    assert [line for line in _lines(on_b)[:-1]] == [line for line in _lines(whole)[:-1] if "entities/b.md" in line]
    assert "on the 2 files asked about" in _lines(on_b)[-1]
    data = json.loads(run("lint", str(vault), str(vault / "entities/b.md"), "--format", "json").stdout)
    assert data["summary"]["reported_on"] == 1 and {f["path"] for f in data["findings"]} == {"entities/b.md"}


def test_what_is_known_is_the_whole_vaults(tmp_path: Path) -> None:
    """An orphan is known from every page's links, whichever file the report is about."""
    vault = make_vault(tmp_path, {**PAGES, "entities/d.md": page("D", body="[[a]] [[b]] [[c]]\n")})
    with VaultContext(vault) as context:
        on_d = run_lint(context, LintOptions(only=("entities/d.md",)))
        whole = run_lint(context, LintOptions())
    assert [f for f in whole.findings if f.path == "entities/d.md"] == on_d.findings
    assert "orphan-page" in {f.rule for f in on_d.findings}


def test_files_outside_the_vault_are_left_out_and_bad_paths_refused(tmp_path: Path, monkeypatch: Any) -> None:
    vault = make_vault(tmp_path, PAGES)
    (tmp_path / "README.md").write_text("# readme\n")
    monkeypatch.chdir(tmp_path)
    assert in_vault(vault, [Path("README.md"), vault / "entities/b.md", Path(vault.name) / "entities/b.md"]) == (
        "entities/b.md",)
    outside = run("lint", "--vault", str(vault), "README.md")
    assert outside.exit_code == 0 and "on the 0 files asked about" in outside.stdout
    missing = run("lint", str(vault), "entities/nothing.md")
    assert missing.exit_code == 2 and "no such file: entities/nothing.md" in missing.stderr
    two = run("lint", str(vault), str(vault / "entities"))
    assert two.exit_code == 2 and "entities is a folder: give one vault" in two.stderr
    both = run("lint", "--vault", str(vault), str(vault))
    assert both.exit_code == 2 and "give one vault" in both.stderr
    assert run("lint", "nope").stderr.startswith("Error: vault folder does not exist: nope")
    assert run("lint", str(vault / "entities/a.md")).stderr.startswith("Error: vault is not a folder")


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@wikic.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@wikic.invalid"}
    subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args], cwd=repo,
                   env=env, check=True, capture_output=True, timeout=60)


@pytest.mark.slow  # git processes
def test_changed_asks_git(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "notes.md").write_text("outside the vault\n")
    vault = make_vault(repo, {**PAGES, "entities/d.md": page("D", body="[[a]]\n")}, name="wiki")
    (vault / ".gitignore").write_text(".wikic/\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "first")
    assert changed_in_git(vault) == ()
    (vault / "entities/a.md").write_text(page("A", body="[[b]] [[c]] [[nowhere]]\n"))  # changed, not staged
    (vault / "entities/e.md").write_text(page("E", body="[[a]]\n"))  # new, untracked
    _git(repo, "mv", "wiki/entities/c.md", "wiki/entities/c2.md")  # renamed: by its new name
    (repo / "notes.md").write_text("changed, outside the vault\n")
    assert sorted(changed_in_git(vault)) == ["entities/a.md", "entities/c2.md", "entities/e.md"]
    result = run("lint", str(vault), "--changed")
    assert "entities/b.md" not in result.stdout  # its broken link is not in what changed
    assert "entities/a.md:" in result.stdout and "nowhere" in result.stdout
    assert "on the 3 files asked about" in result.stdout
    plain = tmp_path / "plain"
    plain.mkdir()
    outside = make_vault(plain, PAGES)
    refused = run("lint", str(outside), "--changed")
    assert refused.exit_code == 2 and "not a git repository" in refused.stderr
