"""Which names a text uses as names (`wikic/text/name_use.py`) and which of its words are ordinary."""

from __future__ import annotations

import pytest

from wikic.text.common_words import common_word, kind_noun, singular
from wikic.text.name_use import (
    FILE_NAME,
    FUNCTION_WORD,
    KIND_NOUN,
    NOT_A_TERM,
    ORDINARY_WORD,
    PART_OF_A_NAME,
    SENTENCE_OPENER,
    NameUse,
)
from wikic.text.reader_text import reader_text

NOTES = """---
title: Field notes on Quillstore
tags: [Keeping]
---
# Field notes on Quillstore

Quillstore is an embedded document store, written in Rust by Mira Okafor.
Keeping the verbatim text means a search can always show the sentence a note came from.
Throughput was the first surprise: Quillstore handled 25,000 writes per second.
Vector search is handled by Chroma (ChromaDB), which Quillstore runs as a sidecar.
Brightline Sync copies the store between devices; it is made by Brightline Labs.
The team moved from pip to uv, and keeps the project in one repository.
Recall at ten was the same for every store, and the keeping of notes was easy.

```python
Snippet = "Gemmy works"  # code is no prose
```

## Outgoing links

Outgoing links is a core plugin that shows the links of a note.
"""


@pytest.fixture(scope="module")
def notes() -> NameUse:
    return NameUse(NOTES, title="Field notes on Quillstore")


@pytest.mark.parametrize("name", [
    "Quillstore", "Rust", "Mira Okafor", "Chroma", "ChromaDB", "Brightline Sync", "Brightline Labs", "uv", "pip",
    "Outgoing links", "Outgoing links plugin", "BM25",
])
def test_what_the_text_uses_as_a_name_is_a_subject(notes: NameUse, name: str) -> None:
    assert notes.refusal(name) is None


@pytest.mark.parametrize(("name", "reason"), [
    ("The", FUNCTION_WORD),
    ("It", FUNCTION_WORD),
    ("Since", FUNCTION_WORD),
    ("Keeping", ORDINARY_WORD),  # opens a sentence, and the text writes "keeping" too
    ("Throughput", SENTENCE_OPENER),  # opens a sentence only, and it is an English word
    ("Recall", SENTENCE_OPENER),
    ("Vector", SENTENCE_OPENER),
    ("Store", KIND_NOUN),
    ("Model", KIND_NOUN),
    ("API", KIND_NOUN),
    ("模型", KIND_NOUN),
    ("keeping", ORDINARY_WORD),  # a very common word, written in lower case
    ("Brightline", PART_OF_A_NAME),  # written only inside "Brightline Sync" and "Brightline Labs"
    ("obsidian-icon-links-going-out.svg", FILE_NAME),
    ("Attachments/diagram.png", FILE_NAME),
    ("Settings#Excluded files", FILE_NAME),  # a link's target with its heading
    ("Core plugins|plugin", FILE_NAME),  # a link with its label
    ("Search can always", NOT_A_TERM),
    ("Gemmy", None),  # written only in code: a word no list knows is not refused for that
])
def test_what_the_text_does_not_use_as_a_name_is_refused_with_its_reason(
        notes: NameUse, name: str, reason: str | None) -> None:
    assert notes.refusal(name) == reason


def test_a_word_capitalised_after_an_opening_quote_or_in_a_title_case_heading_is_not_written_as_a_name() -> None:
    use = NameUse('# Benchmarking Quillstore Against Its Peers\n\nWe set "Artificial intelligence" as an alias.\n')
    assert not use.writes_as_name("Artificial") and not use.writes_as_name("Benchmarking")
    assert use.refusal("Artificial intelligence") == NOT_A_TERM


def test_the_subject_a_text_is_titled_by_or_heads_a_section_with_is_a_term_in_any_number() -> None:
    aliases = NameUse("If you want other names, add aliases. An alias is an alternative name for a note.\n",
                      title="Aliases")
    assert aliases.refusal("Alias") is None and aliases.refusal("Aliases") is None
    headed = NameUse("## Graph view\n\nIt shows how notes relate.\n")
    assert headed.refusal("Graph view") is None
    assert NameUse("The graph view shows how notes relate.\n").refusal("Graph view") == NOT_A_TERM


def test_a_concept_is_a_subject_as_a_term_or_as_the_text_writes_it_inside_a_sentence() -> None:
    defined = NameUse("Vector search is a way to find text by meaning. It needs embeddings.\n")
    assert defined.refusal("vector search", concept=True) is None
    repeated = NameUse("Vector search came first. Later, Vector search was too slow.\n")
    assert repeated.refusal("vector search", concept=True) is None
    inside = NameUse("Plain vector search missed exact product codes.\n")
    assert inside.refusal("vector search", concept=True) is None
    assert inside.refusal("vector search") == NOT_A_TERM  # an entity is a name: a phrase is one only as a term
    assert NameUse("Vector search alone misses exact words.\n").refusal("vector search", concept=True) == NOT_A_TERM
    assert NameUse('We set "vector search" as the default.\n').refusal("vector search", concept=True) == NOT_A_TERM
    assert NameUse("Keeping the verbatim text means a lot.\n").refusal("Keeping the verbatim", concept=True) == \
        NOT_A_TERM
    # a single word: the text's own idea (a rarer word written in its sentences), not a common word
    assert NameUse("Each chunk is turned into an embedding vector.\n").refusal("Embeddings", concept=True) is None
    assert NameUse("Keeping it was easy, and keeping on was hard.\n").refusal("Keeping", concept=True) == \
        ORDINARY_WORD


