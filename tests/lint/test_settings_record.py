"""Lint's record of the settings it validated (`VaultContext.lint_strict`): taken again only for the same vault
folder, the same wikic.toml file and bytes, the same user config and environment; otherwise the settings are
validated again, and a broken file is reported as always. A lint that takes it never loads pydantic."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from convkit import finish, wikic_process
from testkit import make_vault, page
from typer.testing import CliRunner

import wikic.settings
from wikic.cli import app
from wikic.context import VaultContext
from wikic.errors import ConfigError, VaultError
from wikic.vault.state import SETTINGS_CHECKED

PAGES = {
    "entities/a.md": page("A", body="[[b]] [[c]]\n"),
    "entities/b.md": page("B", body="[[a]] [[ghost]]\n"),  # an error: a broken link
    "entities/c.md": page("C", body="[[a]] [[b]]\n"),
    "entities/d.md": page("D", body="[[a]] [[b]]\n"),  # a warning: an orphan
}


@pytest.fixture(name="validations")
def validations_fixture(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Each vault whose settings were validated, in order."""
    seen: list[Path] = []
    real = wikic.settings.load_settings

    def counted(root: Path, *args: Any, **kwargs: Any) -> Any:
        seen.append(Path(root))
        return real(root, *args, **kwargs)

    monkeypatch.setattr(wikic.settings, "load_settings", counted)
    return seen


def strict(root: Path, **kwargs: Any) -> bool:
    return VaultContext(root, **kwargs).lint_strict(recorded=True)


def test_the_same_settings_are_validated_once(tmp_path: Path, validations: list[Path],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_vault(tmp_path, PAGES)
    (root / "wikic.toml").write_text("[lint]\nstrict = true\n")
    assert strict(root) and validations == [root]
    assert strict(root) and validations == [root]  # the record gives it
    assert (root / ".wikic" / SETTINGS_CHECKED).is_file()
    assert VaultContext(root).lint_strict() and len(validations) == 2  # a lint without its caches validates

    changes: list[Callable[[], object]] = [
        lambda: (root / "wikic.toml").write_text("[lint]\nstrict = true\n\n"),  # other bytes
        lambda: monkeypatch.setenv("WIKIC_LLM_MODEL", "another"),  # the environment
        lambda: (tmp_path / "home" / ".config" / "wikic").mkdir(parents=True),  # (a folder: no file yet)
        lambda: (tmp_path / "home" / ".config" / "wikic" / "config.toml").write_text("[mcp]\n"),  # the user config
    ]
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert strict(root) and len(validations) == 3  # HOME names another user config
    for change in changes:
        before = len(validations)
        change()
        assert strict(root) and strict(root), change
        assert len(validations) == before + (change is not changes[2]), change
    assert strict(root, overrides={"model": "x"}) and len(validations) == 7  # flags are validated every time


def test_a_copied_vault_validates_its_own_file(tmp_path: Path, validations: list[Path]) -> None:
    root = make_vault(tmp_path, PAGES)
    (root / "wikic.toml").write_text("[lint]\nstrict = true\n")
    assert strict(root) and validations == [root]
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)  # .wikic/ too: a vault cloned with its caches
    (copy / "wikic.toml").write_text("[lint]\nstrict = true\n")  # same bytes, another file
    assert strict(copy) and validations == [root, copy]
    record = (root / ".wikic" / SETTINGS_CHECKED).read_bytes()
    (copy / ".wikic" / SETTINGS_CHECKED).write_bytes(record)  # the first vault's record planted in the copy
    assert strict(copy) and validations == [root, copy, copy]


