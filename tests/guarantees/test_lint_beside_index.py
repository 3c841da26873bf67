"""The lint that ends an ingest runs while the search index is updated (it reads the pages, never the index),
gives what `wikic lint` alone gives (every rule), and Ctrl-C during the index update does not wait for it."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import gkit
import pytest
from library import ingest, run_lint as lint_folder
from standin_openai import StandinServer

import wikic.lint.run as lint_run
import wikic.palace.todo as palace_todo
from wikic.ingest.pipeline import IngestOptions


def test_the_lint_after_writing_runs_while_the_index_is_updated(
    tmp_path: Path, standin: StandinServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = gkit.make_vault(tmp_path / "wiki", standin.base_url)
    (root / "entities").mkdir(exist_ok=True)
    (root / "entities" / "stray.md").write_text("# Stray\n\nIt links [[nowhere-at-all]].\n", encoding="utf-8")
    linting = threading.Event()
    seen: list[bool] = []
    run_lint, update_palace = lint_run.run_lint, palace_todo.update_palace

    def lint(*args: Any, **kwargs: Any) -> Any:
        linting.set()
        return run_lint(*args, **kwargs)

    def index(*args: Any, **kwargs: Any) -> Any:
        # the lint starts while the index is updated, or only after this returns when the two run one after
        # the other (then this waits in vain)
        seen.append(linting.wait(timeout=5))
        return update_palace(*args, **kwargs)

    monkeypatch.setattr(lint_run, "run_lint", lint)
    monkeypatch.setattr(palace_todo, "update_palace", index)
    report = ingest(root, IngestOptions(inputs=gkit.sources(tmp_path / "inbox", 2)))
    assert seen == [True]
    assert [s.status for s in report.sources] == ["compiled", "compiled"] and report.palace_leftover == 0
    alone = lint_folder(root, lint_run.LintOptions(use_cache=False))  # the whole lint, as `wikic lint` runs it
    assert report.lint is not None and report.lint.findings == alone.findings
    assert ("entities/stray.md", "nowhere-at-all") in {(f.path, f.target) for f in report.lint.findings}


def test_ctrl_c_while_indexing_does_not_wait_for_the_lint_beside_it(
    tmp_path: Path, standin: StandinServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = gkit.make_vault(tmp_path / "wiki", standin.base_url)
    release, ended = threading.Event(), threading.Event()
    run_lint = lint_run.run_lint

    def slow_lint(*args: Any, **kwargs: Any) -> Any:
        try:
            release.wait(timeout=30)
            return run_lint(*args, **kwargs)
        finally:
            ended.set()

    def ctrl_c(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(lint_run, "run_lint", slow_lint)
    monkeypatch.setattr(palace_todo, "update_palace", ctrl_c)
    started = time.monotonic()
    report = ingest(root, IngestOptions(inputs=gkit.sources(tmp_path / "inbox", 2)))
    try:
        assert report.interrupted == "palace" and report.exit_code() == 130 and report.lint is None
        assert not ended.is_set(), "ingest waited for the lint to end"
        assert time.monotonic() - started < 25
    finally:
        release.set()
        assert ended.wait(timeout=30)
