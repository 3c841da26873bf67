"""Ingest against a real OpenAI-compatible endpoint: runs only when WIKIC_LLM_BASE_URL is set
(e.g. a llama.cpp server, Ollama or OpenAI)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wikic.ingest.pipeline import IngestOptions, ingest
from wikic.lint.run import LintOptions, run_lint
from wikic.vault.init import init_vault

# read at import: the test folder's autouse fixture clears WIKIC_LLM_* so no other test reaches a real model
LIVE = {name: os.environ.get(name) for name in ("WIKIC_LLM_BASE_URL", "WIKIC_LLM_MODEL", "WIKIC_LLM_API_KEY")}


@pytest.mark.live
@pytest.mark.skipif(
    not LIVE["WIKIC_LLM_BASE_URL"], reason="set WIKIC_LLM_BASE_URL (and WIKIC_LLM_MODEL) to run against a real endpoint"
)
def test_ingest_against_a_real_endpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in LIVE.items():
        if value:
            monkeypatch.setenv(name, value)
    root = tmp_path / "wiki"
    init_vault(root)
    source = tmp_path / "note.md"
    source.write_text("# Paris\n\nParis is the capital of France.\nThe Eiffel Tower is in Paris.\n", encoding="utf-8")
    report = ingest(root, IngestOptions(inputs=[str(source)], use_palace=False))
    status = report.sources[0].status
    # a small model may fail to produce a valid plan; it must then fail cleanly and write nothing
    assert status in ("compiled", "failed")
    if status == "failed":
        assert report.sources[0].error and list((root / "entities").iterdir()) == []
    lint = run_lint(root, LintOptions(use_cache=False, select=("broken-wikilink", "index-gap")))
    assert [f for f in lint.findings if f.severity == "error"] == []
