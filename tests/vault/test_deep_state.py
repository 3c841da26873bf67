"""A vault whose `.wikic/` files hold JSON nested 100,000 levels deep (a clone, a synced folder: anyone may
have written them): state and caches read as damaged (a cache is rebuilt, a missing ledger is empty), and
every command that reads them goes on, never a RecursionError."""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit import make_vault, page
from typer.testing import CliRunner

from wikic.cli import app

DEEP = "[" * 100_000 + "]" * 100_000
STATE = (
    "sources.json", "compiled.json", "mentions.json", "journal.json", "conversations.json", "set-aside.json",
    "cache/lint-report.json", "cache/page-rules.json", "cache/resolved-links.json", "cache/close-names.json",
    "cache/memories.json",
)


@pytest.fixture
def deep_state(tmp_path: Path) -> Path:
    root = make_vault(tmp_path, {"entities/a.md": page("A", body="A page.\n")})
    for name in STATE:
        (root / ".wikic" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / ".wikic" / name).write_text(DEEP)
    (root / ".wikic" / "cache" / "parse-cache.jsonl").write_text(DEEP + "\n" + DEEP + "\n")
    return root


@pytest.mark.parametrize("command", [["lint"], ["status"], ["ingest", "--estimate"], ["wake-up"]])
def test_commands_read_deeply_nested_state_as_damaged(deep_state: Path, command: list[str]) -> None:
    result = CliRunner().invoke(app, [*command, "--vault", str(deep_state)])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "RecursionError" not in result.output and "Traceback" not in result.output
    assert result.exit_code in (0, 1), result.output  # lint may find something; nothing crashes
