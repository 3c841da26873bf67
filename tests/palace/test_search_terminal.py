"""`wikic search` shows a passage holding an escape sequence (a raw source, a page) with the sequence written
out, not run by the terminal; `--json` keeps its exact text."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from wikic.cli import app

TITLE = "\x1b]0;pwned\x07"  # OSC 0: sets the window title
PAGE = f"# Quillstore\n\nQuillstore is a vector database {TITLE} used for retrieval.\n"


def test_a_passage_with_an_escape_sequence_is_shown_written_out(make_vault: Callable[..., Path]) -> None:
    root = make_vault({f"entities/quillstore{TITLE}.md": PAGE})
    runner = CliRunner()
    assert runner.invoke(app, ["index", "--vault", str(root)]).exit_code == 0
    result = runner.invoke(app, ["search", "Quillstore vector database", "--vault", str(root)])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "quillstore\\x1b]0;pwned\\x07.md" in result.stdout and "database \\x1b]0;pwned\\x07 used" in result.stdout
    result = runner.invoke(app, ["search", "Quillstore vector database", "--json", "--vault", str(root)])
    [hit] = [h for h in json.loads(result.stdout)["results"] if h["path"].startswith("entities/quillstore")]
    assert hit["path"] == f"entities/quillstore{TITLE}.md" and TITLE in hit["snippet"]
