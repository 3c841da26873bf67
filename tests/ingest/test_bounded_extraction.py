"""A source's text is read within bounds: deeply nested HTML gives its text (no recursion, no quadratic
search), a PDF whose text would outgrow its file many times over is refused and set aside, and any other
failure to read one source's text sets that source aside while the others compile."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from fake_llm import FakeLLM
from ingest_helpers import form_pdf, make_pdf, shared_page_pdf, text_drawing
from library import ingest, vault_status
from testkit import growth, init_wiki, llm_toml
from typer.testing import CliRunner

from wikic.cli import app
from wikic.ingest.pipeline import IngestOptions, IngestReport
from wikic.text import archive, extract as textract
from wikic.text.extract import PdfProblem, html_to_text, pdf_to_text

PLAN = {"summary": "", "concepts": [], "comparisons": [], "relations": [],
        "entities": [{"name": "Chroma", "kind": "product", "aliases": [], "summary": "A vector database.",
                      "facts": [{"text": "Chroma is an open-source vector database.",
                                 "quote": "Chroma is an open-source vector database"}]}]}
GOOD = "# Chroma\n\nChroma is an open-source vector database that runs inside a Python process.\n"


def _nested(tag: str, depth: int) -> str:
    return (f"<html><body><p>Before the nest.</p>{f'<{tag}>' * depth}<p>Deep in the nest.</p>{f'</{tag}>' * depth}"
            "<p>After the nest.</p></body></html>")


@pytest.fixture
def wiki(tmp_path: Path) -> Path:
    return init_wiki(tmp_path / "wiki", min_references=1, toml=llm_toml(strategy="single"))


def _ingest(root: Path) -> IngestReport:
    return ingest(root, IngestOptions(use_palace=False, lint_after=False, today=dt.date(2026, 12, 1)),
                  llm=FakeLLM().respond_with(PLAN))


# -- HTML ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("tag", ["div", "li", "blockquote", "section", "td"])
def test_deeply_nested_html_gives_its_text(tag: str) -> None:
    _, text = html_to_text(_nested(tag, 5000))
    assert text == "Before the nest.\n\nDeep in the nest.\n\nAfter the nest.\n"


def test_nested_list_items_are_read_in_linear_time() -> None:
    small, large = _nested("li", 1000), _nested("li", 8000)
    html_to_text(_nested("li", 500))  # warm: bs4 and the parser imported
    # 8 times the depth: about 8 times the time when linear, 64 when each item searched its subtree again
    assert growth(lambda: html_to_text(small), lambda: html_to_text(large)) < 25


def test_an_html_source_nested_a_thousand_deep_compiles_beside_the_others(wiki: Path) -> None:
    (wiki / "raw/articles/deep.html").write_text(_nested("div", 1000).replace(
        "Deep in the nest.", "Chroma is an open-source vector database."), encoding="utf-8")
    (wiki / "raw/articles/chroma.md").write_text(GOOD, encoding="utf-8")
    report = _ingest(wiki)
    assert {s.raw_path: s.status for s in report.sources} == {
        "raw/articles/deep.md": "compiled", "raw/articles/chroma.md": "compiled"}
    assert "Chroma is an open-source vector database." in (wiki / "raw/articles/deep.md").read_text(encoding="utf-8")


def test_a_source_whose_text_cannot_be_read_is_set_aside_and_the_others_compile(
    wiki: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(html: str | bytes) -> tuple[str, str]:
        raise RuntimeError("the parser gave up\nin the middle")

    monkeypatch.setattr(textract, "html_to_text", broken)
    (wiki / "raw/articles/page.html").write_text("<html><body><p>Some text.</p></body></html>", encoding="utf-8")
    (wiki / "raw/articles/chroma.md").write_text(GOOD, encoding="utf-8")
    first = _ingest(wiki)
    status = {s.raw_path: (s.status, s.error or "") for s in first.sources}
    assert status["raw/articles/chroma.md"][0] == "compiled"
    assert status["raw/articles/page.html"] == (
        "failed", "raw/articles/page.html: its text cannot be read (RuntimeError: the parser gave up in the middle) "
        "(convert it to plain text and ingest that; set aside until it changes; `wikic status` lists it)")
    assert [e["path"] for e in vault_status(wiki, lint=False).set_aside] == ["raw/articles/page.html"]
    assert _ingest(wiki).sources == []  # passed over until it changes


# -- PDF ------------------------------------------------------------------------------------------------------


@pytest.fixture
def pages_read(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Each page whose text pypdf is asked for."""
    from pypdf import PageObject

    read: list[object] = []
    real = PageObject.extract_text

    def extract_text(page: PageObject, *a: Any, **k: Any) -> str:
        read.append(page)
        return real(page, *a, **k)

    monkeypatch.setattr(PageObject, "extract_text", extract_text)
    return read


