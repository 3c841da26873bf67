"""A vault cloned with git, or copied by a sync tool that skips dot-folders, costs no model call: the
ledgers travel with the vault (init's `.gitignore` keeps them), and a compiled ledger that did not is read
back from the pages."""

from __future__ import annotations

import shutil
import subprocess
import traceback
from pathlib import Path

import gkit
from standin_openai import StandinServer
from typer.testing import CliRunner

from wikic.cli import app


def cli(root: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, [*args, "--vault", str(root)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError("".join(traceback.format_exception(result.exception)))
    return result.exit_code, result.stdout + result.stderr


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def model_calls(server: StandinServer) -> int:
    return sum(1 for r in server.requests if r.path.endswith("/chat/completions"))


def compiled_vault(server: StandinServer, root: Path) -> Path:
    gkit.make_vault(root, server.base_url)
    code, out = cli(root, "ingest", *gkit.sources(root.parent / "inbox", 3), "--no-palace")
    assert code == 0, out
    return root


def test_a_git_clone_keeps_the_ledgers_and_an_ingest_there_asks_the_model_nothing(
    standin: StandinServer, tmp_path: Path
) -> None:
    root = compiled_vault(standin, tmp_path / "wiki")
    git("init", "-q", cwd=root)
    git("add", "-A", cwd=root)
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "wiki", cwd=root)
    tracked = set(git("ls-files", cwd=root).split())
    assert {".wikic/sources.json", ".wikic/compiled.json", ".wikic/mentions.json"} <= tracked
    assert not [p for p in tracked if p.startswith((".wikic/cache/", ".wikic/palace"))]
    clone = tmp_path / "clone"
    git("clone", "-q", str(root), str(clone), cwd=tmp_path)
    rows = gkit.log_rows(clone)
    standin.requests.clear()
    code, out = cli(clone, "ingest", "--no-palace")
    assert code == 0, out
    assert model_calls(standin) == 0
    assert gkit.log_rows(clone) == rows
    code, out = cli(clone, "status")
    assert "3 compiled" in out, out


def test_a_vault_synced_without_its_state_folder_rebuilds_what_was_compiled_from_the_pages(
    standin: StandinServer, tmp_path: Path
) -> None:
    root = compiled_vault(standin, tmp_path / "wiki")
    pages = {p: (root / p).read_bytes() for p in gkit.page_paths(root)}
    rows = gkit.log_rows(root)
    shutil.rmtree(root / ".wikic")
    standin.requests.clear()
    code, out = cli(root, "ingest", "--no-palace")
    assert code == 0, out
    assert "source(s) recorded as compiled, as the pages that cite them show" in out
    assert model_calls(standin) == 0
    assert gkit.log_rows(root) == rows  # no source logged twice
    assert {p: (root / p).read_bytes() for p in gkit.page_paths(root)} == pages
    assert len(gkit.compiled_sources(root)) == 3
    code, out = cli(root, "ingest", "--no-palace")  # the rebuild happens once
    assert code == 0 and "recorded as compiled" not in out
