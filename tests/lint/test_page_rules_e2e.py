"""What the compiler writes passes its own page rules under `--strict`: an ingest of several sources through a
scripted model, with its pages composed as prose and without, then recompiled when one more source comes."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import pytest
from fake_llm import FakeLLM
from library import ingest, run_lint
from testkit import init_wiki

from wikic.ingest.pipeline import IngestOptions
from wikic.lint.rule import PAGE_RULES
from wikic.lint.run import LintOptions

SOURCES = {
    "quillstore-notes.md": (
        "---\ndate: 2025-01-10\n---\n# Quillstore notes\n\n"
        "Quillstore is an embedded database.\n"
        "Quillstore keeps the whole database in a single file.\n"
        "Quillstore handled 40,000 writes per second.\n"
        "Write-ahead logging lets readers work while one writer writes.\n"
        "Quillstore allows one writer at a time. Readers never wait for it.\n"
    ),
    "quillstore-review.md": (
        "---\ndate: 2025-03-02\n---\n# A review of Quillstore\n\n"
        "Quillstore is an embedded database.\n"
        "Quillstore allows one writer at a time.\n"
        "Write-ahead logging costs disk space for the log.\n"
        "Quillstore is written in Rust.\n"
    ),
    "quillstore-update.md": (
        "---\ndate: 2026-06-01\n---\n# Quillstore 2.0\n\n"
        "Quillstore handled 55,000 writes per second.\n"
        "Write-ahead logging can be turned off for bulk loads.\n"
    ),
}


def fact(text: str, quote: str | None = None) -> dict[str, Any]:
    return {"text": text, "quote": quote or text}


def plan(user: str) -> dict[str, Any]:
    """The plan for whichever source the request carries: each names Quillstore and write-ahead logging."""
    # a later source's request lists the claims the pages hold already: it is told by its own last line
    if "bulk loads" in user:
        quill = [fact("Quillstore handled 55,000 writes per second.")]
        wal = [("Variants", [fact("Write-ahead logging can be turned off for bulk loads.")])]
    elif "costs disk space" in user:
        quill = [fact("Quillstore is an embedded database."), fact("Quillstore allows one writer at a time."),
                 fact("Quillstore is written in Rust.")]
        wal = [("Trade-offs", [fact("Write-ahead logging costs disk space for the log.")])]
    else:
        quill = [fact("Quillstore is an embedded database."),
                 fact("Quillstore keeps the whole database in a single file."),
                 fact("Quillstore handled 40,000 writes per second."),
                 fact("Quillstore allows one writer at a time. Readers never wait for it.")]
        wal = [("How it works", [fact("Write-ahead logging lets readers work while one writer writes.")])]
    return {
        "summary": "Notes on Quillstore.",
        "entities": [{"name": "Quillstore", "kind": "product", "aliases": [], "summary": "An embedded database.",
                      "facts": quill}],
        "concepts": [{"name": "Write-ahead logging", "summary": "A log written before the data.",
                      "sections": [{"heading": h, "facts": f} for h, f in wal]}],
        "comparisons": [],
        "relations": [],
    }


def compose(user: str) -> dict[str, Any]:
    """Prose as a model writes it: a sentence joining two claims, one of two sentences, one the code refuses (a
    number no claim states), and the claims it leaves out, which the code writes as they are."""
    sections: list[dict[str, Any]] = []
    for heading, listed in re.findall(r"^## (.+)\n((?:\[c[0-9a-f]{8}\] .+\n?)+)", user, re.M):
        claims = re.findall(r"^\[(c[0-9a-f]{8})\] (.+)$", listed, re.M)
        sentences = []
        if len(claims) >= 2:
            (a, ta), (b, tb) = claims[:2]
            sentences.append({"text": f"{ta.rstrip('.')}, and {tb[0].lower()}{tb[1:]}", "claims": [a, b]})
            sentences.append({"text": f"{ta} It is also small.", "claims": [a]})
        if claims:
            sentences.append({"text": f"{claims[-1][1].rstrip('.')} 90,000 times.", "claims": [claims[-1][0]]})
        sections.append({"section": heading, "sentences": sentences})
    ids = re.findall(r"^\[(c[0-9a-f]{8})\]", user, re.M)
    return {"lead": [{"text": "Quillstore is an embedded database.", "claims": ids[:1]}], "sections": sections}


def model() -> FakeLLM:
    def reply(messages: list[dict[str, str]]) -> dict[str, Any]:
        user = messages[-1]["content"]
        return compose(user) if messages[0]["content"].startswith("You write one page") else plan(user)

    return FakeLLM().respond_with(reply)


def _ingest(root: Path, inbox: Path, names: list[str], compose: bool) -> None:
    paths = []
    for name in names:
        (inbox / name).write_text(SOURCES[name], encoding="utf-8")
        paths.append(str(inbox / name))
    report = ingest(root, IngestOptions(inputs=paths, use_palace=False, lint_after=False, compose=compose,
                                        today=dt.date(2026, 12, 3)), llm=model())
    assert all(s.status == "compiled" for s in report.sources), [s.error for s in report.sources]


@pytest.mark.parametrize("compose", [True, False], ids=["composed", "claim-lists"])
def test_an_ingested_vault_is_clean_of_the_page_rules_under_strict(tmp_path: Path, compose: bool) -> None:
    root = init_wiki(tmp_path / "wiki", min_references=1)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    _ingest(root, inbox, ["quillstore-notes.md", "quillstore-review.md"], compose)
    _ingest(root, inbox, ["quillstore-update.md"], compose)

    quill = (root / "entities/quillstore.md").read_text(encoding="utf-8")
    wal = (root / "concepts/write-ahead-logging.md").read_text(encoding="utf-8")
    # the pages hold what the rules look at: several sources on a page, a claim two sources state, a value
    # in History, the concept's sections each from another source, prose or lists
    assert quill.count("quillstore-notes.md") and quill.count("quillstore-review.md")
    assert "## History" in quill and "40,000" in quill.split("## History")[1]
    # the model's summary ("A log written before the data.") is what no quote says: the first claim leads
    # instead, and is not said again under its heading, which it alone held
    lead = wal.split("# Write-ahead logging\n", 1)[1].split("## ", 1)[0]
    assert "lets readers work while one writer writes" in lead and "before the data" not in wal
    assert all(f"## {h}" in wal for h in ("Variants", "Trade-offs")) and "## How it works" not in wal
    assert ("> [!quote]- Claims" in quill) is compose
    report = run_lint(root, LintOptions(select=PAGE_RULES, strict=True, use_cache=False))
    assert [(f.rule, f.path, f.line, f.message) for f in report.findings] == []
    assert report.exit_code == 0
