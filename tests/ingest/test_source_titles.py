"""A source is titled as it titles itself (`text/extract.source_title`: its frontmatter `title`, else its first
level-one heading outside code, else its file's name), and the other names its frontmatter gives it become
aliases of the page named like it, and of no other."""

from __future__ import annotations

from testkit import growth

from wikic.compile.plan import Entity, Fact, Plan
from wikic.ingest.anchor import anchor_plan
from wikic.text.extract import file_title, source_aliases
from wikic.text.name_use import NameUse
from wikic.vault.frontmatter import split_page, titled

PATH = "raw/articles/quillstore.md"
SOURCE = """---
aliases:
  - QStore
  - How to/Store notes
description: Quillstore is an embedded document store.
---
Quillstore is an embedded document store, written in Rust by Mira Okafor.

```md
# Dog
```

## Settings

Quillstore keeps one file per vault.
Ollama runs the embeddings on the same machine.
"""


def _said(sentence: str) -> Fact:
    return Fact(sentence, sentence)


def test_a_source_with_no_title_of_its_own_is_titled_by_its_file_not_its_first_section_or_an_example() -> None:
    assert titled(SOURCE, "Quillstore.md") == "Quillstore"
    assert titled(SOURCE, PATH) == "quillstore"
    assert titled("---\ntitle: Field notes\n---\n# Other\n", PATH) == "Field notes"
    assert titled("~~~\n# Dog\n~~~\n\n#Tag\n\n# Cats #\n", PATH) == "Cats"
    assert file_title("raw/articles/graph-view.md") == "graph view" and file_title("Link notes.md") == "Link notes"


def test_the_names_a_source_gives_itself_are_names_not_old_paths() -> None:
    assert source_aliases(split_page(SOURCE)[0]) == ("QStore",)
    assert source_aliases({"aliases": "One"}) == ("One",) and source_aliases({"aliases": None}) == ()


def test_the_page_named_like_the_source_takes_its_aliases_and_no_other_page_does() -> None:
    plan = Plan(PATH, "", entities=(
        Entity("Quillstore", "product", (), "", (_said("Quillstore keeps one file per vault."),)),
        Entity("Ollama", "product", (), "", (_said("Ollama runs the embeddings on the same machine."),)),
    ))
    anchored = anchor_plan(plan, SOURCE)
    assert [(e.name, e.aliases) for e in anchored.entities] == [("Quillstore", ("QStore",)), ("Ollama", ())]


def test_the_source_says_its_aliases_name_its_title() -> None:
    use = NameUse.of_source(SOURCE, *split_page(SOURCE), PATH)
    assert use.states_same("Quillstore", "QStore") and not use.states_same("Ollama", "QStore")


def test_a_title_is_found_in_time_linear_in_the_text() -> None:
    # a heading line with a long run of spaces before its last word: a pattern for the closing `#`s tries each
    # space again from every one before it
    def text(n: int) -> str:
        return "# x" + " " * n + "y\n" + "text\n" * (n // 10)

    small, large = text(20_000), text(160_000)
    found = titled(large, PATH)
    assert found.startswith("x") and found.endswith("y")
    # 8 times the text: linear is 8 times the time, quadratic 64
    assert growth(lambda: titled(small, PATH), lambda: titled(large, PATH)) < 24
