"""What a small model finds becomes pages: the code finds the sentences a name the model could not quote
is written in (`wikic/ingest/found_claims.py`), one subject's forms count as one name, and a page's lead is
the sentence that says what its subject is."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from fake_llm import FakeLLM
from library import ingest

from wikic.compile.plan import Concept, Entity, Fact, Plan, Section
from wikic.ingest.anchor import AnchorIndex, anchor_plan
from wikic.ingest.found_claims import clean, rank
from wikic.ingest.pipeline import IngestOptions
from wikic.pages.render import clean_text
from wikic.vault.formats.claims import scan
from wikic.vault.init import init_vault
from wikic.vault.names import PageNames, base_name, name_forms

VECTORS = """# Vector databases in practice

A vector database stores embeddings and finds the ones closest to a query. Chroma, Qdrant and Milvus are
three widely used open-source systems. Chroma runs inside a Python process and keeps its data in SQLite.
Qdrant is written in Rust and runs as a separate server.

All three use HNSW, a graph index. Chromatic aberration is a lens problem, not a database.
"""

CHINESE = """# 本地知识库的搭建经验

去年我们团队用开源工具搭建了一个完全离线的本地知识库。文档先用 Ollama 在本机生成向量，向量存进 ChromaDB。

ChromaDB 是一个开源的向量数据库，可以直接嵌入 Python 程序运行。我们的知识库有大约八千篇笔记！检索一次不到五十毫秒。
"""


def entity(name: str, *facts: Fact, summary: str = "", aliases: tuple[str, ...] = ()) -> Entity:
    return Entity(name, "product", aliases, summary, facts)


def found(plan: Plan, name: str) -> list[str]:
    item = next(e for e in plan.entities if e.name == name)
    return [f.text for f in item.facts if f.extracted]


# -- the sentence finder ------------------------------------------------------------------------------------


def test_a_name_the_model_could_not_quote_gets_the_sentences_that_write_it() -> None:
    bad_quote = Fact("Chroma is an open-source system.", "Chroma is an open-source system for vector databases.")
    plan = anchor_plan(Plan("raw/articles/v.md", "", entities=(entity("Chroma", bad_quote),)), VECTORS)
    (chroma,) = [e for e in plan.entities if not e.found]  # SQLite, written once, is a name code found
    assert chroma.facts[0].anchor is None  # the model's own claim is still not written
    extracted = [f for f in chroma.facts if f.extracted]
    assert [f.text for f in extracted] == [
        "Chroma, Qdrant and Milvus are three widely used open-source systems.",
        "Chroma runs inside a Python process and keeps its data in SQLite.",
    ]
    assert all(f.anchored and f.quote == VECTORS[VECTORS.index(f.quote[:20]):][: len(f.quote)] for f in extracted)
    assert [str(f.anchor) for f in extracted] == ["raw/articles/v.md:L3-L4", "raw/articles/v.md:L4"]
    assert plan.sentences_found == 2


def test_a_name_inside_a_longer_word_is_not_the_name() -> None:
    index = AnchorIndex(VECTORS, "raw/articles/v.md")
    texts = [f.sentence.text for f in rank(index.sentences(), name_forms("Chroma"))]
    assert not any("Chromatic" in t for t in texts) and len(texts) == 2


ALIASES = """# Aliases

