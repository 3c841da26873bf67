"""`wikic hooks install|uninstall`: merged into the assistant's settings file with everything else kept,
idempotent, and removed exactly. HOME is the test's own (the real home is never written)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

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


def invoke(*args: str, cwd: Path) -> object:
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
    capture = f"wikic capture --vault {vault} --tool {tool}"
    assert data["model"] == "opus" and data["env"] == {"FOO": "1"} and data["permissions"] == {"allow": ["Bash(ls:*)"]}
    assert [g["hooks"][0]["command"] for g in data["hooks"]["Stop"]] == ["notify-send done", capture]
    assert data["hooks"]["PreCompact"][0]["hooks"][0] == {"type": "command", "command": capture, "timeout": 30}
    assert data["hooks"]["SessionStart"][0]["hooks"][0]["command"] == f"wikic wake-up --vault {vault}"
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
