"""Drawers: heading-scoped, inside the model's window, with true line ranges and stable content-hash ids."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from wikic.embed import make_embedder
from wikic.pages.blocks import render_block
from wikic.palace.chunking import chunk_document, make_document
from wikic.settings import EmbeddingSettings

PAGE = """---
title: Retrieval
tags: [rag]
aliases: [RAG]
---
# Retrieval

Intro paragraph.

## Dense
Vectors find meaning.

```python
# not a heading
x = 1
```

### Indexes
HNSW.

## Sparse
BM25 finds words.
"""


def words(text: str) -> int:
    return len(text.split())


def test_heading_scoped_drawers_with_line_ranges_and_prefix() -> None:
    doc = make_document("concepts/retrieval.md", PAGE)
    assert (doc.title, doc.tags, doc.aliases, doc.body_first_line) == ("Retrieval", ["rag"], ["RAG"], 6)
    drawers = chunk_document(doc, 100, words)
    lines = PAGE.split("\n")
    assert [d.heading for d in drawers] == ["Retrieval", "Retrieval > Dense", "Retrieval > Dense > Indexes",
                                            "Retrieval > Sparse"]
    dense = drawers[1]
    assert "# not a heading" in dense.text and dense.embed_text.startswith("Retrieval > Dense\n")
    for d in drawers:
        assert lines[d.line_start - 1].strip() == d.text.split("\n")[0].strip()
        assert lines[d.line_end - 1].strip() == d.text.split("\n")[-1].strip()


def test_ids_depend_on_content_not_position() -> None:
    a = chunk_document(make_document("p.md", PAGE), 100, words)
    edited = PAGE.replace("# Retrieval\n", "# Retrieval\n\nNew first para.\n")
    b = chunk_document(make_document("p.md", edited), 100, words)
    assert {d.id for d in a} - {d.id for d in b} == {a[0].id}
    assert chunk_document(make_document("q.md", PAGE), 100, words)[1].id != a[1].id


def test_long_sections_are_split_within_the_budget_with_overlap() -> None:
    embedder = make_embedder(EmbeddingSettings(provider="static"))  # the process's one copy of the model
    body = "\n".join(f"Turn {i}: the team discussed topic number {i} at some length today." for i in range(60))
    zh = "检索增强生成把外部文档检索和大语言模型结合起来。" * 40
    doc = make_document("raw/transcripts/t.txt", body + "\n\n" + zh, markdown=False)
    drawers = chunk_document(doc, 64, embedder.count_tokens)
    assert len(drawers) > 5
    assert all(embedder.count_tokens(d.embed_text) <= 64 for d in drawers)
    # the last line of one drawer opens the next, so no fact is only ever seen cut in half
    first, second = drawers[0].text.split("\n"), drawers[1].text.split("\n")
    assert first[-1] == second[0]
    covered = {line for d in drawers for line in d.text.split("\n")}
    assert all(line in covered for line in body.split("\n"))


def test_a_query_is_embedded_without_reading_the_static_tokenizer() -> None:
    # a search process embeds one query: the tokenizer (a 10 MB file) is read only to cut drawers
    from wikic.embed import StaticEmbedder

    embedder = StaticEmbedder()
    assert embedder.embed_query("vector index latency").shape == (64,)
    assert "_tokenizer" not in vars(embedder)
    assert embedder.count_tokens("vector index latency") > 0


def test_page_without_body_still_gets_one_drawer() -> None:
    drawers = chunk_document(make_document("entities/x.md", "---\ntitle: X\n---\n"), 100, words)
    assert len(drawers) == 1 and drawers[0].text == "X"


def test_a_source_is_titled_by_its_first_level_one_heading_outside_code_else_its_name() -> None:
    example = "Aliases name a note.\n\n```md\n# Dog\n```\n\n## Add an alias\n\nText.\n"
    assert make_document("raw/articles/aliases.md", example).title == "aliases"
    assert make_document("raw/articles/help.md", example + "\n# Aliases\n").title == "Aliases"


def test_bad_yaml_is_body_text() -> None:
    doc = make_document("a.md", "---\ntitle: [unclosed\n---\nHello\n")
    assert doc.title == "a" and "Hello" in doc.body


def test_compiler_block_markers_are_not_content() -> None:
    facts = render_block(
        "facts:raw/articles/x.md", "- Founded in 2015. ^[raw/articles/x.md:L3-L3]\n- Based in San Francisco."
    )
    page = (
        f"---\ntitle: OpenAI\n---\n# OpenAI\n\nWritten by hand.\n{facts}\n\n## "
        f"History\n{render_block('history', 'It began as a lab.')}\n"
    )
    drawers = chunk_document(make_document("entities/openai.md", page), 100, words)
    assert all("wikic:" not in d.text and "wikic:" not in d.embed_text for d in drawers)
    lines = page.split("\n")
    assert [(d.heading, d.text, lines[d.line_start - 1], lines[d.line_end - 1]) for d in drawers] == [
        ("OpenAI", "Written by hand.\n- Founded in 2015. ^[raw/articles/x.md:L3-L3]\n- Based in San Francisco.",
         "Written by hand.", "- Based in San Francisco."),
        ("OpenAI > History", "It began as a lab.", "It began as a lab.", "It began as a lab."),
    ]


COMPILED = """---
title: Brewing
type: concept
---
# Brewing

