"""The hubs an ingest writes (`wikic/hubs/`): overview.md, a page per source in sources/, index.md leading to
the overview with counts and leads, log.md rows that link; after a second ingest that changes one source,
after a person edits a hub, in a one-page vault, in a vault an earlier version made (`wikic init`, the next
ingest), and as lint and `--fix` hold them."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from pathlib import Path
from typing import Any

import yaml
from library import ingest, load_vault, run_lint
from scripted import SOURCES, entity, fact, plan, route
from standin_openai import StandinServer
from typer.testing import CliRunner

from wikic.cli import app
from wikic.hubs.overview import domain
from wikic.ingest.compiled import Compiled
from wikic.ingest.pipeline import IngestOptions
from wikic.lint.run import LintOptions
from wikic.status import read_log
from wikic.vault.formats.anchors import find_anchors
from wikic.vault.formats.claims import plain_text, scan
from wikic.vault.graph import build
from wikic.vault.lead import page_lead
from wikic.vault.schema_md import load as load_schema

TODAY = dt.date(2026, 11, 29)
KEY_POINT = re.compile(r"^- \[\[(?P<link>[^\]|]+)\|?[^\]]*\]\]: (?P<text>.+?) (?P<anchor>\^\[\[\[.+\]\] L[0-9L-]+\])$")


def _vault(tmp_path: Path, server: StandinServer, *, min_references: int = 2) -> Path:
    root = tmp_path / "wiki"
    assert CliRunner().invoke(app, ["init", str(root)]).exit_code == 0
    (root / "wikic.toml").write_text(
        f'[llm]\nbase_url = "{server.base_url}"\nmodel = "standin-model"\ntimeout = 5\nmax_retries = 0\n'
        "compose = false\n",
        encoding="utf-8",
    )
    schema = (root / "SCHEMA.md").read_text(encoding="utf-8")
    schema = schema.replace("- #tool\n", "- #tool\n- #model\n- #research\n")
    schema = schema.replace("entity_min_references: 2", f"entity_min_references: {min_references}")
    # the scripted sources leave the RAG page one sibling to link: too few links is no hub's matter
    schema = schema.replace("min_outbound_links: 2", "min_outbound_links: 1")
    (root / "SCHEMA.md").write_text(schema, encoding="utf-8")
    return root


def _inputs(tmp_path: Path, sources: dict[str, str] = SOURCES) -> list[str]:
    folder = tmp_path / "inbox"
    folder.mkdir(exist_ok=True)
    for name, text in sources.items():
        (folder / name).write_text(text, encoding="utf-8")
    return [str(folder / name) for name in sources]


def _ingest(root: Path, inputs: list[str], **options: Any) -> Any:
    options.setdefault("today", TODAY)
    report = ingest(root, IngestOptions(inputs=inputs, use_palace=False, **options))
    assert all(s.status in ("compiled", "unchanged") for s in report.sources), [s.error for s in report.sources]
    return report


def _frontmatter(text: str) -> dict[str, Any]:
    return yaml.safe_load(text.split("---\n")[1])


def _source_pages(root: Path) -> dict[str, str]:
    """raw path -> its source page."""
    return {_frontmatter(p.read_text(encoding="utf-8"))["sources"][0]: p.relative_to(root).as_posix()
            for p in sorted((root / "sources").glob("*.md"))}


def _strict(root: Path) -> Any:
    return CliRunner().invoke(app, ["lint", str(root), "--strict", "--as-of", TODAY.isoformat(), "--no-cache"])


def _texts(root: Path, folder: str) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in sorted((root / folder).glob("*.md"))}


def test_an_ingest_writes_the_overview_a_page_per_source_and_an_index_and_log_a_reader_can_use(
    tmp_path: Path, standin: StandinServer
) -> None:
    standin.route = route
    root = _vault(tmp_path, standin)
    report = _ingest(root, _inputs(tmp_path))
    vault = load_vault(root, use_cache=False)
    subjects = vault.subject_pages
    assert subjects == ["concepts/retrieval-augmented-generation.md", "entities/gpt-4.md", "entities/openai.md",
                        "entities/sam-altman.md"]
    compiled = Compiled.load(root).entries

    # a page per source, each saying what the source is and what it gave the wiki
    pages = _source_pages(root)
    assert set(pages) == set(compiled) == {s.raw_path for s in report.sources}
    links = build(vault)
    for raw, page in pages.items():
        text = (root / page).read_text(encoding="utf-8")
        fm = _frontmatter(text)
        assert fm["type"] == "source" and fm["sources"] == [raw] and fm["title"]
        assert text.split("\n---\n", 1)[1].startswith(f"# {fm['title']}\n")
        fed = [p for p in subjects if raw in _frontmatter((root / p).read_text(encoding="utf-8"))["sources"]]
        targets = {e.target for e in links.by_source[page]}
        # the raw file, the source page and the pages built on it link each other
        assert raw in targets and set(fed) <= targets
        for subject in fed:
            assert raw in {e.target for e in links.by_source[subject]}
        # key points: claims the pages carry, each with this source's anchor; as many as there are, up to five
        section = text.split("## Key points", 1)[1].split("## ", 1)[0]
        points = [m for line in section.split("\n") if (m := KEY_POINT.match(line))]
        available = [c for p in fed for c in scan((root / p).read_text(encoding="utf-8"))
                     if c.block != "history" and raw in c.sources]
        assert len(points) == min(5, len(available)) and len(points) >= 2, (page, section)
        for point in points:
            (cited,) = find_anchors(point["anchor"])
            assert cited[1].path == raw
            on_page = next(p for p in fed if p[:-3].endswith(point["link"]))
            claims = scan((root / on_page).read_text(encoding="utf-8"))
            assert any(plain_text(c.text) == point["text"] and raw in c.sources for c in claims), point.group(0)
        # what was dropped, counted as the compiled ledger has it
        dropped = {r: n for r, n in (compiled[raw].dropped or {}).items() if r != "unsupported summary"}
        left_out = text.split("## Left out", 1)[1]
        if dropped:
            assert f"- {sum(dropped.values())} claim{'' if sum(dropped.values()) == 1 else 's'} dropped" in left_out
        else:
            assert "claim dropped" not in left_out and "claims dropped" not in left_out
    openai = (root / pages["raw/articles/openai-and-gpt-4.md"]).read_text(encoding="utf-8")
    assert "- 1 claim dropped because the quote is not in the source" in openai
    assert "“OpenAI and GPT-4” is an article. It fed 3 pages." in openai

    # the overview: what the wiki covers, every subject of this small wiki with its lead, the latest changes
    overview = (root / "overview.md").read_text(encoding="utf-8")
    assert overview.startswith("# Overview\n")
    assert domain(load_schema(root)) == "General Knowledge"  # the Domain's first paragraph: the rest is for the model
    assert "This wiki covers General Knowledge." in overview
    assert "It holds 4 pages on its subjects, built from 3 sources" in overview
    for subject in subjects:
        text = (root / subject).read_text(encoding="utf-8")
        stem = subject.rsplit("/", 1)[1][:-3]
        assert f"- [[{stem}|{_frontmatter(text)['title']}]] — {page_lead(text)}" in overview
    changes = overview.split("## Latest changes", 1)[1].split("## ", 1)[0]
    for page in pages.values():
        assert f"ingested [[{page[:-3]}|" in changes
    assert "| Sources | 3 |" in overview

    # index.md: the overview first, each section counted, each page by its lead
    index = (root / "index.md").read_text(encoding="utf-8")
    assert index.startswith("# Wiki Index\n\nStart with the [[overview]]")
    assert "## Entities\n*3 pages*\n" in index and "## Concepts\n*1 page*\n" in index
    assert "## Sources\n*3 pages*\n" in index
    for page in [*subjects, *pages.values()]:
        text = (root / page).read_text(encoding="utf-8")
        link = page[:-3] if page.startswith("sources/") else page.rsplit("/", 1)[1][:-3]
        assert f"[[{link}]] — {page_lead(text)}\n" in index, page

    # log.md: a row per source, linking its source page and the pages it wrote, the tokens last
    rows = [r for r in read_log(root) if r.action == "ingest"]
    assert [r.target_link for r in rows] == [pages[s.raw_path][:-3] for s in report.sources]
    notes = {r.target_link: r.notes for r in rows}
    assert notes["sources/notes-on-openai"].startswith(
        "created [[openai|OpenAI]], [[gpt-4|GPT-4]], [[sam-altman|Sam Altman]]; ")
    assert all(r.notes.endswith("20 tokens") and r.tokens == 20 for r in rows)

    assert _strict(root).exit_code == 0, _strict(root).output


def test_a_second_ingest_that_changes_one_source_rewrites_its_page_and_nothing_else(
    tmp_path: Path, standin: StandinServer
) -> None:
    standin.route = route
    root = _vault(tmp_path, standin)
    inputs = _inputs(tmp_path)
    _ingest(root, inputs)
    pages = _source_pages(root)
    before = _texts(root, "sources")
    overview = (root / "overview.md").read_text(encoding="utf-8")
    first = inputs[0]  # openai.md: the model proposes less from it now

    def changed(body: dict[str, Any]) -> dict[str, Any]:
        said = route(body)
        for item in said["entities"]:
            item["facts"] = [f for f in item["facts"] if "San Francisco" not in f["text"]]
        return said

    standin.route = changed
    report = _ingest(root, [first], force=True, today=TODAY + dt.timedelta(days=1))
    assert [s.status for s in report.sources] == ["compiled"]
    after = _texts(root, "sources")
    changed_page = pages["raw/articles/openai-and-gpt-4.md"]
    # what it says now: its key points, and what was left out this time
    dropped = sum(n for r, n in (Compiled.load(root).entries["raw/articles/openai-and-gpt-4.md"].dropped or {}).items()
                  if r != "unsupported summary")
    assert after[changed_page] != before[changed_page] and "updated: 2026-11-30" in after[changed_page]
    assert f"- {dropped} claims dropped because the quote is not in the source" in after[changed_page]
    assert {p: t for p, t in after.items() if p != changed_page} == {p: t for p, t in before.items()
                                                                     if p != changed_page}
    new_overview = (root / "overview.md").read_text(encoding="utf-8")
    assert new_overview != overview and "- 2026-11-30 · ingested [[sources/openai-and-gpt-4|" in new_overview
    assert len([r for r in read_log(root) if r.action == "ingest"]) == 4
    assert (root / "index.md").read_text(encoding="utf-8").count("[[sources/openai-and-gpt-4]]") == 1
    assert _strict(root).exit_code == 0, _strict(root).output


def test_an_ingest_that_only_links_to_a_sources_pages_leaves_that_sources_page_as_it_was(
    tmp_path: Path, standin: StandinServer
) -> None:
    # Acme and Borealis are each said once by the first source; the second source names Borealis and Corvex,
    # so pages now link Borealis more than Acme. What the first source says is the same: so is its page.
    first = {"fleet.md": "# Fleet\n\nAcme builds reusable rockets.\nBorealis sells weather satellites.\n"}
    second = {"orbit.md": "# Orbit\n\nBorealis launches from Kiruna.\nCorvex insures the launches.\n"}
    said = {line: name for text in (*first.values(), *second.values()) for line in text.split("\n")[2:] if line
            for name in ("Acme", "Borealis", "Corvex") if line.startswith(name)}

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        user = body["messages"][-1]["content"]
        found = [entity(name, "organization", f"{name} is a company.", [fact(line, line)])
                 for line, name in said.items() if line in user]
        return plan("Companies.", found)

    standin.route = answer
    root = _vault(tmp_path, standin, min_references=1)
    _ingest(root, _inputs(tmp_path, first))
    (page,) = _source_pages(root).values()
    before = (root / page).read_text(encoding="utf-8")
    assert before.index("[[acme|Acme]]: Acme builds") < before.index("[[borealis|Borealis]]: Borealis sells")
    _ingest(root, _inputs(tmp_path, second), today=TODAY + dt.timedelta(days=1))
    assert "[[borealis" in (root / "entities" / "corvex.md").read_text(encoding="utf-8")
    assert (root / page).read_text(encoding="utf-8") == before


def test_a_claim_two_pages_carry_is_one_key_point_of_its_source_on_the_page_it_names(
    tmp_path: Path, standin: StandinServer
) -> None:
    # the model files Acme's figure under Borealis too, first (as a small model put a product's figure on its
    # author's page): its paragraph names Borealis, so it stays there; Borealis's page says more of the source
    ran, launches = "Borealis ran the tests.", "In the second round, Acme handled 25 launches."
    text = f"# Tests\n\n{ran} {launches}\n"

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        return plan("Tests.", [
            entity("Borealis", "organization", "Borealis is a company.", [fact(launches, launches), fact(ran, ran)]),
            entity("Acme", "organization", "Acme is a company.", [fact(launches, launches)]),
        ])

    standin.route = answer
    root = _vault(tmp_path, standin, min_references=1)
    _ingest(root, _inputs(tmp_path, {"tests.md": text}))
    for subject in ("acme", "borealis"):  # both pages carry it
        claims = scan((root / "entities" / f"{subject}.md").read_text(encoding="utf-8"))
        assert launches in [plain_text(c.text) for c in claims]
    (page,) = _source_pages(root).values()
    section = (root / page).read_text(encoding="utf-8").split("## Key points", 1)[1].split("## ", 1)[0]
    points = [(m["link"], m["text"]) for line in section.split("\n") if (m := KEY_POINT.match(line))]
    assert points == [("borealis", ran), ("acme", launches)]  # in the order the source says them


def test_a_persons_edits_to_the_hubs_are_kept(tmp_path: Path, standin: StandinServer) -> None:
    standin.route = route
    root = _vault(tmp_path, standin)
    inputs = _inputs(tmp_path)
    _ingest(root, inputs)
    pages = _source_pages(root)
    overview_path = root / "overview.md"
    overview_path.write_text(overview_path.read_text(encoding="utf-8") + "\nMy own reading order: GPT-4 first.\n",
                             encoding="utf-8")
    page = root / pages["raw/articles/retrieval-and-generation.md"]
    text = page.read_text(encoding="utf-8")
    points = re.search(r"(<!-- wikic:begin source:key-points sha=\w+ -->\n)(.*?)(\n<!-- wikic:end)", text, re.S)
    assert points is not None
    page.write_text(text.replace(points.group(2), "- In short: RAG answers from passages it retrieves."),
                    encoding="utf-8")
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("## Left out", "My note above the section.\n\n## Left out"), encoding="utf-8")

    _ingest(root, [inputs[2]], force=True, today=TODAY + dt.timedelta(days=1))
    overview = overview_path.read_text(encoding="utf-8")
    assert overview.endswith("\nMy own reading order: GPT-4 first.\n")
    assert "- 2026-11-30 · ingested [[sources/retrieval-and-generation|" in overview  # its blocks moved on
    text = page.read_text(encoding="utf-8")
    assert "- In short: RAG answers from passages it retrieves.\n<!-- wikic:end source:key-points -->" in text
    assert "My note above the section.\n\n## Left out" in text
    # what the code has for the edited block now sits beside it, so the page still says everything
    beside = text.split("<!-- wikic:begin source:key-points:more", 1)[1].split("<!-- wikic:end")[0]
    kept = [m for line in beside.split("\n") if (m := KEY_POINT.match(line))]
    assert len(kept) >= 3 and all("retrieval-and-generation.md" in m["anchor"] for m in kept)
    assert _strict(root).exit_code == 0, _strict(root).output


def test_a_vault_with_one_subject_page_passes_strict_lint(tmp_path: Path, standin: StandinServer) -> None:
    standin.route = lambda body: plan("Qdrant.", [entity("Qdrant", "product", "A vector database.", [
        fact("Qdrant is written in Rust.", "Qdrant is written in Rust.")])])
    root = _vault(tmp_path, standin, min_references=1)
    text = "# Notes on a vector store\n\nQdrant is written in Rust.\n"
    _ingest(root, _inputs(tmp_path, {"notes-on-a-vector-store.md": text}))
    assert load_vault(root, use_cache=False).subject_pages == ["entities/qdrant.md"]
    assert (root / "sources/notes-on-a-vector-store.md").is_file() and (root / "overview.md").is_file()
    result = _strict(root)
    assert result.exit_code == 0, result.output
    assert "0 error(s), 0 warning(s)" in result.output


def _as_an_earlier_version_left_it(root: Path) -> None:
    """The vault without its hubs: no overview, no sources/, index.md without their lines."""
    shutil.rmtree(root / "sources")
    (root / "overview.md").unlink()
    index = (root / "index.md").read_text(encoding="utf-8")
    index = index.replace("Start with the [[overview]]: what this wiki covers, its main subjects and what changed "
                          "lately.\n\n", "")
    index = re.sub(r"\*\d+ pages?\*\n", "", index.split("## Sources")[0])
    (root / "index.md").write_text(index, encoding="utf-8")


def test_init_adds_the_hubs_to_a_vault_an_earlier_version_made(tmp_path: Path, standin: StandinServer) -> None:
    standin.route = route
    root = _vault(tmp_path, standin)
    _ingest(root, _inputs(tmp_path))
    made = _texts(root, "sources")
    _as_an_earlier_version_left_it(root)
    (root / "inbox" / "mine.md").write_text("My own note.\n", encoding="utf-8")
    subjects = {**_texts(root, "entities"), **_texts(root, "concepts")}
    # an earlier version's vault lints as it did: no hub is held to anything until one exists
    assert not [f for f in run_lint(root, LintOptions(use_cache=False, today=TODAY)).findings
                if f.rule == "index-gap"]

    first = CliRunner().invoke(app, ["init", str(root), "--json"])
    assert first.exit_code == 0, first.output
    created = json.loads(first.stdout)["created"]
    assert sorted(created) == ["overview.md", "sources/", *sorted(made)]
    # the same source pages an ingest writes (but for the day they were made)
    assert {p: re.sub(r"(created|updated): \S+", "", t) for p, t in _texts(root, "sources").items()} == {
        p: re.sub(r"(created|updated): \S+", "", t) for p, t in made.items()}
    assert {**_texts(root, "entities"), **_texts(root, "concepts")} == subjects
    assert (root / "inbox" / "mine.md").read_text(encoding="utf-8") == "My own note.\n"
    index = (root / "index.md").read_text(encoding="utf-8")
    assert "Start with the [[overview]]" in index and "## Sources\n*3 pages*\n" in index
    assert _strict(root).exit_code == 0, _strict(root).output

    again = CliRunner().invoke(app, ["init", str(root)])
    assert again.stdout.endswith("already a vault, nothing to do\n")


def test_the_next_ingest_writes_the_hubs_of_a_vault_an_earlier_version_made(
    tmp_path: Path, standin: StandinServer
) -> None:
    standin.route = route
    root = _vault(tmp_path, standin)
    inputs = _inputs(tmp_path)
    _ingest(root, inputs[:2])
    _as_an_earlier_version_left_it(root)
    _ingest(root, inputs[2:])
    assert set(_source_pages(root)) == set(Compiled.load(root).entries)  # the two before it too
    assert (root / "overview.md").is_file()
    assert _strict(root).exit_code == 0, _strict(root).output


def test_lint_finds_a_hub_that_misses_a_page_and_fix_writes_it_again(tmp_path: Path, standin: StandinServer) -> None:
    standin.route = route
    root = _vault(tmp_path, standin)
    _ingest(root, _inputs(tmp_path))
    pages = _source_pages(root)
    (root / pages["raw/articles/notes-on-openai.md"]).unlink()
    (root / "overview.md").unlink()
    # a page a person built on a source by hand: its source page does not list it yet
    rag = root / "concepts/retrieval-augmented-generation.md"
    rag.write_text(rag.read_text(encoding="utf-8").replace(
        "sources: [raw/articles/retrieval-and-generation.md]",
        "sources: [raw/articles/openai-and-gpt-4.md, raw/articles/retrieval-and-generation.md]"), encoding="utf-8")

    found = [(f.rule, f.severity, f.path, f.message) for f in run_lint(root, LintOptions(use_cache=False, today=TODAY))
             .findings if f.rule == "index-gap"]
    assert ("index-gap", "warning", "overview.md",
            "overview.md is missing: nothing says what the wiki covers and where to start") in found
    assert ("index-gap", "warning", "raw/articles/notes-on-openai.md",
            "no source page says what this source gave the wiki (3 page(s) are built on it)") in found
    assert ("index-gap", "warning", pages["raw/articles/openai-and-gpt-4.md"], "does not list "
            "concepts/retrieval-augmented-generation.md, built on raw/articles/openai-and-gpt-4.md") in found

    fixed = CliRunner().invoke(app, ["lint", str(root), "--fix", "--as-of", TODAY.isoformat()])
    assert "fixed overview.md" in fixed.stderr and f"fixed {pages['raw/articles/notes-on-openai.md']}" in fixed.stderr
    assert "[[retrieval-augmented-generation|Retrieval-Augmented Generation]]" in (
        root / pages["raw/articles/openai-and-gpt-4.md"]).read_text(encoding="utf-8")
    assert _strict(root).exit_code == 0, _strict(root).output


TRANSCRIPT = """---
title: Sync about the search service
conversation: sync-1
tool: chat-log
started: 2026-10-20T09:00:00Z
---