@pytest.mark.parametrize(("text", "name", "alias"), [
    ("Chroma (ChromaDB) holds the vectors.", "Chroma", "ChromaDB"),
    ("Quillstore (also called QStore) runs in three apps.", "Quillstore", "QStore"),
    ("Quillstore, also known as QStore, runs in three apps.", "Quillstore", "QStore"),
    ("Brightline Sync, formerly Lumen, copies notes.", "Brightline Sync", "Lumen"),
    ("RAG, short for Retrieval-Augmented Generation, is common.", "Retrieval-Augmented Generation", "RAG"),
    ("通义千问，又称 Qwen，是一个模型。", "通义千问", "Qwen"),
])
def test_an_equivalence_the_text_states_is_seen(text: str, name: str, alias: str) -> None:
    assert NameUse(text).states_same(name, alias)


def test_two_names_the_text_only_lists_together_are_not_the_same() -> None:
    use = NameUse("Quillstore was measured against LanceDB and Qdrant. Chroma, Qdrant and Milvus are stores.\n")
    assert not use.states_same("Quillstore", "LanceDB")
    assert not use.states_same("Chroma", "Qdrant")


def test_quoted_markdown_reads_as_its_reader_sees_it() -> None:
    assert reader_text("With the Backlinks [[Core plugins|plugin]], you can see [[Backlinks]].") == \
        "With the Backlinks plugin, you can see Backlinks."
    assert " ".join(reader_text("The tab ![[links-going-out.svg#icon]] is in the [sidebar](x.md).").split()) == \
        "The tab is in the sidebar."
    assert reader_text("See [[Internal links#Change the link display text]].") == \
        "See Internal links > Change the link display text."
    # code stays code, as written
    code = "for example `[[Artificial Intelligence|AI]]`."
    assert reader_text(code) == code


@pytest.mark.parametrize(("cut", "read"), [
    ("Obsidian links notes using [[Internal links|internal links", "Obsidian links notes using internal links"),
    ("Obsidian links notes using [[Internal links", "Obsidian links notes using Internal links"),
    ("Obsidian links notes using [[help/Internal links#Supported formats", "Obsidian links notes using Internal links"),
    ("Obsidian links notes using [internal links](Internal%20li", "Obsidian links notes using internal links"),
    ("Obsidian links notes using [internal links", "Obsidian links notes using internal links"),
    ("The tab ![[links-going-out.sv", "The tab "),
])
def test_a_text_cut_inside_a_link_reads_as_the_link_would(cut: str, read: str) -> None:
    assert reader_text(cut) == read
    assert reader_text(cut + "\nmore") == cut + "\nmore"  # not at the text's end: as written


@pytest.mark.parametrize(("cut", "read"), [
    # a list item's sentence begun inside its link ("1. [[Create your first note|Create a note]] with ...")
    ('Create your first note|Create a note]] with the name "Three laws of motion"',
     'Create a note with the name "Three laws of motion"'),
    ("[Create your first note|Create a note]] with the name", "Create a note with the name"),
    ("Internal links]] are how notes link", "Internal links are how notes link"),
    ("help/Internal links#Aliases]] say more", "Internal links say more"),
])
def test_a_text_begun_inside_a_link_reads_as_the_link_would(cut: str, read: str) -> None:
    assert reader_text(cut) == read
    # a whole link first: the closing brackets after it close nothing of it, and stay as written
    assert reader_text("[[Notes|A note]] then " + cut).startswith("A note then ")


def test_the_word_lists() -> None:
    assert common_word("Keeping") and common_word("throughput") and common_word("notes")
    assert not common_word("Quillstore") and not common_word("Ollama")
    assert common_word("project", 5_000) and not common_word("uv", 5_000)
    assert kind_noun("Databases") and kind_noun("模型") and not kind_noun("Chroma")
    assert [singular(w) for w in ("notes", "aliases", "libraries", "searches", "class")] == \
        ["note", "alias", "library", "search", "class"]


def test_a_word_written_only_as_part_of_a_file_name_is_no_subject() -> None:
    use = NameUse("Overwrite index.md, log.md and SCHEMA.md with an empty file. Chroma is fast; chroma.md says "
                  "more. Read docs/Setup.md first.\n")
    assert use.refusal("SCHEMA") == use.refusal("Setup") == "file name"
    assert use.refusal("Chroma") is None  # written as a name too
