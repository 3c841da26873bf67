"""The lint after a run: an error it finds in a page the run wrote is checked again while no writer is at work
(lint reads without the vault lock, so another process's write, half applied while it read, can look like an
error of this run), and the run fails only when the error stands."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fake_llm import FakeLLM
from library import ingest
from testkit import init_wiki, llm_toml

from wikic.ingest import pipeline
from wikic.ingest.pipeline import IngestOptions
from wikic.lint import run as lint_run
from wikic.lint.finding import Finding
from wikic.pages import lock

PLAN = {"summary": "", "concepts": [], "comparisons": [], "relations": [],
        "entities": [{"name": "Chroma", "kind": "product", "aliases": [], "summary": "A vector database.",
                      "facts": [{"text": "Chroma is an open-source vector database.",
                                 "quote": "Chroma is an open-source vector database"}]}]}


def _broken(report: lint_run.LintReport) -> lint_run.LintReport:
    """`report` with a broken link in the run's page, as a lint reading a half-applied write sees it."""
    seen = Finding("broken-wikilink", "error", "entities/chroma.md", 5, 1, "link target 'x' does not exist", "x")
    report.findings = [*report.findings, seen]
    return report


@pytest.mark.parametrize("stands", [False, True], ids=["gone-when-checked-again", "stands"])
def test_an_error_in_the_runs_pages_is_checked_again_under_the_vault_lock(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stands: bool) -> None:
    root = init_wiki(tmp_path / "wiki", min_references=1, toml=llm_toml(strategy="single"))
    source = tmp_path / "chroma.md"
    source.write_text("# Chroma\n\nChroma is an open-source vector database that runs inside a Python process.\n")
    real = lint_run.run_lint
    held: list[bool] = [False]
    locked: list[bool] = []

    @contextmanager
    def vault_lock(at: Path, *args: Any, **kwargs: Any) -> Iterator[None]:
        with lock.vault_lock(at, *args, **kwargs):
            held[0] = True
            try:
                yield
            finally:
                held[0] = False

    def lint(context: Any, options: Any, **kwargs: Any) -> lint_run.LintReport:
        locked.append(held[0])
        report = real(context, options, **kwargs)
        return _broken(report) if len(locked) == 1 or stands else report

    monkeypatch.setattr(lint_run, "run_lint", lint)
    monkeypatch.setattr(pipeline, "vault_lock", vault_lock)  # the lock the run takes, seen from here
    report = ingest(root, IngestOptions(inputs=[str(source)], use_palace=False, today=dt.date(2026, 12, 1)),
                    llm=FakeLLM().respond_with(PLAN))
    assert "entities/chroma.md" in report.written
    assert locked == [False, True]  # the second lint ran holding the vault lock
    assert bool(report.lint_errors_in_written()) is stands
    assert report.exit_code() == (1 if stands else 0)
