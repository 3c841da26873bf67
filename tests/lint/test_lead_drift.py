"""lead-drift: a lead a person edited is followed, on `lint --fix`, by the page's summary, its index.md entry, the
overview and its source's page, which all said the old lead until the page was compiled again."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
from fake_llm import FakeLLM
from library import fix_vault, ingest, run_lint
from testkit import init_wiki, llm_toml

from wikic.ingest.pipeline import IngestOptions
from wikic.lint.run import LintOptions
from wikic.vault.frontmatter import split_page

TODAY = dt.date(2026, 12, 1)
SOURCE = "# Vector stores\n\nChroma is an open-source vector database that runs inside a Python process.\n" \
         "Chroma keeps its data in one folder.\n"
PLAN = {"summary": "", "concepts": [], "comparisons": [], "relations": [],
        "entities": [{"name": "Chroma", "kind": "product", "aliases": [], "summary": "A vector database.",
                      "facts": [{"text": "Chroma is an open-source vector database.",
                                 "quote": "Chroma is an open-source vector database"},
                                {"text": "Chroma keeps its data in one folder.",
                                 "quote": "Chroma keeps its data in one folder."}]}]}
OLD = "Chroma is an open-source vector database that runs inside a Python process."
NEW = "Chroma is the vector database our team runs on every laptop."


@pytest.fixture
def wiki(tmp_path: Path) -> Path:
    root = init_wiki(tmp_path / "wiki", min_references=1, toml=llm_toml(strategy="single", compose=False))
    source = tmp_path / "vector-stores.md"
    source.write_text(SOURCE, encoding="utf-8")
    report = ingest(root, IngestOptions(inputs=[str(source)], use_palace=False, lint_after=False, today=TODAY),
                    llm=FakeLLM().respond_with(PLAN))
    assert [s.status for s in report.sources] == ["compiled"], [s.error for s in report.sources]
    return root


def _shown(root: Path) -> dict[str, str]:
    """Where the page's lead is shown, each line that shows it."""
    page = (root / "entities/chroma.md").read_text(encoding="utf-8")
    summary = str((split_page(page)[0] or {}).get("summary"))
    index = next(line for line in (root / "index.md").read_text(encoding="utf-8").split("\n") if "[[chroma]]" in line)
    overview = next(line for line in (root / "overview.md").read_text(encoding="utf-8").split("\n")
                    if line.startswith("- [[chroma"))
    source = next(line for line in (root / "sources/vector-stores.md").read_text(encoding="utf-8").split("\n")
                  if line.startswith("- [[chroma"))
    return {"summary": summary, "index": index, "overview": overview, "source page": source}


def _edit_lead(root: Path) -> None:
    page = root / "entities/chroma.md"
    text = page.read_text(encoding="utf-8")
    edited = re.sub(r"(<!-- wikic:begin summary [^\n]*-->\n)" + re.escape(OLD), lambda m: m.group(1) + NEW, text)
    assert edited != text
    page.write_text(edited, encoding="utf-8")


def test_a_compiled_vault_has_no_drift(wiki: Path) -> None:
    assert all(OLD in line for line in _shown(wiki).values()), _shown(wiki)
    assert run_lint(wiki, LintOptions(select=("lead-drift",), use_cache=False)).findings == []


def test_an_edited_lead_is_reported_and_fix_makes_every_place_that_shows_it_follow(wiki: Path) -> None:
    _edit_lead(wiki)
    shown = _shown(wiki)
    assert OLD in shown["summary"] and OLD in shown["index"] and OLD in shown["overview"]
    (finding,) = run_lint(wiki, LintOptions(select=("lead-drift",), use_cache=False)).findings
    assert (finding.rule, finding.path, finding.line) == ("lead-drift", "entities/chroma.md", 8)
    assert finding.message.startswith("the summary says 'Chroma is an open-source vector") and "the lead 'Chroma " \
        "is the vector database" in finding.message

    result = fix_vault(wiki, LintOptions(select=("lead-drift",), use_cache=False))
    assert sorted(c.path for c in result.changes) == ["entities/chroma.md", "index.md", "overview.md",
                                                      "sources/vector-stores.md"]
    assert all(NEW in line and OLD not in line for line in _shown(wiki).values()), _shown(wiki)
    assert result.report.findings == []
    assert fix_vault(wiki, LintOptions(select=("lead-drift",), use_cache=False)).changes == []  # idempotent


def test_an_index_entry_a_person_wrote_stays_when_the_lead_is_followed(wiki: Path) -> None:
    index = wiki / "index.md"
    index.write_text(re.sub(r"(\[\[chroma\]\]) — .*", r"\1 — my own words", index.read_text(encoding="utf-8")),
                     encoding="utf-8")
    _edit_lead(wiki)
    fix_vault(wiki, LintOptions(select=("lead-drift",), use_cache=False))
    assert _shown(wiki)["index"] == "- [[chroma]] — my own words"
    assert NEW in _shown(wiki)["summary"]


def test_the_summary_the_rule_expects_is_the_one_the_compiler_writes() -> None:
    from wikic.compile import prose as compose, writing
    from wikic.vault.lead import SUMMARY_CHARS

    assert writing.SUMMARY_CHARS == compose.SUMMARY_CHARS == SUMMARY_CHARS