Obsidian creates the link with the alias as its custom display text, for example `[[Artificial Intelligence|AI]]`.
Run `wikic lint. --strict` to check it. Obsidian keeps the note.
"""


def test_a_sentence_ending_in_inline_code_is_found_whole_and_a_stop_in_code_ends_none() -> None:
    texts = [s.text for s in AnchorIndex(ALIASES, "raw/articles/a.md").sentences()]
    assert texts == [
        "Obsidian creates the link with the alias as its custom display text, for example "
        "`[[Artificial Intelligence|AI]]`.",
        "Run `wikic lint. --strict` to check it.",
        "Obsidian keeps the note.",
    ]
    # as a claim, the code is the code: not a half quote ("for example 'AI"), nor a link with its syntax taken off
    assert clean(texts[0]).endswith("for example `[[Artificial Intelligence|AI]]`.")
    assert clean_text(clean(texts[0])) == clean(texts[0])


def test_a_step_leading_into_its_example_is_no_claim_and_an_escaped_bracket_ends_no_sentence() -> None:
    text = ("# Link notes\n\nIn this step you link two notes using the \\[\\[double bracket syntax\\]\\].\n\n"
            "1. Create another note with the name \"Law of Inertia\" with the following text:\n\n"
            "   > The Law of Inertia is one of the laws.\n")
    index = AnchorIndex(text, "raw/articles/link-notes.md")
    said = [s.text for s in index.sentences()]
    assert said[0] == "In this step you link two notes using the \\[\\[double bracket syntax\\]\\]."
    assert rank(index.sentences(), name_forms("Law of Inertia")) == []


def test_a_name_only_in_a_heading_gets_no_claim_from_it() -> None:
    plan = anchor_plan(Plan("raw/articles/v.md", "", entities=(entity("Index choices"),)), VECTORS.replace(
        "All three use", "## Index choices\n\nAll three use"))
    assert found(plan, "Index choices") == []
    # the source's own title is not a subject at all: its source page is about it
    plan = anchor_plan(Plan("raw/articles/v.md", "", entities=(entity("Vector databases in practice"),)), VECTORS)
    # of the model's names none stands (SQLite, which it passed over, is a candidate code found)
    assert [e.name for e in plan.entities] == ["SQLite"] and plan.entities[0].found
    assert plan.titles == ("Vector databases in practice",)


def test_an_anchored_claim_of_the_model_needs_no_sentence_found() -> None:
    good = Fact("Qdrant is written in Rust.", "Qdrant is written in Rust and runs as a separate server.")
    plan = anchor_plan(Plan("raw/articles/v.md", "", entities=(entity("Qdrant", good),)), VECTORS)
    assert [f.extracted for f in plan.entities[0].facts] == [False] and plan.sentences_found == 0


def test_chinese_sentences_are_split_at_their_own_stops_and_another_form_of_the_name_is_found() -> None:
    plan = anchor_plan(Plan("raw/articles/z.md", "", entities=(entity("Chroma"), entity("Ollama"))), CHINESE)
    assert found(plan, "Chroma") == [
        "文档先用 Ollama 在本机生成向量，向量存进 ChromaDB。",
        "ChromaDB 是一个开源的向量数据库，可以直接嵌入 Python 程序运行。",
    ]
    assert found(plan, "Ollama") == ["文档先用 Ollama 在本机生成向量，向量存进 ChromaDB。"]
    index = AnchorIndex(CHINESE, "raw/articles/z.md")
    assert [s.text for s in index.sentences()][-2:] == ["我们的知识库有大约八千篇笔记！", "检索一次不到五十毫秒。"]


def test_the_sentence_the_models_quote_nearly_copies_comes_first() -> None:
    tried = ["Qdrant is written in Go and runs as a separate server."]
    ranked = rank(AnchorIndex(VECTORS, "v.md").sentences(), name_forms("Qdrant"), tried=tried)
    assert ranked[0].sentence.text == "Qdrant is written in Rust and runs as a separate server."


def test_a_concept_the_model_could_not_quote_gets_its_sentences_in_a_section() -> None:
    concept = Concept("HNSW", "", (Section("How it works", (Fact("HNSW is a graph.", "nowhere in the text"),)),))
    plan = anchor_plan(Plan("raw/articles/v.md", "", concepts=(concept,)), VECTORS)
    (section,) = plan.concepts[0].sections
    assert section.heading == "How it works"
    assert [f.text for f in section.facts if f.extracted] == ["All three use HNSW, a graph index."]


# -- one subject, several forms -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "base"),
    [("ChromaDB", "Chroma"), ("Chroma DB", "Chroma"), ("Chroma database", "Chroma"),
     ("Qwen3-Embedding model", "Qwen3-Embedding"), ("LongMemEval benchmark", "LongMemEval"),
     ("Qwen3", "Qwen3"), ("Qwen3-Embedding", "Qwen3-Embedding"), ("DB", "DB"), ("GPT-4o", "GPT-4o"),
     # a Chinese or Japanese noun after a Latin name that only says what kind of thing it is
     ("BM25 关键词检索", "BM25"), ("ChromaDB 向量数据库", "Chroma"), ("Ollama 服务", "Ollama"),
     ("Qwen3 嵌入模型", "Qwen3 嵌入模型"), ("知识库", "知识库")],
)
def test_a_last_word_that_only_says_what_kind_of_thing_is_no_part_of_the_name(name: str, base: str) -> None:
    assert base_name(name) == base


def test_forms_of_one_name_find_one_page_and_different_names_stay_apart() -> None:
    names = PageNames()
    names.add("entities/chroma.md", "Chroma", [])
    names.add("entities/qwen3.md", "Qwen3", [])
    names.add("entities/qwen3-embedding.md", "Qwen3-Embedding", [])
    assert names.lookup("ChromaDB") == "entities/chroma.md"
    assert names.lookup("Qwen3 Embedding") == "entities/qwen3-embedding.md"
    assert names.lookup("Qwen3 Embedding model") == "entities/qwen3-embedding.md"
    assert names.lookup("Qwen3 model") == "entities/qwen3.md"
    assert names.lookup("Qwen2") is None


# -- the lead -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "name", "lead"),
    [
        ("# DB\n\nChroma is an open-source vector database that runs in a Python process.\nChroma is fast.\n",
         "Chroma", "Chroma is an open-source vector database that runs in a Python process."),
        ("# DB\n\nWe picked it. BM25, a ranking function from the 1990s, scores keyword matches.\n",
         "BM25", "BM25, a ranking function from the 1990s, scores keyword matches."),
        (CHINESE, "ChromaDB", "ChromaDB 是一个开源的向量数据库，可以直接嵌入 Python 程序运行。"),
        # a sentence whose last words are inside emphasis or a link ends past them, with its full stop
        ("# Links\n\nObsidian is a note app that links notes using _internal links_. Then more.\n",
         "Obsidian", "Obsidian is a note app that links notes using internal links."),
        ("# Links\n\nObsidian is a note app that links notes using **[[Internal links|internal links]]**. More.\n",
         "Obsidian", "Obsidian is a note app that links notes using internal links."),
        ("# Links\n\nObsidian is a note app that links notes using [internal links](Internal%20links.md).\n",
         "Obsidian", "Obsidian is a note app that links notes using internal links."),
    ],
)
def test_a_refused_summary_is_replaced_by_the_sentence_that_says_what_the_subject_is(
    text: str, name: str, lead: str
) -> None:
    plan = anchor_plan(Plan("raw/articles/x.md", "", entities=(entity(name, summary=f"{name} 9.0 is new."),)), text)
    (item,) = plan.entities
    assert item.summary == lead
    assert lead in [f.text for f in item.facts if f.anchored]  # the lead is cited on the page too


def test_a_supported_summary_of_the_model_stays() -> None:
    said = "Chroma keeps its data in SQLite."
    good = Fact("Chroma keeps its data in SQLite.", "Chroma runs inside a Python process and keeps its data in SQLite.")
    plan = anchor_plan(Plan("raw/articles/v.md", "", entities=(entity("Chroma", good, summary=said),)), VECTORS)
    assert plan.entities[0].summary == said


# -- end to end: a model that names well and quotes badly -------------------------------------------------------


def _careless(names: dict[str, str]) -> FakeLLM:
    """A stand-in for a small model: every name right, every quote its own paraphrase."""

    def reply(messages: list[dict[str, str]]) -> dict[str, Any]:
        user = messages[-1]["content"]
        entities = [
            {"name": name, "kind": "product", "aliases": [], "summary": f"{name} is software.",
             "facts": [{"text": f"{name} is used a lot.", "quote": f"{name} is widely used by everyone."}]}
            for name, seen_as in names.items() if seen_as in user
        ]
        return {"summary": "notes", "entities": entities, "concepts": [], "comparisons": [], "relations": []}

    return FakeLLM().respond_with(reply)


def test_names_a_small_model_finds_become_pages_across_two_sources_and_two_forms(tmp_path: Path) -> None:
    root = tmp_path / "wiki"
    init_vault(root)  # the default SCHEMA.md: a name needs two sources
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    vectors, kb = inbox / "vector-databases-in-practice.md", inbox / "本地知识库的搭建经验.md"
    vectors.write_text(VECTORS, encoding="utf-8")
    kb.write_text(CHINESE, encoding="utf-8")
    llm = _careless({"Chroma": "Chroma,", "ChromaDB": "ChromaDB 是", "Qdrant": "Qdrant", "Ollama": "Ollama"})
    report = ingest(root, IngestOptions(inputs=[str(vectors), str(kb)], use_palace=False,
                                        lint_after=False, today=dt.date(2026, 12, 3)), llm=llm)
    assert all(s.status == "compiled" for s in report.sources), [s.error for s in report.sources]
    page = root / "entities" / "chroma.md"
    assert page.is_file(), sorted(p.name for p in (root / "entities").iterdir())
    claims = scan(page.read_text(encoding="utf-8"))
    assert {c.source for c in claims} == {"raw/articles/vector-databases-in-practice.md",
                                          "raw/articles/本地知识库的搭建经验.md"}
    assert all(cite.by == "sentence" for c in claims for cite in c.citations)
    assert "by=sentence" in page.read_text(encoding="utf-8")
    assert "aliases: [ChromaDB]" in page.read_text(encoding="utf-8")  # the other form the sources wrote
    ledger = json.loads((root / ".wikic" / "mentions.json").read_text(encoding="utf-8"))["mentions"]
    assert "entity:chroma" not in ledger and "entity:chromadb" not in ledger  # one subject, now a page
    assert "entity:qdrant" in ledger and "entity:ollama" in ledger  # one source each: waiting


def test_a_run_that_leaves_more_names_waiting_than_pages_says_what_to_try(tmp_path: Path) -> None:
    root = tmp_path / "wiki"
    init_vault(root)
    (tmp_path / "vectors.md").write_text(VECTORS, encoding="utf-8")
    llm = _careless({name: name for name in ("Chroma", "Qdrant", "Milvus", "HNSW")})
    options = IngestOptions(inputs=[str(tmp_path / "vectors.md")], use_palace=False, lint_after=False)
    report = ingest(root, options, llm=llm)
    advice = report.advice()
    assert advice is not None
    # the model's four names and SQLite, which it passed over (a name only a name is written as): all waiting
    assert advice.startswith("few pages for the names found: 5 name(s), 0 with a page, 5 waiting for more "
                             "sources (entity_min_references: 2), 4 claim(s) refused (4 no quote).")
    assert "entity_min_references: 1 in SCHEMA.md" in advice and "--strategy two-pass" in advice
    assert report.to_dict()["advice"] == advice
    schema = root / "SCHEMA.md"
    schema.write_text(schema.read_text().replace("entity_min_references: 2", "entity_min_references: 1"))
    again = ingest(root, IngestOptions(inputs=[str(tmp_path / "vectors.md")], use_palace=False, lint_after=False,
                                       force=True), llm=llm)
    assert len(again.created) == 4 and again.advice() is None


def test_a_sentence_opening_with_a_pronoun_is_found_only_for_the_subject_of_the_one_before() -> None:
    text = ("# Outgoing links\n\nOutgoing links is a core plugin that shows links from the active note. It's similar "
            "to the Backlinks plugin, which instead shows incoming links to the active note.\n\n"
            "Backlinks is a core plugin too. It lists the notes that link to the active note.\n")
    index = AnchorIndex(text, "raw/articles/outgoing-links.md")
    backlinks = [f.sentence.text for f in rank(index.sentences(), name_forms("Backlinks"))]
    assert backlinks == ["Backlinks is a core plugin too."]
    # "It lists…" names no form of Backlinks, so it is not found at all; one that does and follows its name is
    index = AnchorIndex(text.replace("It lists the notes", "It lists the Backlinks of the notes"), "raw/x.md")
    assert [f.sentence.text for f in rank(index.sentences(), name_forms("Backlinks"))] == [
        "Backlinks is a core plugin too.", "It lists the Backlinks of the notes that link to the active note."]


def test_a_definition_opening_with_an_article_and_the_singular_leads_the_plural_page() -> None:
    text = ("# Aliases\n\nIf you want to reference a file using different names, consider adding aliases to the "
            "note. An alias is an alternative name for a note.\n")
    plan = anchor_plan(Plan("raw/articles/aliases.md", "", entities=(entity("Aliases", Fact(
        "If you want to reference a file using different names, consider adding aliases to the note.",
        "If you want to reference a file using different names, consider adding aliases to the note.")),)), text)
    (aliases,) = plan.entities
    assert aliases.summary == "An alias is an alternative name for a note."
