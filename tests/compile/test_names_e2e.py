"""A careless model's names, through a whole ingest: no ordinary word becomes a page, no two subjects fold into
one, no function word becomes a link, and the wiki passes its own `lint --strict`."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import pytest
from careless_model import careless_plan, source_of
from fake_llm import FakeLLM
from library import ingest, run_lint
from testkit import init_wiki

from wikic.compile.mentions import Mentions
from wikic.ingest.pipeline import IngestOptions, IngestReport
from wikic.lint.run import LintOptions
from wikic.text.common_words import function_word
from wikic.vault.frontmatter import split_page
from wikic.vault.names import normalize_name

SOURCES = Path(__file__).resolve().parents[2] / "bench" / "names_sources"
EXPECTED = json.loads((SOURCES / "expected.json").read_text(encoding="utf-8"))
TODAY = dt.date(2026, 12, 6)
_LINK = re.compile(r"\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|([^\]]+))?\]\]")


def _vault(tmp_path: Path) -> Path:
    return init_wiki(tmp_path / "wiki", min_references=1)


def _careless() -> FakeLLM:
    def reply(messages: list[dict[str, str]]) -> dict[str, Any]:
        return careless_plan(source_of({"messages": messages}))

    return FakeLLM().respond_with(reply)


def _ingest(root: Path, llm: FakeLLM, paths: list[Path]) -> IngestReport:
    return ingest(root, IngestOptions(inputs=[str(p) for p in paths], use_palace=False, compose=False,
                                      today=TODAY), llm=llm)


def _pages(root: Path) -> dict[str, tuple[str, list[str], str]]:
    """path -> (title, aliases, text) of every subject page."""
    out = {}
    for folder in ("entities", "concepts", "comparisons"):
        for path in sorted((root / folder).glob("*.md")):
            text = path.read_text(encoding="utf-8")
            data, _ = split_page(text)
            assert data is not None, path
            out[f"{folder}/{path.name}"] = (str(data["title"]), [str(a) for a in data.get("aliases") or []], text)
    return out


@pytest.fixture(scope="module")
def careless_wiki(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, IngestReport]:
    root = _vault(tmp_path_factory.mktemp("careless"))
    report = _ingest(root, _careless(), sorted(SOURCES.glob("*.md")))
    assert all(s.status == "compiled" for s in report.sources), [(s.raw_path, s.error) for s in report.sources]
    return root, report


def test_no_ordinary_word_becomes_a_page(careless_wiki: tuple[Path, IngestReport]) -> None:
    root, report = careless_wiki
    ordinary = {normalize_name(w) for w in EXPECTED["ordinary"]}
    titles = {normalize_name(title) for title, _, _ in _pages(root).values()}
    assert not titles & ordinary
    refused = {r["name"] for s in report.sources for r in s.names_refused}
    assert {"Keeping", "The", "Throughput"} <= refused


def test_no_two_subjects_fold_into_one_page(careless_wiki: tuple[Path, IngestReport]) -> None:
    root, report = careless_wiki
    forms = {normalize_name(f): subject for subject, names in EXPECTED["entities"].items() for f in names}
    for path, (title, aliases, _) in _pages(root).items():
        subjects = {forms[normalize_name(n)] for n in (title, *aliases) if normalize_name(n) in forms}
        assert len(subjects) <= 1, (path, title, aliases)
    assert any(r["reason"] == "another subject's name" for s in report.sources for r in s.aliases_refused)
    # the subjects a reader expects each got a page of their own, or wait for a sentence about them in the
    # ledger ("Mira Okafor" is written only inside Quillstore's lead)
    titles = {normalize_name(title) for title, _, _ in _pages(root).values()}
    waiting = {normalize_name(e.name) for e in Mentions.load(root).items.values()}
    for subject in ("Quillstore", "Chroma", "Ollama", "Qdrant", "SQLite", "Rust", "Go"):
        assert normalize_name(subject) in titles, subject
    for subject in ("Mira Okafor", "LanceDB", "Brightline Labs"):
        assert normalize_name(subject) in waiting, subject


def test_no_function_word_is_a_link_and_the_wiki_passes_its_own_strict_lint(
        careless_wiki: tuple[Path, IngestReport]) -> None:
    root, _ = careless_wiki
    for path, (_, _, text) in _pages(root).items():
        for match in _LINK.finditer(text):
            shown = (match.group(2) or match.group(1)).strip()
            assert not function_word(shown), (path, match.group(0))
    report = run_lint(root, LintOptions(use_cache=False, strict=True))
    assert [f"{f.path}: {f.rule} {f.message}" for f in report.findings if f.severity in ("error", "warning")] == []


def test_an_alias_that_is_another_pages_name_is_refused_and_the_two_stay_apart(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    first = tmp_path / "qstore.md"
    first.write_text("# QStore notes\n\nQStore runs on every device.\n", encoding="utf-8")
    second = tmp_path / "quill.md"
    second.write_text("# Quill notes\n\nQuillstore (also called QStore) keeps notes in one file.\n", encoding="utf-8")

    def reply(messages: list[dict[str, str]]) -> dict[str, Any]:
        user = messages[-1]["content"]
        entity = {"name": "QStore", "kind": "product", "aliases": [], "summary": "",
                  "facts": [{"text": "QStore runs on every device.", "quote": "QStore runs on every device."}]}
        if "Quillstore" in user:
            said = "Quillstore (also called QStore) keeps notes in one file."
            entity = {"name": "Quillstore", "kind": "product", "aliases": ["QStore"], "summary": "",
                      "facts": [{"text": said, "quote": said}]}
        return {"summary": "", "entities": [entity], "concepts": [], "comparisons": [], "relations": []}

    _ingest(root, FakeLLM().respond_with(reply), [first])
    report = _ingest(root, FakeLLM().respond_with(reply), [second])
    pages = _pages(root)
    assert {title for title, _, _ in pages.values()} == {"QStore", "Quillstore"}
    assert pages["entities/quillstore.md"][1] == []
    assert report.sources[0].aliases_refused == [
        {"name": "Quillstore", "alias": "QStore", "reason": "another page's title or alias"}]


def _damaged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A vault as a compile that checked no names left it, from the careless model: every proposed word a
    subject and every alias kept, so the subjects fold together through the aliases."""
    import wikic.ingest.anchor as anchor
    import wikic.ingest.extract.merge as merge
    from wikic.text.name_use import NameUse

    with monkeypatch.context() as patched:
        patched.setattr(NameUse, "refusal", lambda self, name, concept=False: None)
        patched.setattr(anchor, "kept_aliases", lambda name, aliases, *a, **k: (tuple(aliases), []))
        patched.setattr(merge, "same_subject", lambda *a, **k: True)
        root = _vault(tmp_path)
        _ingest(root, _careless(), sorted(SOURCES.glob("*.md"))[:2])
    titles = {t for t, _, _ in _pages(root).values()}
    assert {"Keeping", "The", "Two"} & titles, titles  # the damage this test repairs
    return root


