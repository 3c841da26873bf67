"""Ingest against a real OpenAI-compatible endpoint (a llama.cpp server, Ollama or OpenAI), in the live tier:
`python -m pytest -m live` with WIKIC_LLM_BASE_URL set."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from library import ingest, run_lint
from testkit import live_endpoint

from wikic.compile.mentions import Mentions
from wikic.ingest.pipeline import IngestOptions
from wikic.lint.run import LintOptions
from wikic.vault.frontmatter import split_page
from wikic.vault.init import init_vault

LINK_LIST = re.compile(r"- (?:See also: )?(?:\[\[[^\]]+\]\](?:, )?)+")  # navigation, not a claim


@pytest.mark.live
def test_ingest_against_a_real_endpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in live_endpoint().items():
        monkeypatch.setenv(name, value)
    root = tmp_path / "wiki"
    init_vault(root)
    text = ("# Paris\n\nParis is the capital of France.\nThe Eiffel Tower is in Paris and was finished in 1889.\n"
            "Gustave Eiffel's company built the tower for the 1889 World's Fair.\n")
    source = tmp_path / "note.md"
    source.write_text(text, encoding="utf-8")
    report = ingest(root, IngestOptions(inputs=[str(source)], use_palace=False))
    got = report.sources[0]
    # the model proposes, the code writes: whatever the model does, what lands is named in the source and anchored
    assert got.status == "compiled", got.error
    assert not got.nothing_extracted, "the model proposed nothing for a source full of names"
    written = [item.name for item in Mentions.load(root).items.values()]
    lines: list[str] = []
    for folder in ("entities", "concepts", "comparisons"):
        for page in (root / folder).glob("*.md"):
            meta, body = split_page(page.read_text(encoding="utf-8"))
            written.append(str((meta or {}).get("title", page.stem)))
            lines += [line for line in body.splitlines() if line.startswith("- ") and not LINK_LIST.fullmatch(line)]
    assert written, "nothing reached the wiki or the mention ledger"
    folded = text.casefold()
    assert [name for name in written if name.casefold() not in folded] == []  # no invented name lands
    assert [line for line in lines if "^[[[raw/" not in line] == []  # every claim on a page is anchored
    lint = run_lint(root, LintOptions(use_cache=False, select=("broken-wikilink", "index-gap")))
    assert [f for f in lint.findings if f.severity == "error"] == []
