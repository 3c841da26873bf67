"""What wikic writes passes its own `lint --strict` right after writing: ingest, `query --save` (also an
answer from raw passages alone), through the CLI, the real openai client and the stand-in server.
And what happens where the wiki has too little to link."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from library import ingest, run_lint
from scripted import entity, fact, plan
from standin_openai import Behaviour, StandinServer, is_answer_request, reply
from testkit import init_wiki, llm_toml
from typer.testing import CliRunner
from vectorstores import SOURCES, answer, extraction

from wikic.cli import app
from wikic.ingest.pipeline import IngestOptions
from wikic.lint.run import LintOptions


def _cli(root: Path, *args: str) -> Any:
    return CliRunner().invoke(app, [*args, "--vault", str(root)], catch_exceptions=False)


def _route(body: dict[str, Any]) -> Behaviour | dict[str, Any]:
    return reply(answer(body)) if is_answer_request(body) else extraction(body)


def _frontmatter(text: str) -> dict[str, Any]:
    return yaml.safe_load(text.split("---\n")[1])


def test_ingest_then_query_save_then_strict_lint_is_clean(tmp_path: Path) -> None:
    root = tmp_path / "wiki"
    assert CliRunner().invoke(app, ["init", str(root)]).exit_code == 0
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name, text in SOURCES.items():
        (inbox / name).write_text(text, encoding="utf-8")
    with StandinServer() as server:
        server.route = _route
        (root / "wikic.toml").write_text(
            f'[llm]\nbase_url = "{server.base_url}"\nmodel = "standin-model"\ntimeout = 10\nmax_retries = 0\n',
            encoding="utf-8",
        )
        # the third source names the comparison the first one wrote
        ingested = _cli(root, "ingest", *(str(inbox / name) for name in SOURCES), "--json")
        assert ingested.exit_code == 0, ingested.output
        report = json.loads(ingested.stdout)
        assert report["totals"]["compiled"] == 3 and report["totals"]["failed"] == 0
        on_pages = _cli(root, "query", "Where does Chroma run?", "--save")
        assert on_pages.exit_code == 0, on_pages.output
        from_raw = _cli(root, "query", "Who made Annoy?", "--save")
        assert from_raw.exit_code == 0, from_raw.output
        linted = _cli(root, "lint", "--strict")
    assert linted.exit_code == 0, linted.output
    assert "Warning" not in from_raw.stderr

    # the comparison, written before its subjects had pages, links them and is linked from them; it is named
    # like its source (raw/ and sources/ hold a vector-databases.md too): links to it say its folder
    comparison = (root / "comparisons/vector-databases.md").read_text(encoding="utf-8")
    for page in ("entities/chroma.md", "entities/faiss.md"):
        assert "[[comparisons/vector-databases|Vector databases]]" in (root / page).read_text(encoding="utf-8")
    assert "[[chroma|Chroma]]" in comparison and "[[faiss|FAISS]]" in comparison
    # the answer from a raw passage links to the pages built on that source, and they link back
    query = (root / "queries/who-made-annoy.md").read_text(encoding="utf-8")
    fm = _frontmatter(query)
    assert fm["cited"] == {} and fm["sources"] == ["raw/articles/vector-databases.md"]
    assert fm["related"] == ["comparisons/vector-databases.md", "entities/chroma.md", "entities/faiss.md"]
    assert "- See also: [[comparisons/vector-databases|Vector databases]], [[chroma|Chroma]], [[faiss|FAISS]]" in query
    for page in fm["related"]:
        assert "[[who-made-annoy|Who made Annoy?]]" in (root / page).read_text(encoding="utf-8")
    assert "linked from 3 page(s) on its sources" in from_raw.stderr


def _vault(tmp_path: Path, server: StandinServer, min_references: int = 2) -> Path:
    return init_wiki(tmp_path / "wiki", min_references=min_references, toml=llm_toml(server.base_url, timeout=10))


def _orphans(root: Path) -> list[str]:
    return sorted(f.path for f in run_lint(root, LintOptions(use_cache=False, select=("orphan-page",))).findings)


def test_a_source_with_many_pages_leaves_none_of_them_unlinked(tmp_path: Path) -> None:
    names = [f"Tool {chr(ord('A') + i)}" for i in range(10)]
    text = "# Tools\n\n" + "".join(f"{name} is a tool the team uses.\n" for name in names)
    with StandinServer() as server:
        server.route = lambda body: plan(
            "Tools.",
            [entity(n, "product", f"{n}.", [fact(f"{n} is a tool.", f"{n} is a tool the team uses.")]) for n in names],
        )
        root = _vault(tmp_path, server, min_references=1)
        (tmp_path / "tools.md").write_text(text, encoding="utf-8")
        report = ingest(root, IngestOptions(inputs=[str(tmp_path / "tools.md")], use_palace=False))
    assert len(report.created) == 10
    assert _orphans(root) == []
    # each page lists at most six others
    for path in report.created:
        see_also = [
            line for line in (root / path).read_text(encoding="utf-8").splitlines() if line.startswith("- See also: ")
        ]
        assert len(see_also) == 1 and see_also[0].count("[[") == 6


def test_a_source_yielding_one_page_is_linked_once_another_page_shares_a_source(tmp_path: Path) -> None:
    """A lone page has nothing to link to and nothing to link it from: no orphan. A later page promoted with
    what the same source said joins it, and both pages link to each other (the source pages and the overview
    link both, which makes neither less of an orphan)."""
    first = (
        "# Notes\n\nRAG answers from retrieved passages.\nRAG needs a retriever.\nRAG needs a "
        "generator.\nQdrant stores vectors.\n"
    )
    second = "# More\n\nQdrant is written in Rust.\n"
    rag = {
        "name": "RAG",
        "summary": "Retrieval-augmented generation.",
        "sections": [
            {"heading": h, "facts": [fact(q, q)]}
            for h, q in (
                ("How it works", "RAG answers from retrieved passages."),
                ("Variants", "RAG needs a retriever."),
                ("Trade-offs", "RAG needs a generator."),
            )
        ],
    }

    def route(body: dict[str, Any]) -> dict[str, Any]:
        if "retrieved passages" in body["messages"][-1]["content"]:
            return plan(
                "RAG.",
                [
                    entity(
                        "Qdrant",
                        "product",
                        "A vector database.",
                        [fact("Qdrant stores vectors.", "Qdrant stores vectors.")],
                    )
                ],
                concepts=[rag],
            )
        return plan(
            "Qdrant.",
            [
                entity(
                    "Qdrant",
                    "product",
                    "A vector database.",
                    [fact("Qdrant is written in Rust.", "Qdrant is written in Rust.")],
                )
            ],
        )

    with StandinServer() as server:
        server.route = route
        root = _vault(tmp_path, server)
        (tmp_path / "first.md").write_text(first, encoding="utf-8")
        (tmp_path / "second.md").write_text(second, encoding="utf-8")
        one = ingest(root, IngestOptions(inputs=[str(tmp_path / "first.md")], use_palace=False))
        assert one.created == ["concepts/rag.md"] and one.sources[0].pending == ["Qdrant"]
        assert _orphans(root) == []
        two = ingest(root, IngestOptions(inputs=[str(tmp_path / "second.md")], use_palace=False))
    assert two.created == ["entities/qdrant.md"] and two.updated == ["concepts/rag.md"]
    assert "[[qdrant|Qdrant]]" in (root / "concepts/rag.md").read_text(encoding="utf-8")
    assert "[[rag|RAG]]" in (root / "entities/qdrant.md").read_text(encoding="utf-8")
    assert _orphans(root) == []


def test_a_see_also_link_added_later_does_not_make_an_answer_stale(tmp_path: Path) -> None:
    """A page an answer cites gains a See also link when a page built on the same source appears: its
    knowledge did not change, so the answer is not stale."""
    root = tmp_path / "wiki"
    assert CliRunner().invoke(app, ["init", str(root)]).exit_code == 0
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    notes, benchmarks = inbox / "vector-notes.md", inbox / "vector-benchmarks.md"
    notes.write_text(SOURCES["vector-notes.md"], encoding="utf-8")
    benchmarks.write_text(SOURCES["vector-benchmarks.md"], encoding="utf-8")
    with StandinServer() as server:
        server.route = lambda body: (reply("Chroma runs in-process or as a server [[vector-databases]].")
                                     if is_answer_request(body) else extraction(body))
        (root / "wikic.toml").write_text(
            f'[llm]\nbase_url = "{server.base_url}"\nmodel = "standin-model"\ntimeout = 10\nmax_retries = 0\n',
            encoding="utf-8",
        )
        assert _cli(root, "ingest", str(notes)).exit_code == 0  # the comparison alone: Chroma and FAISS wait
        assert _cli(root, "query", "Where does Chroma run?", "--save").exit_code == 0
        later = _cli(root, "ingest", str(benchmarks), "--json")
    report = json.loads(later.stdout)
    assert report["sources"][0]["updated"] == ["comparisons/vector-databases.md"]  # its See also, nothing else
    compiled = json.loads((root / ".wikic/compiled.json").read_text(encoding="utf-8"))["sources"]
    # the comparison does not cite the benchmarks: it is not recorded as one of their pages
    assert compiled["raw/articles/vector-benchmarks.md"]["pages"] == ["entities/chroma.md", "entities/faiss.md"]
    assert "[[chroma|Chroma]]" in (root / "comparisons/vector-databases.md").read_text(encoding="utf-8")
    stale = run_lint(root, LintOptions(use_cache=False, select=("stale-page",))).findings
    assert stale == []
