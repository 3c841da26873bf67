"""The names a plan is built on, checked by code: which proposed names are subjects, which aliases are kept."""

from __future__ import annotations

from wikic.compile.plan import Entity, Fact, Plan
from wikic.ingest.anchor import anchor_plan
from wikic.ingest.extract.merge import merge_plans
from wikic.ingest.plan_model import ChunkPlan
from wikic.text.extract import source_title
from wikic.vault.frontmatter import split_page

PATH = "raw/articles/quillstore.md"
SOURCE = """# Field notes on Quillstore

Quillstore is an embedded document store, written in Rust by Mira Okafor.
Keeping the verbatim text means a search can always show the sentence a note came from.
Throughput was the first surprise: Quillstore handled 25,000 writes per second.
Vector search is handled by Chroma (ChromaDB), which Quillstore runs as a sidecar.
The team moved its embeddings from an API to Ollama running on the same machine.
"""


def _said(sentence: str) -> Fact:
    return Fact(sentence, sentence)


def _line(word: str) -> str:
    return next(line for line in SOURCE.splitlines() if word in line)


def test_openers_function_words_and_kind_nouns_are_no_subjects_and_are_counted_by_reason() -> None:
    plan = Plan(PATH, "", entities=(
        Entity("Keeping", "product", (), "", (_said(_line("Keeping")),)),
        Entity("The", "product", (), "", (_said(_line("The team")),)),
        Entity("Throughput", "product", (), "", (_said(_line("Throughput")),)),
        Entity("API", "product", (), "", (_said(_line("API")),)),
        Entity("Quillstore", "product", (), "", (_said(_line("embedded")),)),
    ))
    anchored = anchor_plan(plan, SOURCE)
    # of the model's names only Quillstore stands (ChromaDB, which the model passed over, is a name code found)
    assert [e.name for e in anchored.entities if not e.found] == ["Quillstore"]
    assert [e.name for e in anchored.entities if e.found] == ["ChromaDB"]
    assert dict(anchored.refused) == {"Keeping": "sentence opener", "The": "function word",
                                      "Throughput": "sentence opener", "API": "kind noun"}
    assert anchored.dropped()["no subject"] == 4


def test_an_alias_that_is_another_subject_of_the_plan_is_refused_and_the_two_stay_apart() -> None:
    plan = Plan(PATH, "", entities=(
        Entity("Quillstore", "product", ("Rust", "Mira Okafor", "Ollama"), "", (_said(_line("embedded")),)),
        Entity("Ollama", "product", ("Quillstore",), "", (_said(_line("Ollama")),)),
    ))
    anchored = anchor_plan(plan, SOURCE)
    assert [(e.name, e.aliases) for e in anchored.entities if not e.found] == [("Quillstore", ()), ("Ollama", ())]
    assert ("Quillstore", "Ollama", "another subject's name") in anchored.refused_aliases
    assert ("Quillstore", "Rust", "not stated as the same subject") in anchored.refused_aliases


def test_an_alias_no_source_writes_is_refused_and_proves_no_name() -> None:
    plan = Plan(PATH, "", entities=(
        Entity("Quillstore", "product", ("QuillDB", "Quill Store", "QUILLSTORE"), "", (_said(_line("embedded")),)),
        # an alias the source writes cannot make a name the source never writes real
        Entity("Inkwell", "product", ("Quillstore",), "", ()),
    ))
    anchored = anchor_plan(plan, SOURCE)
    (quill,) = [e for e in anchored.entities if not e.found]
    assert quill.aliases == ("Quill Store", "QUILLSTORE")  # other spellings of the name are its forms
    assert ("Quillstore", "QuillDB", "not stated as the same subject") in anchored.refused_aliases
    assert anchored.invented == ("Inkwell",)


def test_an_equivalence_the_source_states_is_kept() -> None:
    plan = Plan(PATH, "", entities=(
        Entity("Chroma", "product", ("ChromaDB",), "", (_said(_line("Chroma")),)),
        Entity("Ollama", "product", ("Chroma",), "", (_said(_line("Ollama")),)),
    ))
    chroma, ollama = anchor_plan(plan, SOURCE).entities
    assert chroma.aliases == ("ChromaDB",) and ollama.aliases == ()


