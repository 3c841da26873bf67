"""A source page says what its source says: its title as the source gives it (a help page with no `# `
heading is titled by its file's name, not its first section), its description, and each name left waiting once,
in words true for the vault's threshold."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from fake_llm import FakeLLM
from library import ingest
from testkit import init_wiki, llm_toml

from wikic.ingest.pipeline import IngestOptions
from wikic.vault.frontmatter import split_page

SOURCE = """---
aliases:
description: Graph view shows how the notes of a vault link to each other.
permalink: plugins/graph
---
Graph view shows how the notes of a vault link to each other.

```md
# Dog
```

## Settings

Each note has a URL in the web app.
"""
URL_FACT = {"text": "Each note has a URL in the web app.", "quote": "Each note has a URL in the web app."}
PLAN = {"summary": "", "comparisons": [], "relations": [],
        "entities": [{"name": "Graph view", "kind": "product", "aliases": [],
                      "summary": "Graph view shows how the notes of a vault link to each other.",
                      "facts": [{"text": "Graph view shows how the notes of a vault link to each other.",
                                 "quote": "Graph view shows how the notes of a vault link to each other."}]},
                     {"name": "URL", "kind": "other", "aliases": [], "summary": "", "facts": [URL_FACT]}],
        "concepts": [{"name": "URL", "summary": "", "sections": [{"heading": "Overview", "facts": [URL_FACT]}]}]}


def test_a_help_page_s_source_page_is_titled_by_its_file_and_says_its_description(tmp_path: Path) -> None:
    root = init_wiki(tmp_path / "wiki", min_references=1, toml=llm_toml(strategy="single", compose=False))
    source = tmp_path / "Graph view.md"
    source.write_text(SOURCE, encoding="utf-8")
    report = ingest(root, IngestOptions(inputs=[str(source)], use_palace=False, lint_after=False,
                                        today=dt.date(2026, 12, 1)), llm=FakeLLM().respond_with(PLAN))
    assert [(s.raw_path, s.title, s.status) for s in report.sources] == [
        ("raw/articles/graph-view.md", "Graph view", "compiled")]

    page = (root / "sources/graph-view.md").read_text(encoding="utf-8")
    assert (split_page(page)[0] or {})["title"] == "Graph view" and "\n# Graph view\n" in page
    assert "“Graph view” is an article: Graph view shows how the notes of a vault link to each other. It fed" in page
    left_out = page.split("## Left out", 1)[1]
    assert "1 name waiting for a page (an entity gets one once a source says what it is" in left_out
    assert left_out.count("URL") == 1
    overview = (root / "overview.md").read_text(encoding="utf-8")
    assert "a page once 1 sources name it" not in overview and "**URL**" in overview
    index = (root / "index.md").read_text(encoding="utf-8")
    assert "[[sources/graph-view]] — “Graph view” is an article: Graph view shows how" in index