**Maya** · 2026-10-20 09:00
Qdrant is written in Rust, and we run it on one node.

**Tomás** · 2026-10-20 09:02
Qdrant keeps its vectors on disk between restarts.
"""


def test_a_conversation_gets_a_source_page_of_its_own(tmp_path: Path, standin: StandinServer) -> None:
    standin.route = lambda body: {**plan("Sync.", [entity("Qdrant", "product", "A vector database.", [
        fact("Qdrant is written in Rust.", "Qdrant is written in Rust"),
        fact("Qdrant keeps its vectors on disk between restarts.", "Qdrant keeps its vectors on disk")])]),
        "memories": []}
    root = _vault(tmp_path, standin, min_references=1)
    transcript = root / "raw" / "transcripts" / "2026-10-20-sync.md"
    transcript.write_text(TRANSCRIPT, encoding="utf-8")
    _ingest(root, [str(transcript)])
    page = (root / "sources" / "2026-10-20-sync.md").read_text(encoding="utf-8")
    assert _frontmatter(page)["date"] == "2026-10-20"
    assert ("“Sync about the search service” is a conversation between Maya and Tomás, started 2026-10-20. "
            "It fed 1 page.") in page
    assert "- 2 turns" in page
    assert page.count("- [[qdrant|Qdrant]]: ") == 2
    assert _strict(root).exit_code == 0, _strict(root).output


def test_a_source_whose_names_get_their_pages_later_lists_them_on_its_page(
    tmp_path: Path, standin: StandinServer
) -> None:
    standin.route = route
    root = _vault(tmp_path, standin)
    inputs = _inputs(tmp_path)
    _ingest(root, inputs[:1])  # its three names wait for a second source
    page = root / "sources" / "openai-and-gpt-4.md"
    first = page.read_text(encoding="utf-8")
    assert "It fed no page yet." in first and "- 3 names waiting for a page" in first
    _ingest(root, inputs[1:2], today=TODAY + dt.timedelta(days=1))  # the second one: their pages, with what both said
    text = page.read_text(encoding="utf-8")
    assert "It fed 3 pages." in text and "names waiting" not in text
    fed = text.split("## Pages it fed", 1)[1].split("## ", 1)[0]
    assert "[[gpt-4|GPT-4]]" in fed and "[[openai|OpenAI]]" in fed and "[[sam-altman|Sam Altman]]" in fed
    assert _strict(root).exit_code == 0, _strict(root).output


def test_the_report_says_which_hubs_the_run_wrote(tmp_path: Path, standin: StandinServer) -> None:
    standin.route = route
    root = _vault(tmp_path, standin)
    result = CliRunner().invoke(app, ["ingest", *_inputs(tmp_path)[:2], "--vault", str(root), "--no-palace"])
    assert result.exit_code == 0, result.output
    assert ("hubs written: overview.md, 2 source page(s) (sources/notes-on-openai.md, sources/openai-and-gpt-4.md)"
            in result.output)
    as_json = CliRunner().invoke(app, ["ingest", _inputs(tmp_path)[2], "--vault", str(root), "--no-palace", "--json"])
    assert json.loads(as_json.stdout)["hubs"] == ["overview.md", "sources/retrieval-and-generation.md"]


def test_what_a_source_says_of_itself_reaches_its_page_as_plain_text(tmp_path: Path, standin: StandinServer) -> None:
    standin.route = lambda body: plan("Qdrant.", [entity("Qdrant", "product", "A vector database.", [
        fact("Qdrant is written in Rust.", "Qdrant is written in Rust.")])])
    root = _vault(tmp_path, standin, min_references=1)
    hostile = ('---\ntitle: "[[ghost]] notes <!-- the rest is hidden"\nauthor: "%%Mallory"\n'
               'url: "javascript:alert(1)"\n---\n# Notes\n\nQdrant is written in Rust.\n')
    _ingest(root, _inputs(tmp_path, {"notes.md": hostile}))
    (page,) = sorted((root / "sources").glob("*.md"))
    text = page.read_text(encoding="utf-8")
    body = text.split("\n---\n", 1)[1]  # YAML holds the title as text: only the body is Markdown
    assert "[[ghost" not in text and "%%" not in text and "javascript" not in text
    assert "<!-- the rest" not in body and "notes &lt;!-- the rest is hidden” is an article by %Mallory." in body
    assert _strict(root).exit_code == 0, _strict(root).output