def test_a_careless_plan_is_not_folded_into_one_item_by_its_aliases() -> None:
    careless = ChunkPlan.model_validate({"summary": "", "entities": [
        {"name": name, "kind": "product", "aliases": others, "summary": "", "facts": []}
        for name, others in [("Quillstore", ["Rust", "Chroma", "Ollama"]), ("Keeping", ["Rust", "Chroma"]),
                             ("Chroma", ["Quillstore", "ChromaDB"]), ("ChromaDB", ["Chroma DB"])]
    ], "concepts": [], "comparisons": [], "relations": []})
    merged = merge_plans([careless], source_path=PATH)
    # only forms of a name join two items: "ChromaDB" is Chroma's, the rest are other subjects
    assert [e.name for e in merged.entities] == ["Quillstore", "Keeping", "Chroma"]


def test_a_sources_title_is_its_frontmatter_title_else_its_first_level_one_heading_outside_code() -> None:
    def title(text: str, path: str) -> str:
        return source_title(*split_page(text), path)

    assert title("---\ntitle: Aliases\n---\n## Add an alias\n", "raw/articles/a.md") == "Aliases"
    assert title("```md\n# Dog\n```\n## Settings\n# Graph view\n", "raw/articles/b.md") == "Graph view"
    assert title("## Settings\n\ntext\n", "raw/articles/graph-view.md") == "graph view"


def test_two_items_the_source_says_are_one_subject_are_one() -> None:
    text = "# Notes\n\nQuillstore (also called QStore) runs in three apps. QStore keeps one file per vault.\n"
    said = "Quillstore (also called QStore) runs in three apps."
    plan = Plan(PATH, "", entities=(
        Entity("Quillstore", "product", ("QStore",), "", (_said(said),)),
        Entity("QStore", "product", ("Quillstore",), "", (_said("QStore keeps one file per vault."),)),
    ))
    (quill,) = anchor_plan(plan, text).entities
    assert quill.name == "Quillstore" and quill.aliases == ("QStore",)
    assert [f.text for f in quill.facts] == ["Quillstore (also called QStore) runs in three apps.",
                                             "QStore keeps one file per vault."]


LEADS = """# Notes

Quillstore stores notes for desktop apps. Quillstore is an embedded document store written in Rust by Mira Okafor.
Chroma, Qdrant and Milvus are three widely used vector stores.
"""


def test_a_lead_is_the_sentence_that_says_what_its_subject_is_and_no_two_subjects_share_one() -> None:
    definition = "Quillstore is an embedded document store written in Rust by Mira Okafor."
    plan = Plan(PATH, "", entities=(
        # the model's summary is a sentence of the source, but another says what Quillstore is
        Entity("Quillstore", "product", (), "Quillstore stores notes for desktop apps.",
               (_said("Quillstore stores notes for desktop apps."),)),
        # Mira Okafor is named only inside Quillstore's lead: it is not hers
        Entity("Mira Okafor", "person", (), definition, (_said(definition),)),
        # a sentence that opens with a list of names is about each of them
        Entity("Milvus", "product", (), "Chroma, Qdrant and Milvus are three widely used vector stores.",
               (_said("Chroma, Qdrant and Milvus are three widely used vector stores."),)),
    ))
    quill, mira, milvus = anchor_plan(plan, LEADS).entities
    assert quill.summary == definition
    assert mira.summary == ""
    assert milvus.summary == "Chroma, Qdrant and Milvus are three widely used vector stores."


def test_a_name_only_a_name_is_written_as_is_a_candidate_when_written_once() -> None:
    from wikic.ingest.anchor import product_shaped

    assert [w for w in ("SQLite", "LongMemEval", "Qwen3", "MTEB", "JSON", "p0w1", "x86", "Alibaba", "Rust",
                        "OpenAI-compatible", "Qwen3-Embedding") if product_shaped(w)] == [
        "SQLite", "LongMemEval", "Qwen3", "Qwen3-Embedding"]
    text = "# Notes\n\nThe index lives in SQLite on the device.\n"
    anchored = anchor_plan(Plan("raw/articles/notes.md", "", entities=()), text)
    assert [(e.name, e.found) for e in anchored.entities] == [("SQLite", True)]
