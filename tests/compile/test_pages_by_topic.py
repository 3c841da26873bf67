"""Pages a reader wants: one page per subject, written by topic under its layout's headings, each fact once with
all its sources, disagreements shown, one Related section, no bookkeeping on the reading line, and a person's
edits kept across recompiles."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import pytest
from fake_llm import FakeLLM
from library import ingest
from testkit import init_wiki

from wikic.facts.same_fact import same_fact
from wikic.ingest.pipeline import IngestOptions, IngestReport
from wikic.vault.formats.claims import scan

TODAY = dt.date(2026, 12, 3)
QUILL_2024 = "---\ndate: 2024-05-01\n---\n# Field notes\n\nQuillstore is an embedded database.\n" \
             "Quillstore keeps the whole database in a single file.\nQuillstore handled 40,000 writes per second.\n" \
             "Brightline uses Quillstore as its local cache.\n"
QUILL_2026 = "---\ndate: 2026-02-01\n---\n# Two years on\n\nQuillstore keeps the whole database " \
             "in a single file.\nQuillstore handled 25,000 writes per second.\nQuillstore 2.0 was released in 2025.\n" \
             "Quillstore 1.0 was released in 2022.\n"


def _vault(tmp_path: Path) -> Path:
    return init_wiki(tmp_path / "wiki", min_references=1)


def _fact(sentence: str) -> dict[str, str]:
    return {"text": sentence.rstrip("."), "quote": sentence}


def _model(plans: dict[str, list[dict[str, Any]]], concepts: dict[str, list[dict[str, Any]]] | None = None) -> FakeLLM:
    """A model that, for the source naming a key, states those entities (and concepts)."""

    def reply(messages: list[dict[str, str]]) -> dict[str, Any]:
        user = messages[-1]["content"]
        for key, entities in plans.items():
            if key in user:
                return {"summary": "notes", "entities": entities, "concepts": (concepts or {}).get(key, []),
                        "comparisons": [], "relations": []}
        return {"summary": "", "entities": [], "concepts": [], "comparisons": [], "relations": []}

    return FakeLLM().respond_with(reply)


def _entity(name: str, *sentences: str, summary: str = "") -> dict[str, Any]:
    return {"name": name, "kind": "product", "aliases": [], "summary": summary,
            "facts": [_fact(s) for s in sentences]}


def _ingest(root: Path, llm: FakeLLM, *paths: Path, force: bool = False) -> IngestReport:
    """`force`: compile again, asking the model again (new replies)."""
    report = ingest(root, IngestOptions(inputs=[str(p) for p in paths], use_palace=False, lint_after=False,
                                        today=TODAY, force=force, use_cache=not force), llm=llm)
    assert all(s.status == "compiled" for s in report.sources), [(s.raw_path, s.error) for s in report.sources]
    return report


def _sources(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "field-notes.md", tmp_path / "two-years-on.md"
    a.write_text(QUILL_2024, encoding="utf-8")
    b.write_text(QUILL_2026, encoding="utf-8")
    return a, b


QUILL_PLANS = {
    "single file.\nQuillstore handled 40,000": [_entity(
        "Quillstore", "Quillstore keeps the whole database in a single file.",
        "Quillstore handled 40,000 writes per second.", summary="Quillstore is an embedded database.")],
    "Two years on": [_entity(
        "Quillstore", "Quillstore keeps the whole database in a single file.",
        "Quillstore handled 25,000 writes per second.", "Quillstore 2.0 was released in 2025.",
        "Quillstore 1.0 was released in 2022.")],
}


def _sections(text: str) -> list[str]:
    return re.findall(r"^## (.+)$", text, re.M)


def test_a_page_is_written_by_topic_each_fact_once_with_every_source(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    a, b = _sources(tmp_path)
    report = _ingest(root, _model(QUILL_PLANS), a, b)
    text = (root / "entities/quillstore.md").read_text(encoding="utf-8")
    assert _sections(text) == ["Key facts", "History", "Contradictions"]  # the layout's headings, in its order
    single = [line for line in text.split("\n") if "single file" in line and line.startswith("- ")]
    assert len(single) == 1 and single[0].count("^[[[raw/") == 2  # one fact, both sources
    assert report.sources[1].to_dict()["created"] == [] and "entities/quillstore.md" in report.sources[1].updated
    # distinct items stay distinct: two releases are two facts
    assert "Quillstore 2.0 was released in 2025" in text and "Quillstore 1.0 was released in 2022" in text
    # the lead says what the subject is, first
    body = text.split("---\n", 2)[2]
    assert body.index("Quillstore is an embedded database") < body.index("## Key facts")


def test_two_values_of_one_measure_are_shown_with_both_sides_and_the_older_one_in_history(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    a, b = _sources(tmp_path)
    _ingest(root, _model(QUILL_PLANS), a, b)
    text = (root / "entities/quillstore.md").read_text(encoding="utf-8")
    key_facts = text.split("## Key facts")[1].split("## ")[0]
    history = text.split("## History")[1].split("## ")[0]
    disagreement = text.split("## Contradictions")[1]
    assert "25,000 writes per second" in key_facts and "40,000" not in key_facts
    assert "40,000 writes per second (2024-05-01 – 2026-02-01)" in history
    assert "> [!warning]" in disagreement
    assert "40,000 writes per second (2024-05-01 – 2026-02-01) ^[[[raw/articles/field-notes.md" in disagreement
    assert "25,000 writes per second (as of 2026-02-01) ^[[[raw/articles/two-years-on.md" in disagreement


def test_values_that_disagree_at_the_same_time_make_the_page_contested(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    one, two = tmp_path / "one.md", tmp_path / "two.md"
    one.write_text("# One\n\nOrbix handles 300 requests per second.\n", encoding="utf-8")
    two.write_text("# Two\n\nOrbix handles 900 requests per second.\n", encoding="utf-8")
    llm = _model({"# One": [_entity("Orbix", "Orbix handles 300 requests per second.")],
                  "# Two": [_entity("Orbix", "Orbix handles 900 requests per second.")]})
    report = _ingest(root, llm, one, two)
    text = (root / "entities/orbix.md").read_text(encoding="utf-8")
    assert "\ncontested: true\n" in text and report.sources[1].contested == ["entities/orbix.md"]
    block = text.split("## Contradictions")[1]
    assert "300 requests per second" in block and "900 requests per second" in block


def test_a_timeless_claim_carries_no_date_and_no_bookkeeping_on_its_line(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    a, _ = _sources(tmp_path)
    _ingest(root, _model(QUILL_PLANS), a)
    text = (root / "entities/quillstore.md").read_text(encoding="utf-8")
    (line,) = [ln for ln in text.split("\n") if ln.startswith("- Quillstore keeps the whole database")]
    assert re.fullmatch(r"- Quillstore keeps the whole database in a single file \^\[\[\[raw/[^\]]+\]\] L\d+\] "
                        r"\^c[0-9a-f]{8}", line), line
    assert "%%" not in text and "(as of" not in text.split("## Contradictions")[0]
    # what code needs is kept in the page's claims block, off the reading line
    claim = next(c for c in scan(text) if "single file" in c.text)
    assert (claim.seen, claim.via) == (dt.date(2024, 5, 1), "frontmatter")


def test_one_related_section_lists_each_page_once_and_says_how_it_relates(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    a, _ = _sources(tmp_path)
    plan = {"single file.\nQuillstore handled 40,000": [
        _entity("Quillstore", "Quillstore keeps the whole database in a single file."),
        _entity("Brightline", "Brightline uses Quillstore as its local cache.")]}

    def with_relation(messages: list[dict[str, str]]) -> dict[str, Any]:
        return {"summary": "", "entities": plan["single file.\nQuillstore handled 40,000"], "concepts": [],
                "comparisons": [], "relations": [{"source": "Brightline", "relation": "uses as its local cache",
                                                  "target": "Quillstore",
                                                  "quote": "Brightline uses Quillstore as its local cache."}]}

    _ingest(root, FakeLLM().respond_with(with_relation), a)
    text = (root / "entities/brightline.md").read_text(encoding="utf-8")
    assert _sections(text).count("Relations") == 1
    related = text.split("## Relations")[1]
    assert related.count("[[quillstore") == 1  # the relation, and no See also line repeating it
    assert "- [[quillstore|Quillstore]] — uses as its local cache ^[[[raw/" in related


def test_a_persons_edits_survive_a_recompile_with_new_replies(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    a, _ = _sources(tmp_path)
    _ingest(root, _model(QUILL_PLANS), a)
    page = root / "entities/quillstore.md"
    text = page.read_text(encoding="utf-8")
    text = text.replace("keeps the whole database in a single file", "keeps everything in one file, as I checked")
    page.write_text(text + "\nMy own note, below everything.\n", encoding="utf-8")
    newer = {"single file.\nQuillstore handled 40,000": [_entity(
        "Quillstore", "Quillstore handled 40,000 writes per second.", "Quillstore is an embedded database.")]}
    report = _ingest(root, _model(newer), a, force=True)
    after = page.read_text(encoding="utf-8")
    assert "keeps everything in one file, as I checked" in after and "My own note, below everything." in after
    assert any("section:key-facts" in k for k in report.sources[0].kept_edits)
    assert "<!-- wikic:begin section:key-facts:more " in after and "Quillstore is an embedded database" in after


def test_recompiling_one_source_changes_only_what_it_contributed(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    a, b = _sources(tmp_path)
    _ingest(root, _model(QUILL_PLANS), a, b)
    page = root / "entities/quillstore.md"
    before = page.read_text(encoding="utf-8")
    _ingest(root, _model(QUILL_PLANS), b, force=True)
    assert page.read_text(encoding="utf-8") == before  # the same replies: byte for byte the same page
    fewer = {**QUILL_PLANS, "Two years on": [_entity("Quillstore", "Quillstore 2.0 was released in 2025.")]}
    _ingest(root, _model(fewer), b, force=True)
    after = page.read_text(encoding="utf-8")
    (single,) = [ln for ln in after.split("\n") if "single file" in ln and ln.startswith("- ")]
    assert "two-years-on.md" not in single and "raw/articles/field-notes.md" in single  # A still says it
    assert "1.0 was released" not in after and "25,000" not in after  # what only B said, and B no longer says
    assert "40,000 writes per second ^[" in after.split("## Key facts")[1]  # current again, back in its section


@pytest.mark.parametrize(("a", "b", "one"), [
    ("Quillstore keeps the whole database in a single file.", "Quillstore keeps the whole database in a single file",
     True),
    ("The team keeps Quillstore for the desktop app.", "The team keeps [[quillstore|Quillstore]] for its desktop app.",
     True),
    ("The team keeps Quillstore for the desktop app.", "The team chose Quillstore for the desktop app.", False),
    ("Quillstore is an open-source database.", "Quillstore is an open source database.", True),
    ("Quillstore keeps a single file.", "Quillstore keeps the single file.", True),
    ("Quillstore is fast.", "Quillstore is not fast.", False),
    ("Quillstore trades memory for speed.", "Quillstore trades speed for memory.", False),
    ("Quillstore is easy to run.", "Quillstore is hard to run.", False),
    ("Search latency went up after the move.", "Search latency went down after the move.", False),
    ("Quillstore handled 40,000 writes per second.", "Quillstore handled 25,000 writes per second.", False),
])
def test_two_claims_are_one_fact_only_in_the_same_words(a: str, b: str, one: bool) -> None:
    assert same_fact(a, b) is one and same_fact(b, a) is one


def test_a_comparison_keeps_its_layouts_order_when_a_later_source_adds_claims_to_it(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    stores, choice = tmp_path / "stores.md", tmp_path / "choice.md"
    stores.write_text("# Two stores\n\nQuillstore is an embedded database.\nInkbase is a server database.\n"
                      "Quillstore keeps its data in one file.\nInkbase keeps its data in many files.\n"
                      "Quillstore allows one writer.\nInkbase allows many writers.\n", encoding="utf-8")
    choice.write_text("# Our choice\n\nWe pick Quillstore for a laptop and Inkbase for a team.\n", encoding="utf-8")

    def cell(subject: str, value: str, quote: str) -> dict[str, str]:
        return {"subject": subject, "value": value, "quote": quote}

    axes = [{"axis": axis, "values": [cell("Quillstore", q, q), cell("Inkbase", i, i)]} for axis, q, i in (
        ("What it is", "Quillstore is an embedded database.", "Inkbase is a server database."),
        ("Storage", "Quillstore keeps its data in one file.", "Inkbase keeps its data in many files."),
        ("Writers", "Quillstore allows one writer.", "Inkbase allows many writers."))]
    verdict = {"name": "Quillstore vs Inkbase", "summary": "", "sections": [
        {"heading": "When to pick each", "facts": [_fact("We pick Quillstore for a laptop and Inkbase for a team.")]}]}

    def reply(messages: list[dict[str, str]]) -> dict[str, Any]:
        if "Our choice" in messages[-1]["content"]:  # a later source says which to pick
            return {"summary": "", "entities": [], "concepts": [verdict], "comparisons": [], "relations": []}
        return {"summary": "", "entities": [], "concepts": [], "relations": [],
                "comparisons": [{"name": "Quillstore vs Inkbase", "subjects": ["Quillstore", "Inkbase"], "axes": axes}]}

    for source in (stores, choice):
        report = ingest(root, IngestOptions(inputs=[str(source)], use_palace=False, lint_after=False, today=TODAY,
                                            compose=False), llm=FakeLLM().respond_with(reply))
        assert all(s.status == "compiled" for s in report.sources), [s.error for s in report.sources]
    text = (root / "comparisons/quillstore-vs-inkbase.md").read_text(encoding="utf-8")
    assert "We pick Quillstore for a laptop and Inkbase for a team" in text
    assert _sections(text) == ["Comparison", "When to pick each"]  # the table first, as the layout says
