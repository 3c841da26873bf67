"""Progress on a terminal: the core's events drawn as Rich bars on stderr, ended before the report; nothing
on a pipe but the notice that an interrupted run left search-index work, and nothing at all with --json."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from wikic.cli._progress import ProgressDisplay, leftover_notice
from wikic.progress import ProgressEvent

REPO = Path(__file__).resolve().parents[1]
SHOW_CURSOR = "\x1b[?25h"  # what a live display writes last


def _terminal() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=110, color_system=None), out


def test_events_become_bars_and_leaving_ends_their_line() -> None:
    console, out = _terminal()
    with ProgressDisplay(json_output=False, console=console) as display:
        display(ProgressEvent("extract", 0, 4, "chunks"))
        display(ProgressEvent("extract", 3, 4, "chunks"))
        display(ProgressEvent("leftover", 0, 7, "files"))
        display(ProgressEvent("embed", 0, 2, "files", 0.5, 96))
    text = out.getvalue()
    assert "asking the model" in text and "3/4 chunks" in text and "75%" in text
    assert "search index" in text and "0/2 files, 96 drawers embedded" in text and "50%" in text
    assert leftover_notice(7) in text  # printed above the bars
    assert text.removesuffix(SHOW_CURSOR).endswith("\n")  # what is printed next starts on a line of its own


def test_without_a_terminal_only_the_leftover_notice_is_shown(capsys: pytest.CaptureFixture[str]) -> None:
    with ProgressDisplay(json_output=False) as display:  # stderr is captured: no terminal
        display(ProgressEvent("extract", 1, 4, "chunks"))
        display(ProgressEvent("leftover", 0, 3, "files"))
        display(ProgressEvent("embed", 1, 2, "files", 0.5, 10))
    assert capsys.readouterr() == ("", leftover_notice(3) + "\n")
    with ProgressDisplay(json_output=True) as display:
        display(ProgressEvent("leftover", 0, 3, "files"))
        display(ProgressEvent("embed", 1, 2, "files", 0.5, 10))
    assert capsys.readouterr() == ("", "")


@pytest.mark.slow
def test_wikic_index_on_a_terminal_draws_a_bar_and_ends_it_before_the_report(tmp_path: Path) -> None:
    from wikic.vault.init import init_vault

    root = tmp_path / "wiki"
    init_vault(root)
    (root / "raw/articles/notes.md").write_text(
        "# Notes\n\n" + "".join(f"## Day {n}\n\nThe crew measured site {n} at dawn.\n\n" for n in range(300)),
        encoding="utf-8",
    )
    env = {**os.environ, "WIKIC_EMBEDDING_PROVIDER": "static", "COLUMNS": "100",
           "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    terminal, stderr = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "wikic", "index", "--vault", str(root)],
                            stdout=subprocess.PIPE, stderr=stderr, env=env)
    os.close(stderr)
    drawn = b""
    while True:
        try:
            data = os.read(terminal, 65536)
        except OSError:  # the other end closed
            break
        if not data:
            break
        drawn += data
    os.close(terminal)
    stdout = proc.communicate(timeout=120)[0].decode()
    assert proc.returncode == 0
    screen = drawn.decode()
    assert "search index" in screen and "1/1 files, 300 drawers embedded" in screen
    assert screen.removesuffix(SHOW_CURSOR).endswith("\r\n")  # the bar's line is ended
    assert stdout.startswith("added (1):\n  raw/articles/notes.md\n")  # the report alone, on stdout
