"""ordinary-name and unsourced-alias: a vault that holds what a careless model named is reported, in every
output format, with stable rule ids."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from library import run_lint
from testkit import make_vault, page
from typer.testing import CliRunner

from wikic.cli import app
from wikic.lint.run import LintOptions

NOTES = ("# Field notes\n\nKeeping the verbatim text means a search can show the sentence a note came from.\n"
         "Quillstore is an embedded store written in Rust by Mira Okafor.\n"
         "Quillstore (also called QStore) runs in three apps, beside Chroma.\n"
         "Brightline Sync copies the notes; it is written in Go.\n")
SOURCE = ["raw/articles/notes.md"]


def _vault(tmp_path: Path, pages: dict[str, str]) -> Path:
    links = " ".join(f"[[{Path(p).stem}]]" for p in pages)
    body = {p: text.replace("BODY", links) for p, text in pages.items()}
    return make_vault(tmp_path, {"raw/articles/notes.md": NOTES, **body})


def _findings(root: Path) -> list[tuple[str, str, str]]:
    report = run_lint(root, LintOptions(use_cache=False, select=("ordinary-name", "unsourced-alias")))
    return [(f.rule, f.path, f.target or "") for f in report.findings]


def _page(title: str, *aliases: str) -> str:
    return page(title, sources=SOURCE, body=f"# {title}\n\n{title} is named in the notes. BODY\n",
                aliases=list(aliases))


def test_a_page_titled_or_aliased_with_an_ordinary_word_is_reported(tmp_path: Path) -> None:
    root = _vault(tmp_path, {
        "entities/keeping.md": _page("Keeping"),  # opens a sentence only
        "entities/the.md": _page("The"),
        "entities/model.md": _page("Model"),
        "entities/rust.md": _page("Rust"),  # an English word, written as a name ("written in Rust")
        "entities/go.md": _page("Go"),
        "entities/quillstore.md": _page("Quillstore", "QStore", "Its"),
    })
    assert sorted(f for f in _findings(root) if f[0] == "ordinary-name") == [
        ("ordinary-name", "entities/keeping.md", "Keeping"),
        ("ordinary-name", "entities/model.md", "Model"),
        ("ordinary-name", "entities/quillstore.md", "Its"),
        ("ordinary-name", "entities/the.md", "The"),
    ]


def test_an_alias_no_source_says_names_the_subject_is_reported(tmp_path: Path) -> None:
    root = _vault(tmp_path, {
        # another subject of the same source (folded in by a careless model), one no source writes at all, a
        # stated equivalence and another form of the title
        "entities/quillstore.md": _page("Quillstore", "Chroma", "InkDB", "QStore", "Quill Store"),
        "entities/mira-okafor.md": _page("Mira Okafor", "Okafor"),
    })
    assert sorted(f for f in _findings(root) if f[0] == "unsourced-alias") == [
        ("unsourced-alias", "entities/quillstore.md", "Chroma"),
        ("unsourced-alias", "entities/quillstore.md", "InkDB"),
    ]


def test_the_name_rules_speak_every_format(tmp_path: Path) -> None:
    root = _vault(tmp_path, {"entities/keeping.md": _page("Keeping", "Chroma"), "entities/rust.md": _page("Rust")})
    for fmt in ("json", "sarif", "github", "text"):
        result = CliRunner().invoke(app, ["lint", str(root), "--format", fmt, "--select",
                                          "ordinary-name,unsourced-alias", "--no-cache"])
        assert result.exit_code == 0, result.output  # warnings: the exit is 0 unless --strict
        out = result.stdout
        if fmt == "json":
            rules = {(f["rule"], f["target"]) for f in json.loads(out)["findings"]}
            assert rules == {("ordinary-name", "Keeping"), ("unsourced-alias", "Chroma")}
        else:
            assert "ordinary-name" in out and "unsourced-alias" in out


def test_each_page_is_read_once_for_both_name_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ordinary-name and unsourced-alias judge the same pages' titles, aliases and sources: a lint running both
    reads each page's once."""
    from wikic.lint.rules import _names

    read: list[str] = []
    real = _names.named_page

    def counted(ctx: Any, path: str) -> Any:
        read.append(path)
        return real(ctx, path)

    monkeypatch.setattr(_names, "named_page", counted)
    root = _vault(tmp_path, {"entities/keeping.md": _page("Keeping"), "entities/quillstore.md": _page("Quillstore",
                                                                                                       "QStore")})
    assert ("ordinary-name", "entities/keeping.md", "Keeping") in _findings(root)
    assert sorted(read) == ["entities/keeping.md", "entities/quillstore.md"]
