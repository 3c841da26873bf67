"""The compiler: an item whose name is an existing page of another kind, a source that fails to compile
(alone, leaving no trace), and comparison tables built from what the model's cells name."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import pytest
from library import ingest, page_names
from standin_openai import StandinServer
from testkit import init_wiki, llm_toml
from vectorstores import SOURCES, extraction

from wikic.compile.compiler import Compiler, CompileSetting
from wikic.compile.mentions import Mentions
from wikic.compile.plan import Anchor, Axis, Cell, Comparison, Concept, Entity, Fact, Plan, Section
from wikic.compile.writing import PageWriter
from wikic.ingest.pipeline import IngestOptions
from wikic.vault.schema_md import load as load_schema

TODAY = dt.date(2026, 11, 29)


def _vault(tmp_path: Path, server: StandinServer | None = None) -> Path:
    """A vault as `wikic init` makes it: the default SCHEMA.md."""
    return init_wiki(tmp_path / "wiki", toml=llm_toml(server.base_url) if server is not None else None)


def _inbox(tmp_path: Path, sources: dict[str, str]) -> list[str]:
    folder = tmp_path / "inbox"
    folder.mkdir(exist_ok=True)
    for name, text in sources.items():
        (folder / name).write_text(text, encoding="utf-8")
    return [str(folder / name) for name in sources]


def _state(root: Path, name: str) -> dict[str, Any]:
    path = root / ".wikic" / name
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


# -- an item named like an existing page of another kind ----------------------------------------------------


def test_a_concept_named_like_an_existing_comparison_is_written_on_that_page(
    tmp_path: Path, standin: StandinServer
) -> None:
    standin.route = extraction
    root = _vault(tmp_path, standin)
    report = ingest(root, IngestOptions(inputs=_inbox(tmp_path, SOURCES), use_palace=False))

    assert [s.status for s in report.sources] == ["compiled"] * 3, [s.error for s in report.sources]
    (page,) = [p for p in report.created if p.startswith("comparisons/")]
    assert page in report.sources[2].updated
    text = (root / page).read_text(encoding="utf-8")
    assert text.count("\ntype: comparison\n") == 1  # the page keeps its kind
    assert "| Deployment | in-process or server" in text  # its table
    # and the concept's claims, under the comparison's own sections: headings are the layout's, not the model's
    assert "## Key facts" in text and "HNSW trades memory for speed." in text
    for heading in ("## Definition", "## Indexes", "## Filtering"):
        assert heading not in text
    assert not list((root / "concepts").iterdir())  # no second page with the same title
    # and a rerun has nothing to do
    again = ingest(root, IngestOptions(inputs=_inbox(tmp_path, SOURCES), use_palace=False))
    assert {s.status for s in again.sources} == {"unchanged"}


def _compile(root: Path, plan: Plan) -> tuple[Compiler, Any]:
    names, links = page_names(root)
    compiler = Compiler(CompileSetting(root, load_schema(root), TODAY), names, Mentions.load(root), links)
    return compiler, compiler.compile(plan, plan.source_path)


def _page(root: Path, rel: str, title: str, kind: str, body: str) -> None:
    (root / "raw/articles/old.md").write_text("# Old\n\nAn older source.\n", encoding="utf-8")
    (root / rel).write_text(
        f"---\ntitle: {title}\ncreated: 2026-01-01\nupdated: 2026-01-01\ntype: {kind}\ntags: []\n"
        f"sources: [raw/articles/old.md]\n---\n# {title}\n\n{body}\n",
        encoding="utf-8",
    )


SRC = "raw/articles/new.md"


def _source(root: Path, lines: int = 40) -> None:
    (root / SRC).write_text("\n".join(f"line {i}" for i in range(1, lines + 1)) + "\n", encoding="utf-8")


def _fact(text: str, line: int) -> Fact:
    return Fact(text, text, Anchor(SRC, line, line))


def _axes(*names: str, subjects: tuple[str, ...] = ("X", "Y")) -> tuple[Axis, ...]:
    return tuple(
        Axis(a, tuple(Cell(s, _fact(f"{a} of {s}", 2 * i + j + 1)) for j, s in enumerate(subjects)))
        for i, a in enumerate(names)
    )


def test_each_kind_of_item_lands_on_each_kind_of_page(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    _page(root, "entities/chroma.md", "Chroma", "entity", "Hand-written notes.")
    _page(root, "concepts/indexing.md", "Indexing", "concept", "## A\n\nx\n\n## B\n\ny\n\n## C\n\nz")
    _source(root)
    compiler, result = _compile(root, Plan(SRC, "s",
        entities=(Entity("Indexing", "other", (), "", (_fact("Indexing is slow.", 30),)),),
        concepts=(Concept("Chroma", "", (Section("Storage", (_fact("Chroma stores vectors.", 31),)),)),),
        comparisons=(Comparison("Chroma", ("X", "Y"), _axes("Speed", "Cost", "Setup")),),
    ))

    assert sorted(result.updated) == ["concepts/indexing.md", "entities/chroma.md"] and not result.created
    chroma, indexing = compiler.texts["entities/chroma.md"], compiler.texts["concepts/indexing.md"]
    # the concept's section and the comparison's table on the entity page, which keeps its kind and text
    assert "\ntype: entity\n" in chroma and "Hand-written notes." in chroma
    assert "## Key facts" in chroma and "Chroma stores vectors." in chroma and "## Storage" not in chroma
    assert "## Comparison" in chroma and "| Speed | Speed of X" in chroma
    # the entity's facts on the concept page, under its layout's first section
    assert "\ntype: concept\n" in indexing and "## How it works" in indexing and "Indexing is slow." in indexing


def test_an_entity_and_a_concept_of_one_source_on_one_page_both_stay(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    _page(root, "entities/chroma.md", "Chroma", "entity", "Notes.")
    _source(root)
    compiler, result = _compile(root, Plan(SRC, "s",
        entities=(Entity("Chroma", "product", (), "", (_fact("Chroma is a database.", 1),)),
                  Entity("Chroma DB", "product", ("Chroma",), "", (_fact("Chroma is open source.", 2),))),
        concepts=(Concept("chroma", "", (Section("Storage", (_fact("Chroma stores vectors.", 3),)),)),),
    ))
    text = compiler.texts["entities/chroma.md"]
    for claim in ("Chroma is a database.", "Chroma is open source.", "Chroma stores vectors."):
        assert claim in text
    assert result.updated == ["entities/chroma.md"]


def test_a_name_that_is_a_query_page_is_skipped_with_a_reason(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    _page(root, "queries/who-leads-openai.md", "Who leads OpenAI?", "query", "An answer.")
    _source(root)
    compiler, result = _compile(
        root, Plan(SRC, "s", entities=(Entity("Who leads OpenAI?", "other", (), "", (_fact("A claim.", 1),)),))
    )
    assert compiler.texts == {} and result.updated == []
    assert result.dropped_items == [
        (
            "entity 'Who leads OpenAI?': its name is the query page queries/who-leads-openai.md, which "
            "ingest does not write into"
        )
    ]


@pytest.mark.parametrize(
    "text",
    ["# Ana\n\nMy own notes about Ana.\n", "---\ntitle: [Ana\ntype: entity\n---\n# Ana\n\nMy notes.\n"],
    ids=["no-frontmatter", "broken-frontmatter"],
)
def test_a_page_ingest_skips_stays_as_it_is_and_no_page_lists_it_as_a_sibling(tmp_path: Path, text: str) -> None:
    root = _vault(tmp_path)
    schema = root / "SCHEMA.md"
    schema.write_text(schema.read_text(encoding="utf-8").replace("entity_min_references: 2",
                                                                 "entity_min_references: 1"), encoding="utf-8")
    (root / "entities/ana.md").write_text(text, encoding="utf-8")
    _source(root)
    compiler, result = _compile(root, Plan(SRC, "s", entities=tuple(
        Entity(name, "person", (), "", (_fact(f"{name} was here.", line),))
        for line, name in enumerate(("Ana", "Carl", "Dora"), start=1)
    )))
    assert result.dropped_items == ["entities/ana.md: frontmatter unreadable, not updated"]
    assert "entities/ana.md" not in compiler.texts and "entities/ana.md" not in result.updated  # never written
    assert sorted(result.created) == ["entities/carl.md", "entities/dora.md"]
    carl = compiler.texts["entities/carl.md"]
    assert "- See also: [[dora|Dora]]" in carl and "[[ana" not in carl  # it does not cite the source


# -- a source that fails to compile fails alone ------------------------------------------------------------


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "WIKIC_DEBUG"])
def test_a_source_that_fails_to_compile_fails_alone_and_leaves_no_trace(
    tmp_path: Path, standin: StandinServer, monkeypatch: pytest.MonkeyPatch, debug: bool
) -> None:
    from scripted import SOURCES as OPENAI_SOURCES, route

    standin.route = route
    root = _vault(tmp_path, standin)
    if debug:
        monkeypatch.setenv("WIKIC_DEBUG", "1")
    real = PageWriter.write_new

    def broken(self: PageWriter, path: str, *args: Any) -> None:
        if "notes-on-openai" in self.result.raw_path:  # the second source: it promotes OpenAI, GPT-4 and Sam Altman
            raise RuntimeError("boom")
        real(self, path, *args)

    monkeypatch.setattr(PageWriter, "write_new", broken)
    inputs = _inbox(tmp_path, OPENAI_SOURCES)  # openai.md, history.md, rag.md, in this order
    report = ingest(root, IngestOptions(inputs=inputs, use_palace=False))

    first, failed, third = report.sources
    assert (first.status, failed.status, third.status) == ("compiled", "failed", "compiled")
    assert failed.error is not None and failed.error.startswith("RuntimeError: boom")
    assert ("Traceback (most recent call last)" in failed.error) is debug
    assert failed.created == failed.updated == [] and failed.prompt_tokens > 0  # its tokens were spent all the same
    # nothing of the failed source anywhere
    history = failed.raw_path
    assert history not in _state(root, "compiled.json")["sources"]
    assert history not in (root / "log.md").read_text(encoding="utf-8")
    mentions = _state(root, "mentions.json")["mentions"]
    assert all(history not in item["sources"] for item in mentions.values())
    assert set(mentions["entity:openai"]["sources"]) == {first.raw_path}
    # ...nor in what the compiler knew when it went on: the third source promotes GPT-4 (with the first
    # source's fact) to the page the failed source would have made, under the same name
    assert set(third.created) == {"entities/gpt-4.md", "concepts/retrieval-augmented-generation.md"}
    gpt4 = (root / "entities/gpt-4.md").read_text(encoding="utf-8")
    assert "released in March 2023" in gpt4 and "used as the generator" in gpt4 and "multimodal" not in gpt4
    assert sorted(p.name for p in (root / "entities").iterdir()) == ["gpt-4.md"]
    index = (root / "index.md").read_text(encoding="utf-8")
    assert "[[openai]]" not in index and "[[gpt-4]]" in index

    # the next run compiles it
    monkeypatch.setattr(PageWriter, "write_new", real)
    again = ingest(root, IngestOptions(inputs=inputs, use_palace=False))
    assert {s.raw_path: s.status for s in again.sources} == {
        first.raw_path: "unchanged",
        history: "compiled",
        third.raw_path: "unchanged",
    }
    assert {"entities/openai.md", "entities/sam-altman.md"} <= set(again.created)


# -- comparison tables -------------------------------------------------------------------------------------


def _table(text: str) -> list[list[str]]:
    """The comparison table's rows as cells (header first, delimiter row left out)."""
    rows = [line for line in text.split("\n") if line.startswith("| ")]
    return [[c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]] for row in rows]