def test_a_broken_file_is_reported_after_a_recorded_run(tmp_path: Path) -> None:
    root = make_vault(tmp_path, PAGES)
    (root / "wikic.toml").write_text("[lint]\nstrict = true\n")
    runs = [CliRunner().invoke(app, ["lint", str(root)]) for _ in range(2)]
    assert [r.exit_code for r in runs] == [1, 1]
    assert runs[0].stdout.split(" in ")[0] == runs[1].stdout.split(" in ")[0]  # all but the time it took
    (root / "wikic.toml").write_text("[lint]\nstrict = maybe\n")
    broken = CliRunner().invoke(app, ["lint", str(root)])
    assert broken.exit_code == 2 and "wikic.toml" in broken.stderr
    (root / "wikic.toml").write_text("[lint]\nstrict = false\n[llm]\nmodel = 3\n")  # the lint table fine
    assert CliRunner().invoke(app, ["lint", str(root)]).exit_code == 2  # still the whole file validated
    (root / "wikic.toml").write_text("[lint]\nstrict = false\n")
    warned = [CliRunner().invoke(app, ["lint", str(root), "--select", "orphan-page"]) for _ in range(2)]
    assert [w.exit_code for w in warned] == [0, 0] and "orphan-page" in warned[1].stdout  # strict off: it passes
    (root / "wikic.toml").write_text("[lint]\nstrict = true\n")
    assert CliRunner().invoke(app, ["lint", str(root), "--select", "orphan-page"]).exit_code == 1


def test_a_lint_without_its_caches_validates_every_time(tmp_path: Path, validations: list[Path]) -> None:
    root = make_vault(tmp_path, PAGES)
    assert CliRunner().invoke(app, ["lint", str(root)]).exit_code == 1 and validations == [root]
    for _ in range(2):
        assert CliRunner().invoke(app, ["lint", str(root), "--no-cache"]).exit_code == 1
    assert validations == [root] * 3
    assert CliRunner().invoke(app, ["lint", str(root)]).exit_code == 1 and len(validations) == 3


def test_no_record_in_a_folder_lint_writes_nothing_into(tmp_path: Path, validations: list[Path]) -> None:
    root = make_vault(tmp_path, {"a.md": "[[b]]\n", "b.md": "[[a]]\n"}, schema=False)
    for _ in range(2):
        assert CliRunner().invoke(app, ["lint", str(root)]).exit_code == 0
    assert validations == [root, root] and not (root / ".wikic").exists()


def test_a_recorded_lint_loads_no_pydantic(tmp_path: Path) -> None:
    root = make_vault(tmp_path, PAGES)
    (root / "wikic.toml").write_text("[lint]\nstrict = true\n")
    code = ("import sys; from wikic.cli import main; sys.argv = ['wikic', 'lint', sys.argv[1]]\n"
            "try:\n    main()\nexcept SystemExit as stop:\n"
            "    print(stop.code, 'pydantic' in sys.modules, file=sys.stderr)")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    runs = [subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, env=env,
                           timeout=120) for _ in range(2)]
    assert [r.stderr for r in runs] == ["1 True\n", "1 False\n"]
    assert runs[0].stdout.split(" in ")[0] == runs[1].stdout.split(" in ")[0]


@pytest.mark.parametrize("planted", ["fifo", "zero", "outside"])
def test_a_wikic_toml_that_is_no_file_of_the_vault_is_refused_not_read(tmp_path: Path, planted: str) -> None:
    root = make_vault(tmp_path, PAGES)
    target = root / "wikic.toml"
    if planted == "fifo":
        os.mkfifo(target)  # a reader would wait for a writer forever
    elif planted == "zero":
        target.symlink_to("/dev/zero")  # a reader would read forever
    else:
        (tmp_path / "elsewhere.toml").write_text("[lint]\nstrict = true\n")
        target.symlink_to(tmp_path / "elsewhere.toml")
    refused = ConfigError if planted == "fifo" else VaultError  # cannot be read / leads outside the vault
    for _ in range(2):
        code, _, err = finish(wikic_process(["lint", str(root)]), timeout=60)
        assert code == refused.exit_code and b"wikic.toml" in err, err
    assert not (root / ".wikic" / SETTINGS_CHECKED).exists()