def test_a_pdf_drawing_a_hundred_times_its_size_is_refused_before_a_page_is_read(
    monkeypatch: pytest.MonkeyPatch, pages_read: list[object]
) -> None:
    monkeypatch.setattr(archive, "RATIO_FLOOR", 10_000)  # the bound's floor scaled down with the file
    data = shared_page_pdf(text_drawing(200_000), pages=3)
    assert len(data) < 2000
    with pytest.raises(PdfProblem) as refused:
        pdf_to_text(data)
    assert str(refused.value) == (
        f"PDF text would be up to 195.3 KB from a file of {archive.size_text(len(data))} "
        "(more than 100 times its size): refused")
    assert pages_read == []


def test_a_pdf_whose_pages_draw_a_small_form_many_times_is_refused_as_its_text_outgrows_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(archive, "RATIO_FLOOR", 10_000)
    data = form_pdf(text_drawing(5000), draws=100)  # 1 KB of file; pypdf reads 431 KB of text from it
    with pytest.raises(PdfProblem, match=r"^PDF text would be more than \d+\.\d KB from a file of \d+ bytes "
                                         r"\(more than 100 times its size\): refused$"):
        pdf_to_text(data)


def test_a_pdf_within_the_bounds_is_read_whole() -> None:
    drawing = text_drawing(600_000)
    data = shared_page_pdf(drawing, pages=1)  # more than 100 times its size, but below the floor
    assert pdf_to_text(data)[1].count("Lorem ipsum") == drawing.count(b"Tj") == 10_000
    assert pdf_to_text(make_pdf(["Loss falls as a power law."]))[1] == "<!-- page 1 -->\nLoss falls as a power law.\n"


def test_a_pdf_of_a_few_kb_drawing_megabytes_of_text_is_set_aside_and_the_others_compile(
    wiki: Path, pages_read: list[object]
) -> None:
    hostile = wiki / "raw/papers/tiny.pdf"
    hostile.write_bytes(shared_page_pdf(text_drawing(2_000_000)))  # 6.7 KB, 2 MB of instructions
    (wiki / "raw/articles/chroma.md").write_text(GOOD, encoding="utf-8")
    first = _ingest(wiki)
    status = {s.raw_path: (s.status, s.error or "") for s in first.sources}
    assert status["raw/articles/chroma.md"][0] == "compiled"
    size = archive.size_text(hostile.stat().st_size)
    assert status["raw/papers/tiny.pdf"] == ("failed", (
        f"raw/papers/tiny.pdf: PDF text would be up to 1.9 MB from a file of {size} (more than 100 times its size): "
        "refused (a PDF made to be costly to read, or a drawing rather than a document; if it is a document, save "
        "its text some other way and ingest that; set aside until it changes; `wikic status` lists it)"))
    assert pages_read == []
    assert [e["path"] for e in vault_status(wiki, lint=False).set_aside] == ["raw/papers/tiny.pdf"]


@pytest.mark.slow
def test_fifty_pages_sharing_one_inflating_page_are_refused_by_an_estimate_at_once(
    wiki: Path, tmp_path: Path, pages_read: list[object]
) -> None:
    hostile = tmp_path / "tiny.pdf"
    hostile.write_bytes(shared_page_pdf(text_drawing(2_000_000), pages=50))
    result = CliRunner().invoke(app, ["ingest", str(hostile), "--vault", str(wiki), "--estimate"])
    assert result.exit_code == 2, result.output  # a source given that cannot be used, as any other
    assert f"{hostile}: PDF text would be up to 1.9 MB from a file of" in " ".join(result.output.split())
    assert pages_read == []