def test_cells_reach_their_subject_however_the_model_spelled_it(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    (root / "entities/openai.md").write_text(
        "---\ntitle: OpenAI\ncreated: 2026-01-01\nupdated: 2026-01-01\ntype: entity\ntags: []\n"
        "sources: [raw/articles/old.md]\n---\n# OpenAI\n", encoding="utf-8")
    (root / "raw/articles/old.md").write_text("old\n", encoding="utf-8")
    _source(root)
    spellings = {
        "GPT-4": "gpt 4",
        "The Claude 3": "Claude 3",
        "OpenAI": "Open AI Inc",
        "Retrieval-Augmented Generation": "RAG",
    }
    axes = tuple(
        Axis(
            axis,
            tuple(
                Cell(cell_name, _fact(f"{axis} of {listed}", 4 * i + j + 1))
                for j, (listed, cell_name) in enumerate(spellings.items())
            ),
        )
        for i, axis in enumerate(("Speed", "Cost", "Setup"))
    )
    # "Open AI Inc" is OpenAI because the plan says so (an alias of its entity)
    openai = Entity("OpenAI", "organization", ("Open AI Inc",), "", (_fact("OpenAI makes models.", 20),))
    compiler, result = _compile(
        root, Plan(SRC, "s", entities=(openai,), comparisons=(Comparison("Models", tuple(spellings), axes),))
    )

    (page,) = result.created
    header, *rows = _table(compiler.texts[page])
    assert header == ["Axis", "GPT-4", "The Claude 3", "[[openai\\|OpenAI]]", "Retrieval-Augmented Generation"]
    for i, row in enumerate(rows):
        axis = row[0]
        assert [c.split(" ^[")[0] for c in row[1:]] == [f"{axis} of {listed}" for listed in spellings]
        # each cell keeps its anchor: a link to the raw file and the line
        assert [re.findall(r"\^\[\[\[raw/articles/new.md\\\|new.md\]\] L(\d+)\]", c) for c in row[1:]] == [
            [str(4 * i + j + 1)] for j in range(4)
        ]
    assert "—" not in compiler.texts[page]


def test_the_same_plan_makes_the_same_table_whatever_pages_exist(tmp_path: Path) -> None:
    """Page aliases are not used to match cells: a recompile into a fuller wiki makes the same table."""
    root = _vault(tmp_path)
    _source(root)
    axes = _axes("Speed", "Cost", "Setup", subjects=("Meta AI", "Y"))
    plan = Plan(SRC, "s", comparisons=(Comparison("X vs Y", ("X", "Y"), axes),))
    compiler, result = _compile(root, plan)
    before = [row[1:] for row in _table(compiler.texts[result.created[0]])]
    _page(root, "entities/x.md", "X", "entity", "A page.")
    (root / "entities/x.md").write_text(
        (root / "entities/x.md").read_text(encoding="utf-8").replace("tags: []", "tags: []\naliases: [Meta AI]"),
        encoding="utf-8",
    )
    compiler, result = _compile(root, plan)
    assert [row[1:] for row in _table(compiler.texts[result.created[0]])][1:] == before[1:]


def test_a_comparison_whose_cells_name_no_listed_subject_is_never_all_dashes(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    _source(root)
    # The listed subjects have no cell; the only cells name one other subject: nothing to compare.
    _, result = _compile(
        root,
        Plan(
            SRC, "s", comparisons=(Comparison("A vs B", ("A", "B"), _axes("Speed", "Cost", "Setup", subjects=("C",))),)
        ),
    )
    assert result.created == []
    assert result.dropped_items == ["comparison 'A vs B' (1 subjects with anchored cells, 3 anchored axes)"]


def test_an_axis_is_a_row_only_with_a_cell_under_a_column(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    _source(root)
    axes = (*_axes("Speed", "Cost"), Axis("Setup", (Cell("X", Fact("no quote", "not in the source", None)),)))
    _, result = _compile(root, Plan(SRC, "s", comparisons=(Comparison("X vs Y", ("X", "Y"), axes),)))
    assert result.created == [] and result.dropped_items == [
        "comparison 'X vs Y' (2 subjects with anchored cells, 2 anchored axes)"
    ]


def test_subjects_the_model_did_not_list_get_a_column_while_there_is_room_then_a_line(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    _source(root)
    listed = ("A", "B", "C", "D")
    axes = list(_axes("Speed", "Cost", "Setup", subjects=listed))
    axes[0] = Axis("Speed", (*axes[0].values, Cell("E", _fact("E is fast", 30)), Cell("F", _fact("F is faster", 31)),
                             Cell("A", _fact("A is also quick", 32))))
    compiler, result = _compile(root, Plan(SRC, "s", comparisons=(Comparison("Five", listed, tuple(axes)),)))

    (page,) = result.created
    text = compiler.texts[page]
    header, speed, cost, setup = _table(text)
    assert header == ["Axis", "A", "B", "C", "D", "E"]  # at most five columns
    assert speed[5].startswith("E is fast ^[") and cost[5] == setup[5] == "—"
    assert speed[1].startswith("Speed of A ^[") and "; A is also quick ^[" in speed[1]  # two claims, one cell
    # F has no room: its claim is kept under the table, with its anchor
    assert "\n- F, Speed: F is faster ^[[[raw/articles/new.md|new.md]] L31]" in text


# -- claim anchors ---------------------------------------------------------------------------------------


def test_claims_cite_their_raw_file_with_a_link_that_reads_uniquely(tmp_path: Path) -> None:
    from wikic.vault.parse import parse_note

    root = _vault(tmp_path)
    _source(root)
    (root / "raw/papers/new.md").write_text("another file of the same name\n", encoding="utf-8")
    fake = "A claim. ^[[[raw/papers/new.md|new.md]] L1] [[ghost]] ^[raw/x.md:L2]"  # the model's words
    compiler, result = _compile(root, Plan(SRC, "s", concepts=(Concept("Chroma", "", tuple(
        Section(h, (_fact(fake if h == "How it works" else f"Claim {h}.", i + 3),))
        for i, h in enumerate(("How it works", "Variants", "Trade-offs")))),)))
    (path,) = result.created
    text = compiler.texts[path]
    # another raw file is called new.md: the link shows the whole path
    said = "- A claim. ^ [raw/papers/new.md|new.md] L1] [ghost] ^ [raw/x.md:L2] ^[[[raw/articles/new.md]] L3] ^c"
    assert said in text
    links = [(link.target, link.alias) for link in parse_note(path, text.encode()).links]
    # the model's text links nothing: the three anchors are the only links
    assert links == [("raw/articles/new.md", None)] * 3
    assert "^[[[raw/articles/new.md]] L3]" in text and "^[[[raw/articles/new.md]] L5]" in text


def test_tags_come_from_what_the_page_says_not_from_the_names_of_its_sources(tmp_path: Path) -> None:
    """The claims' anchors name raw files; a taxonomy word in a file name ("research-tool-notes.md") says
    nothing about the page, while the same word in a claim does."""
    root = _vault(tmp_path)
    source = "raw/articles/research-tool-notes.md"
    (root / source).write_text("\n".join(f"line {i}" for i in range(1, 11)) + "\n", encoding="utf-8")

    def sections(*claims: str) -> tuple[Section, ...]:
        return tuple(
            Section(h, (Fact(c, c, Anchor(source, i + 1, i + 1)),))
            for i, (h, c) in enumerate(zip(("How it works", "Variants", "Trade-offs"), claims, strict=False))
        )

    compiler, result = _compile(
        root,
        Plan(
            source,
            "s",
            concepts=(
                Concept(
                    "Indexing",
                    "Building an index.",
                    sections("Indexes are built once.", "They are rebuilt.", "They are stored."),
                ),
                Concept(
                    "Search", "Finding things.", sections("Search is a research field.", "It ranks.", "It filters.")
                ),
            ),
        ),
    )
    assert sorted(result.created) == ["concepts/indexing.md", "concepts/search.md"]
    assert "\ntags: []\n" in compiler.texts["concepts/indexing.md"]
    assert "\ntags: [research]\n" in compiler.texts["concepts/search.md"]


def test_a_name_with_nothing_anchored_waits_in_the_ledger_instead_of_becoming_an_empty_page(tmp_path: Path) -> None:
    root = _vault(tmp_path)
    _source(root)
    said = Entity("HNSW", "other", (), "", (Fact("HNSW is fast.", "not in the source"),))  # its quote is not there
    for source in ("raw/articles/a.md", "raw/articles/b.md"):
        compiler, result = _compile(root, Plan(source, "s", entities=(said,)))
        assert not result.created and result.pending == ["HNSW"]
        Mentions(root, compiler.mentions.items).save()
    assert len(Mentions.load(root).items["entity:hnsw"].sources) == 2  # named by two sources: enough references
    anchored = Entity("HNSW", "other", (), "", (_fact("HNSW builds a graph.", 3),))
    _, result = _compile(root, Plan(SRC, "s", entities=(anchored,)))
    assert result.created == ["entities/hnsw.md"]  # the first anchored claim makes the page


def test_pages_a_source_fed_earlier_in_the_run_list_a_page_promoted_later_with_what_that_source_said(
    tmp_path: Path,
) -> None:
    """One run, three sources (entity_min_references: 2): the first names Ana, Carl and Dora (all wait), the second
    Ana and Carl (their pages), the third Dora, whose page then cites the first source too. The pages the first
    source fed, written by the second, link to Dora: the pages citing a source are worked out again once a page
    joins it."""
    root = _vault(tmp_path)
    sources = [f"raw/articles/s{n}.md" for n in (1, 2, 3)]
    for src in sources:
        (root / src).write_text("\n".join(f"line {i}" for i in range(1, 10)) + "\n", encoding="utf-8")
    names, links = page_names(root)
    compiler = Compiler(CompileSetting(root, load_schema(root), TODAY), names, Mentions.load(root), links)

    def plan(src: str, *who: str) -> Plan:
        return Plan(src, "s", entities=tuple(
            Entity(name, "person", (), "", (Fact(f"{name} was in {src}.", f"{name} was in {src}.", Anchor(src, n, n)),))
            for n, name in enumerate(who, start=1)))

    for src, who in zip(sources, (("Ana", "Carl", "Dora"), ("Ana", "Carl"), ("Dora",)), strict=True):
        compiler.compile(plan(src, *who), src)
    assert compiler.sources_of("entities/dora.md") == frozenset({sources[0], sources[2]})
    assert compiler.citing(sources[0]) == ("entities/ana.md", "entities/carl.md", "entities/dora.md")
    for page in ("entities/ana.md", "entities/carl.md"):
        assert "[[dora|Dora]]" in compiler.texts[page].split("See also:")[1]