def test_a_vault_an_earlier_compile_damaged_is_repaired_by_the_next_ingest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _damaged(tmp_path, monkeypatch)
    sources = [str(p) for p in sorted((root / "raw" / "articles").glob("*.md"))]
    report = ingest(root, IngestOptions(inputs=sources, use_palace=False, compose=False, today=TODAY, force=True),
                    llm=_careless())
    pages = _pages(root)
    ordinary = {normalize_name(w) for w in EXPECTED["ordinary"]}
    assert not {normalize_name(t) for t, _, _ in pages.values()} & ordinary, sorted(pages)
    forms = {normalize_name(f): subject for subject, names in EXPECTED["entities"].items() for f in names}
    for path, (title, aliases, _) in pages.items():  # the folded subjects are apart again
        assert len({forms[normalize_name(n)] for n in (title, *aliases) if normalize_name(n) in forms}) <= 1, path
    removed = [p for s in report.sources for p in s.removed]
    assert removed and all(not (root / p).exists() for p in removed)
    index = (root / "index.md").read_text(encoding="utf-8")
    assert not any(f"[[{Path(p).stem}]]" in index for p in removed)
    log = (root / "log.md").read_text(encoding="utf-8")
    assert "removed" in log and "no subject" in log
    lint = run_lint(root, LintOptions(use_cache=False, strict=True))
    assert [f"{f.path}: {f.rule} {f.message}" for f in lint.findings if f.severity in ("error", "warning")] == []


def test_a_page_a_person_wrote_on_is_kept_when_its_name_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _damaged(tmp_path, monkeypatch)
    page = next(root / p for p, (t, _, _) in _pages(root).items() if t in ("Keeping", "The", "Two"))
    page.write_text(page.read_text(encoding="utf-8") + "\nMy own note on this page.\n", encoding="utf-8")
    sources = [str(p) for p in sorted((root / "raw" / "articles").glob("*.md"))]
    report = ingest(root, IngestOptions(inputs=sources, use_palace=False, compose=False, today=TODAY, force=True),
                    llm=_careless())
    assert page.exists() and "My own note on this page." in page.read_text(encoding="utf-8")
    assert any(page.name in k and "kept" in k for s in report.sources for k in s.kept_edits)


def test_a_page_named_like_its_source_takes_its_name(tmp_path: Path) -> None:
    """A help page "Graph view.md" about Graph view: its subject's page is entities/graph-view.md beside
    raw/articles/graph-view.md and sources/graph-view.md, not graph-view-2.md; links to it say its folder."""
    root = _vault(tmp_path)
    source = tmp_path / "Graph view.md"
    said = "Graph view is a core plugin that shows how the notes of a vault link to each other."
    source.write_text(f"{said}\n\nGraph view draws each note as a circle.\n", encoding="utf-8")

    def reply(messages: list[dict[str, str]]) -> dict[str, Any]:
        return {"summary": "", "entities": [{"name": "Graph view", "kind": "plugin", "aliases": [], "summary": said,
                                             "facts": [{"text": said, "quote": said}]}],
                "concepts": [], "comparisons": [], "relations": []}

    _ingest(root, FakeLLM().respond_with(reply), [source])
    assert (root / "raw/articles/graph-view.md").is_file() and (root / "sources/graph-view.md").is_file()
    assert (root / "entities/graph-view.md").is_file() and not (root / "entities/graph-view-2.md").exists()
    assert "[[entities/graph-view|Graph view]]" in (root / "sources/graph-view.md").read_text(encoding="utf-8")