## Facts

<!-- wikic:begin facts:raw/articles/quasar-notes.md sha=1a2b3c4d5e6f -->
- Beer is brewed from malted barley. ^[[[raw/articles/quasar-notes.md|quasar-notes.md]] L3-L4]
- Hops add bitterness. ^[raw/articles/quasar-notes.md:L5]
<!-- wikic:end facts:raw/articles/quasar-notes.md -->
"""


def test_claim_anchors_and_block_markers_are_left_out_of_what_is_embedded() -> None:
    (facts,) = chunk_document(make_document("concepts/brewing.md", COMPILED), 100, words)
    assert "^[[[raw/articles/quasar-notes.md|quasar-notes.md]] L3-L4]" in facts.text  # the drawer is the file's text
    assert facts.embed_text == "Brewing > Facts\n- Beer is brewed from malted barley.\n- Hops add bitterness."


def test_the_bookkeeping_of_memories_is_left_out_of_what_is_embedded() -> None:
    page = COMPILED.replace("## Facts", "## Lessons").replace(
        "- Hops add bitterness. ^[raw/articles/quasar-notes.md:L5]",
        "- 2026-11-02 · Hops add bitterness. ^[raw/articles/quasar-notes.md:L5] %%memory importance=0.7 confirmed=1%%")
    (lessons,) = chunk_document(make_document("concepts/brewing.md", page), 100, words)
    assert lessons.embed_text.endswith("- 2026-11-02 · Hops add bitterness.")


def test_search_snippets_show_no_anchor_or_marker(make_vault: Callable[..., Path]) -> None:
    from library import open_palace, sync

    from wikic.palace import search

    root = make_vault(
        {"concepts/brewing.md": COMPILED, "raw/articles/quasar-notes.md": "# Quasars\n\nA quasar is bright.\n"}
    )
    sync(root)
    with open_palace(root) as palace:
        (hit,) = [h for h in search(palace, "brewed malted barley", k=2) if h.path == "concepts/brewing.md"]
        assert hit.snippet == "- Beer is brewed from malted barley. - Hops add bitterness."
        # the page does not mention quasars: only its anchors name that file
        assert [h.path for h in search(palace, "quasar", k=5) if h.score > 0][:1] == ["raw/articles/quasar-notes.md"]


def test_frontmatter_is_read_as_lint_reads_it() -> None:
    """The palace reads frontmatter through the vault's one reader: a block Obsidian ignores is text."""
    doc = make_document("a.md", "---\ntitle: A\nupdated: 2024-02-30\n---\nHello\n")  # an impossible date
    assert doc.title == "a" and doc.body.startswith("---\ntitle: A") and doc.body_first_line == 1
    late = make_document("b.md", "\n---\ntitle: B\n---\nHello\n")  # not on line 1: no frontmatter
    assert late.title == "b" and late.body_first_line == 1
    good = make_document("c.md", "---\ntitle: C\ntags: [x]\n---\nHello\n")
    assert (good.title, good.tags, good.body, good.body_first_line) == ("C", ["x"], "Hello\n", 5)


def test_the_claims_bookkeeping_block_is_no_drawer() -> None:
    # the rows (claim id, source, days) are machinery no reader sees: they are neither searched nor shown, and
    # a new claim, whose row sorts among the others, does not make the drawers after it new
    rows = "\n".join(f"c{n:08x} src=raw/articles/quasar-notes.md seen=2026-12-05 via=captured" for n in range(40))
    claims = render_block("claims", "<!--\n" + rows + "\n-->")
    page = COMPILED + f"\n## Related\n\n- See also: [[hops]]\n\n{claims}\n"
    drawers = chunk_document(make_document("concepts/brewing.md", page), 100, words)
    assert [d.heading for d in drawers] == ["Brewing > Facts", "Brewing > Related"]
    assert all("src=" not in d.text and "src=" not in d.embed_text for d in drawers)
    lines = page.split("\n")
    assert lines[drawers[-1].line_end - 1] == "- See also: [[hops]]"
