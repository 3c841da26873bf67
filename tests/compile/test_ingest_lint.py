"""The lint that closes an ingest is the lint `wikic lint` runs: every rule, the same findings, so its closing
line never says 0 warnings where `wikic lint --strict` then fails on the pages the run wrote."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fake_llm import FakeLLM
from library import ingest, run_lint
from testkit import init_wiki, page

from wikic.ingest.pipeline import IngestOptions
from wikic.ingest.report import render_report
from wikic.lint.run import LintOptions

SOURCE = ("# Two stores\n\nQuillstore is an embedded database written in Rust. Quillstore keeps its data in one "
          "file.\n\nInkbase is a server database. Inkbase keeps its data in many files.\n")


def _fact(text: str) -> dict[str, str]:
    return {"text": text, "quote": text}


def _reply(_: list[dict[str, str]]) -> dict[str, Any]:
    return {"summary": "", "concepts": [], "relations": [], "comparisons": [], "entities": [
        {"name": "Quillstore", "kind": "product", "aliases": [], "summary": "",
         "facts": [_fact("Quillstore is an embedded database written in Rust."),
                   _fact("Quillstore keeps its data in one file.")]},
        {"name": "Inkbase", "kind": "product", "aliases": [], "summary": "",
         "facts": [_fact("Inkbase is a server database."), _fact("Inkbase keeps its data in many files.")]}]}


def test_the_ingest_s_lint_is_wikic_lint(tmp_path: Path) -> None:
    root = init_wiki(tmp_path / "wiki", min_references=1)
    # a person's page (no link to it, none from it, nor the sources and index entry a compiled one has)
    (root / "entities" / "kestrel.md").write_text(
        page("Kestrel", sources=None, body="# Kestrel\n\nKestrel is the team that runs both stores.\n"),
        encoding="utf-8")
    (tmp_path / "stores.md").write_text(SOURCE, encoding="utf-8")
    report = ingest(root, IngestOptions(inputs=[str(tmp_path / "stores.md")], use_palace=False, compose=False),
                    llm=FakeLLM().respond_with(_reply))
    alone = run_lint(root, LintOptions(use_cache=False))
    assert report.lint is not None and report.lint.findings == alone.findings
    # the run's own pages link to one page each where SCHEMA.md asks for two, now that the wiki has three
    assert {(f.path, f.rule) for f in alone.findings if f.path in report.written} == {
        ("entities/quillstore.md", "too-few-links"), ("entities/inkbase.md", "too-few-links")}
    assert f", {alone.summary()['warnings']} warning(s)" in render_report(report).split("\nlint: ")[1]
