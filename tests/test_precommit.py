"""The pre-commit hook: the published `.pre-commit-hooks.yaml`, its entry run the way pre-commit runs it,
and the real `pre-commit` tool with a local hook inside a throwaway git repository (no network needed:
`repo: local` with `language: system` installs nothing)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from testkit import make_vault, page

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent  # the environment wikic is installed in

CLEAN = {
    "entities/a.md": page("A", body="[[b]] [[c]]\n"),
    "entities/b.md": page("B", body="[[a]] [[c]]\n"),
    "entities/c.md": page("C", body="[[a]] [[b]]\n"),
}
BROKEN_PAGE = page("D", body="[[a]] [[b]] [[ghost-page]]\n")
BROKEN_INDEX_ENTRY = "- [[d]] — D\n"


def published_hook(hook_id: str = "wikic-lint") -> dict[str, Any]:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert isinstance(hooks, list)
    (hook,) = [h for h in hooks if h["id"] == hook_id]
    return hook


def readme_config(marker: str) -> str:
    """The `.pre-commit-config.yaml` example of README.md that contains `marker`."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in readme.split("```yaml\n")[1:]]
    (block,) = [b for b in blocks if b.startswith("repos:") and marker in b]
    return block


def env(tmp_path: Path) -> dict[str, str]:
    """PATH finds this environment's `wikic`; git needs an identity (HOME is a fresh folder)."""
    out = dict(os.environ)
    out["PATH"] = f"{BIN}{os.pathsep}{out.get('PATH', '')}"
    out["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    out.pop("PYTHONPATH", None)
    for kind in ("AUTHOR", "COMMITTER"):
        out[f"GIT_{kind}_NAME"] = "wikic test"
        out[f"GIT_{kind}_EMAIL"] = "test@wikic.invalid"
    return out


def git(repo: Path, *args: str, environ: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
        cwd=repo,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def git_repo_with_vault(tmp_path: Path, subfolder: str | None, environ: dict[str, str]) -> tuple[Path, Path]:
    repo = tmp_path / "repo"
    repo.mkdir()
    assert git(repo, "init", "-q", environ=environ).returncode == 0
    (repo / ".gitignore").write_text(".wikic/\n")
    if subfolder:
        vault = make_vault(repo, CLEAN, name=subfolder)
    else:
        vault = make_vault(tmp_path, CLEAN, name="staging")
        for item in vault.iterdir():
            shutil.move(str(item), repo / item.name)
        vault = repo
    return repo, vault


def break_vault(vault: Path) -> None:
    (vault / "entities/d.md").write_text(BROKEN_PAGE)
    with open(vault / "index.md", "a", encoding="utf-8") as fh:
        fh.write(BROKEN_INDEX_ENTRY)


# ---- the manifest --------------------------------------------------------------------------------------


def test_published_hook_manifest() -> None:
    for hook_id, staged_only in (("wikic-lint", True), ("wikic-lint-all", False)):
        hook = published_hook(hook_id)
        assert hook["name"] and hook["description"]
        assert hook["entry"] == "wikic lint"
        assert hook["language"] == "python"
        assert hook["types"] == ["markdown"]
        assert hook["pass_filenames"] is staged_only  # the staged files limit the report, never what is linted
        assert hook["require_serial"] is True
        assert hook["minimum_pre_commit_version"] == "2.9.0"


def test_published_hook_manifest_is_valid_for_pre_commit(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-manifest", str(REPO / ".pre-commit-hooks.yaml")],
        env=env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_readme_pins_the_published_hook_to_something_that_exists() -> None:
    """No made-up release tag: `rev:` is a tag of this repository, or a placeholder for a commit SHA."""
    (entry,) = yaml.safe_load(readme_config("rev:"))["repos"]
    assert [h["id"] for h in entry["hooks"]] == [published_hook()["id"]]
    tags = subprocess.run(["git", "tag"], cwd=REPO, capture_output=True, text=True, check=False).stdout.split()
    rev = str(entry["rev"])
    assert rev in tags or "SHA" in rev, rev
    assert "OWNER" not in entry["repo"]


def test_entry_is_an_installed_console_script() -> None:
    """`language: python` runs `entry` from the hook's own environment: it must be one of the package's scripts."""
    import tomllib

    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert shlex.split(published_hook()["entry"])[0] in scripts


# ---- (a) the entry, run the way pre-commit runs it ------------------------------------------------------------


@pytest.mark.slow  # git and wikic processes
@pytest.mark.parametrize("subfolder", [None, "wiki"], ids=["vault-at-repo-root", "vault-in-a-subfolder"])
def test_hook_entry_exit_codes(tmp_path: Path, subfolder: str | None) -> None:
    environ = env(tmp_path)
    environ["PRE_COMMIT"] = "1"
    repo, vault = git_repo_with_vault(tmp_path, subfolder, environ)
    hook = published_hook()
    args = ["--vault", subfolder or "."]  # the user's `args:`; pre-commit appends the staged files
    command = [*shlex.split(hook["entry"]), *args]
    prefix = f"{subfolder}/" if subfolder else ""

    def run(*staged: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*command, *(prefix + path for path in staged)], cwd=repo, env=environ,
                              capture_output=True, text=True, timeout=120, check=False)

    clean = run("entities/a.md", "index.md")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert clean.stdout.rstrip().endswith("— ok")
    break_vault(vault)
    broken = run("entities/d.md", "index.md")
    assert broken.returncode == 1
    assert "entities/d.md:13:13: error broken-wikilink link target 'ghost-page' does not exist" in broken.stdout.split(
        "\n"
    )
    assert "Traceback" not in broken.stderr
    elsewhere = run("entities/a.md")  # the broken page is not among the staged files: the commit is not held up
    assert elsewhere.returncode == 0 and "ghost-page" not in elsewhere.stdout, elsewhere.stdout
    whole = subprocess.run([*shlex.split(published_hook("wikic-lint-all")["entry"]), *args], cwd=repo, env=environ,
                           capture_output=True, text=True, timeout=120, check=False)
    assert whole.returncode == 1 and "ghost-page" in whole.stdout


# ---- (b) the real pre-commit tool ------------------------------------------------------------------------------

LOCAL_CONFIG = """\
repos:
  - repo: local
    hooks:
      - id: wikic-lint
        name: wikic lint
        entry: wikic lint
        language: system
        pass_filenames: false
        files: \\.md$
{args}"""


def pre_commit(repo: Path, *args: str, environ: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=repo,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.slow  # pre-commit, git and wikic processes
def test_real_pre_commit_with_a_local_hook(tmp_path: Path) -> None:
    environ = env(tmp_path)
    repo, vault = git_repo_with_vault(tmp_path, "wiki", environ)
    (repo / ".pre-commit-config.yaml").write_text(readme_config("repo: local"))  # the README's example, as it is
    installed = pre_commit(repo, "install", environ=environ)
    assert installed.returncode == 0, installed.stdout + installed.stderr

    # a clean vault commits
    assert git(repo, "add", "-A", environ=environ).returncode == 0
    commit = git(repo, "commit", "-m", "clean vault", environ=environ)
    assert commit.returncode == 0, commit.stdout + commit.stderr
    assert "wikic lint" in commit.stdout + commit.stderr and "Passed" in commit.stdout + commit.stderr

    # a commit that does not touch a page broken earlier is not held up by it
    (vault / "entities/old.md").write_text(page("Old", body="[[a]] [[b]] [[c]] [[lost-page]]\n"))
    with open(vault / "index.md", "a", encoding="utf-8") as fh:
        fh.write("- [[old]] — Old\n")
    assert git(repo, "add", "-A", environ=environ).returncode == 0
    assert git(repo, "commit", "-q", "--no-verify", "-m", "broken earlier", environ=environ).returncode == 0
    (vault / "entities/a.md").write_text(page("A", body="[[b]] [[c]] [[old]]\n"))
    assert git(repo, "add", "-A", environ=environ).returncode == 0
    touched = git(repo, "commit", "-m", "a page edited", environ=environ)
    assert touched.returncode == 0, touched.stdout + touched.stderr
    assert "lost-page" not in touched.stdout + touched.stderr

    # a staged page with a broken link is refused, with the finding in the output
    break_vault(vault)
    assert git(repo, "add", "-A", environ=environ).returncode == 0
    refused = git(repo, "commit", "-m", "broken link", environ=environ)
    assert refused.returncode != 0
    output = refused.stdout + refused.stderr
    assert "Failed" in output and "- exit code: 1" in output
    assert "entities/d.md:13:13: error broken-wikilink link target 'ghost-page' does not exist" in output
    assert git(repo, "rev-list", "--count", "HEAD", environ=environ).stdout.strip() == "3"

    run_all = pre_commit(repo, "run", "--all-files", environ=environ)
    assert run_all.returncode == 1
    assert "broken-wikilink link target 'ghost-page' does not exist" in run_all.stdout
    assert "broken-wikilink link target 'lost-page' does not exist" in run_all.stdout
    assert ".wikic" not in git(repo, "status", "--porcelain", environ=environ).stdout  # the cache stays out of git


@pytest.mark.slow  # pre-commit and git processes
def test_real_pre_commit_skips_the_hook_when_no_markdown_is_staged(tmp_path: Path) -> None:
    environ = env(tmp_path)
    repo, vault = git_repo_with_vault(tmp_path, None, environ)
    (repo / ".pre-commit-config.yaml").write_text(LOCAL_CONFIG.format(args=""))
    break_vault(vault)
    assert git(repo, "add", "-A", environ=environ).returncode == 0
    assert git(repo, "commit", "-q", "--no-verify", "-m", "broken already", environ=environ).returncode == 0
    (repo / "notes.txt").write_text("not markdown\n")
    assert git(repo, "add", "notes.txt", environ=environ).returncode == 0
    proc = pre_commit(repo, "run", environ=environ)
    assert proc.returncode == 0
    assert "(no files to check)Skipped" in proc.stdout.replace(".", "")
