"""`wikic hooks install|uninstall`: merged into the assistant's settings file with everything else kept,
idempotent, and removed exactly; the hooks run this install's `wikic` by its absolute path, and replace
(or, uninstalled, lose) what older versions wrote; a settings file that is a link is written through; one
that is not JSON, or nested too deep, is left alone. HOME is the test's own (the real home is never written)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from wikic.cli import app
from wikic.conversations import hooks

FOREIGN = """{
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}],
        "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "ruff format"}]}]
    },
    "env": {"FOO": "1"}
}
"""


def invoke(*args: str, cwd: Path) -> Result:
    import os

    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(app, list(args))
    finally:
        os.chdir(old)


@pytest.mark.parametrize(("tool", "where"), [("claude-code", ".claude/settings.json"), ("codex", ".codex/hooks.json")])
def test_install_merges_and_uninstall_removes_exactly_what_it_added(
    vault: Path, tmp_path: Path, tool: str, where: str
) -> None:
    project = tmp_path / "project"
    settings = project / where
    settings.parent.mkdir(parents=True)
    settings.write_text(FOREIGN)
    result = invoke("hooks", "install", tool, "--vault", str(vault), cwd=project)
    assert result.exit_code == 0, result.output
    data = json.loads(settings.read_text())
    wikic = shlex.quote(str(Path(sys.executable).parent / "wikic"))  # this install's script (pip install -e)
    capture = f"{wikic} capture --vault {vault} --tool {tool}"
    assert data["model"] == "opus" and data["env"] == {"FOO": "1"} and data["permissions"] == {"allow": ["Bash(ls:*)"]}
    assert [g["hooks"][0]["command"] for g in data["hooks"]["Stop"]] == ["notify-send done", capture]
    assert data["hooks"]["PreCompact"][0]["hooks"][0] == {"type": "command", "command": capture, "timeout": 30}
    assert data["hooks"]["SessionStart"][0]["hooks"][0]["command"] == f"{wikic} wake-up --vault {vault}"
    assert data["hooks"]["PostToolUse"] == json.loads(FOREIGN)["hooks"]["PostToolUse"]
    assert settings.read_text().startswith('{\n    "model"')  # its indentation kept
    text = settings.read_text()
    again = invoke("hooks", "install", tool, "--vault", str(vault), cwd=project)
    assert "nothing to install" in again.output and settings.read_text() == text
    result = invoke("hooks", "uninstall", tool, "--vault", str(vault), cwd=project)
    assert result.exit_code == 0 and result.output.count(" - ") == 3
    assert json.loads(settings.read_text()) == json.loads(FOREIGN)


def test_user_settings_are_the_home_folder_and_a_new_file_is_created(vault: Path, tmp_path: Path) -> None:
    home = Path.home()  # the test's own HOME (tests/conftest.py), never the real one
    result = invoke("hooks", "install", "claude-code", "--vault", str(vault), "--user", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    settings = home / ".claude" / "settings.json"
    assert set(json.loads(settings.read_text())["hooks"]) == {"Stop", "PreCompact", "SessionStart"}
    invoke("hooks", "uninstall", "claude-code", "--vault", str(vault), "--user", cwd=tmp_path)
    assert json.loads(settings.read_text()) == {}


def test_a_settings_file_that_is_not_json_is_left_alone(vault: Path, tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": "opus",}  // a comment\n')
    result = invoke("hooks", "install", "claude-code", "--vault", str(vault), cwd=tmp_path)
    assert result.exit_code == 2 and "not a JSON file wikic can merge into" in result.stderr
    assert settings.read_text() == '{"model": "opus",}  // a comment\n'


def test_an_unknown_assistant_is_a_usage_error(vault: Path, tmp_path: Path) -> None:
    result = invoke("hooks", "install", "cursor", "--vault", str(vault), cwd=tmp_path)
    assert result.exit_code == 2 and "unknown assistant 'cursor'" in result.stderr


def test_the_installed_command_quotes_the_vault_path(tmp_path: Path) -> None:
    assert (
        hooks.commands("codex", tmp_path / "my wiki")["Stop"]
        == f"wikic capture --vault '{tmp_path}/my wiki' --tool codex"
    )


def test_the_hooks_run_this_install_by_its_absolute_path(vault: Path, tmp_path: Path) -> None:
    assert invoke("hooks", "install", "claude-code", "--vault", str(vault), cwd=tmp_path).exit_code == 0
    data = json.loads((tmp_path / ".claude" / "settings.json").read_text())
    for event in ("Stop", "PreCompact", "SessionStart"):
        program = shlex.split(data["hooks"][event][0]["hooks"][0]["command"])[0]
        assert os.path.isabs(program) and os.access(program, os.X_OK) and Path(program).name == "wikic"


@pytest.mark.slow  # runs the installed hook in a shell of its own
def test_the_installed_hook_runs_with_a_path_that_does_not_hold_wikic(vault: Path, tmp_path: Path) -> None:
    invoke("hooks", "install", "claude-code", "--vault", str(vault), cwd=tmp_path)
    command = json.loads((tmp_path / ".claude" / "settings.json").read_text())["hooks"]["SessionStart"][0]["hooks"][0]
    done = subprocess.run(command["command"], shell=True, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# Briefing (")  # the briefing: wikic ran, from outside its virtualenv


def test_under_python_m_wikic_the_script_beside_the_interpreter_else_the_interpreter(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(sys, "argv", [str(Path(hooks.__file__).parent.parent / "__main__.py")])
    assert hooks.program() == shlex.quote(str(Path(sys.executable).parent / "wikic"))
    lone = tmp_path / "bin" / "python3"  # an interpreter with no wikic script beside it
    lone.parent.mkdir()
    lone.symlink_to(sys.executable)
    monkeypatch.setattr(sys, "executable", str(lone))
    assert hooks.program() == f"{lone} -m wikic"


def test_uninstall_removes_and_install_replaces_what_older_versions_wrote(vault: Path, tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    old = hooks.commands("claude-code", vault)  # what earlier versions wrote: a bare `wikic`
    elsewhere = hooks.commands("claude-code", vault, "/opt/old-venv/bin/wikic")  # or another install's path
    foreign = {"type": "command", "command": "wikic capture --vault /another/vault --tool claude-code"}
    settings.write_text(json.dumps({"hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": old["Stop"]}, foreign]}],
        "PreCompact": [{"hooks": [{"type": "command", "command": elsewhere["PreCompact"]}]}],
        "SessionStart": [{"hooks": [{"type": "command", "command": old["SessionStart"]}]}]}}))
    result = invoke("hooks", "uninstall", "claude-code", "--vault", str(vault), cwd=tmp_path)
    assert result.exit_code == 0 and result.output.count(" - ") == 3
    assert json.loads(settings.read_text()) == {"hooks": {"Stop": [{"hooks": [foreign]}]}}  # another vault's stays
    settings.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": old["Stop"]}]}]}}))
    result = invoke("hooks", "install", "claude-code", "--vault", str(vault), cwd=tmp_path)
    assert result.exit_code == 0 and result.output.count(" - ") == 1 and result.output.count(" + ") == 3
    stop = [e["command"] for g in json.loads(settings.read_text())["hooks"]["Stop"] for e in g["hooks"]]
    assert stop == [hooks.commands("claude-code", vault, hooks.program())["Stop"]]


def test_a_settings_file_nested_too_deep_is_refused_and_left_alone(vault: Path, tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    deep = '{"model": "opus", "x": ' + "[" * 1000 + "]" * 1000 + "}\n"
    settings.write_text(deep)
    for action in ("install", "uninstall"):
        result = invoke("hooks", action, "claude-code", "--vault", str(vault), cwd=tmp_path)
        assert result.exit_code == 2, result.output
        assert f"{settings}: not a JSON file wikic can merge into (nested deeper than 200 levels)" in result.stderr
    assert settings.read_text() == deep


def test_a_settings_file_that_is_a_link_is_written_through_and_stays_a_link(vault: Path, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text(FOREIGN)
    link = tmp_path / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(os.path.relpath(dotfiles, link.parent))
    assert invoke("hooks", "install", "claude-code", "--vault", str(vault), cwd=tmp_path).exit_code == 0
    assert link.is_symlink() and link.resolve() == dotfiles.resolve()
    assert set(json.loads(dotfiles.read_text())["hooks"]) >= {"Stop", "PreCompact", "SessionStart", "PostToolUse"}
    assert invoke("hooks", "uninstall", "claude-code", "--vault", str(vault), cwd=tmp_path).exit_code == 0
    assert link.is_symlink() and json.loads(dotfiles.read_text()) == json.loads(FOREIGN)
    dangling = tmp_path / "p" / ".claude" / "settings.json"
    dangling.parent.mkdir(parents=True)
    dangling.symlink_to(tmp_path / "nowhere" / "settings.json")
    result = invoke("hooks", "install", "claude-code", "--vault", str(vault), cwd=tmp_path / "p")
    assert result.exit_code == 2 and "whose folder does not exist" in result.stderr
    assert dangling.is_symlink() and not (tmp_path / "nowhere").exists()


@pytest.mark.slow  # asks a stand-in interpreter, in a process of its own, whether it finds wikic
@pytest.mark.parametrize(("finds", "warned"), [(True, False), (False, True)])
def test_a_hook_that_runs_python_m_wikic_warns_when_that_python_lacks_wikic(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, finds: bool, warned: bool
) -> None:
    python = tmp_path / "bin" / "python3"
    python.parent.mkdir()
    python.write_text(f"#!/bin/sh\nexit {0 if finds else 1}\n")
    python.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(python))
    monkeypatch.setattr(sys, "argv", ["-m"])
    change = hooks.install(tmp_path / ".claude" / "settings.json", "claude-code", vault)
    assert change.added[0] == f"Stop: {python} -m wikic capture --vault {vault} --tool claude-code"
    assert bool(change.warnings) is warned
    assert not warned or "does not find wikic by itself" in change.warnings[0]
