"""An answer's sentence copied from a context item cites that item; the links that sat inside the copied
words are the page's own links, not citations. End to end through the CLI, --save and the MCP tool on pages
like Obsidian's help; then the sentence stage on hand-built contexts, streamed cut anywhere."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, strategies as st
from querykit import QueryWiki, as_json
from standin_openai import StandinServer

from wikic.query.attribution import Copies
from wikic.query.citations import AnswerFilter, CitationCheck
from wikic.query.retrieve import ContextItem
from wikic.vault.resolve import Resolver

UNLINKED = ("Unlinked mentions are backlinks to any unlinked occurrence of the name of the active [[note]].\n\n"
            "## Key facts\n\n"
            "- Unlinked mentions lists any text in the active [[note]] that matches the name or alias of another "
            "note in your vault.\n"
            "- Files matching your [[excluded-files|Excluded files]] patterns will not appear in Unlinked "
            "mentions.\n")
NOTE = "A note is a Markdown file in your vault; the Backlinks plugin lists its linked and unlinked mentions.\n"
EXCLUDED = "Excluded files are the patterns whose files never appear in search, the graph or unlinked mentions.\n"
# What a small model answered: the page's own sentences, with the links they hold and no citation of the page.
COPIED = ("Unlinked mentions are backlinks to any unlinked occurrence of the name of the active [[note]]. "
          "Files matching your [[excluded-files|Excluded files]] patterns will not appear in Unlinked mentions.")
CITED = ("Unlinked mentions are backlinks to any unlinked occurrence of the name of the active [[note]] "
         "[[unlinked-mentions]]. Files matching your [[excluded-files|Excluded files]] patterns will not appear "
         "in Unlinked mentions [[unlinked-mentions]].")
QUESTION = "What are unlinked mentions?"


@pytest.fixture
def help_wiki(make_vault: Callable[..., Path], page: Callable[..., str], standin: StandinServer) -> QueryWiki:
    root = make_vault({
        "entities/unlinked-mentions.md": page("Unlinked mentions", body="# Unlinked mentions\n\n" + UNLINKED),
        "entities/note.md": page("Note", body="# Note\n\n" + NOTE),
        "entities/excluded-files.md": page("Excluded files", body="# Excluded files\n\n" + EXCLUDED),
    })
    wiki = QueryWiki(root, standin)
    assert wiki.cli("index").exit_code == 0
    wiki.answer_with(COPIED)
    return wiki


def test_a_copied_sentence_cites_the_page_it_was_copied_from_not_the_links_inside_it(help_wiki: QueryWiki) -> None:
    data = as_json(help_wiki.cli("query", QUESTION, "--json").stdout)
    context = [c["path"] for c in data["retrieved"]["context"]]
    assert context[0] == "entities/unlinked-mentions.md"
    assert {"entities/note.md", "entities/excluded-files.md"} <= set(context)  # so their links were checked fine
    assert data["status"] == "answered"
    assert [c["link"] for c in data["citations"]] == ["[[unlinked-mentions]]"]
    # the page's link written where the model cited nothing, before each sentence's full stop
    assert data["answer"] == CITED
    assert data["rejected_citations"] == [] and data["warnings"] == []

    # streamed to a terminal, the same text and the same citation, as it arrives
    shown = help_wiki.cli("query", QUESTION, "--no-cache")
    assert shown.exit_code == 0, shown.stderr
    assert shown.stdout.strip() == CITED
    assert "Cited: [[unlinked-mentions]] (entities/unlinked-mentions.md)" in shown.stderr
    assert "[[note]] (" not in shown.stderr and "[[excluded-files]] (" not in shown.stderr


def test_a_filed_copied_answer_records_the_page_it_copies(help_wiki: QueryWiki) -> None:
    result = help_wiki.cli("query", QUESTION, "--save")
    assert result.exit_code == 0, result.stderr
    filed = help_wiki.read("queries/what-are-unlinked-mentions.md")
    assert "entities/unlinked-mentions.md:" in filed and "entities/note.md:" not in filed
    assert "[[what-are-unlinked-mentions" in help_wiki.read("entities/unlinked-mentions.md")  # its "Asked about"


def test_the_mcp_query_tool_cites_the_page_a_copied_answer_comes_from(help_wiki: QueryWiki) -> None:
    from wikic.mcp_server import WikiTools

    tools = WikiTools(help_wiki.root)
    try:
        text = tools.query(QUESTION)
    finally:
        tools.close()
    assert text.startswith(CITED)
    assert "Cited: [[unlinked-mentions]] (entities/unlinked-mentions.md)\n" in text


def test_a_sentence_of_the_models_own_keeps_its_own_citations(help_wiki: QueryWiki) -> None:
    own = "Unlinked mentions show where a [[note]] is named without a link."  # not a copy: [[note]] is its citation
    help_wiki.answer_with(own)
    data = as_json(help_wiki.cli("query", QUESTION, "--json").stdout)
    assert data["answer"] == own and [c["link"] for c in data["citations"]] == ["[[note]]"]


# -- the sentence stage, on hand-built contexts -------------------------------------------------------------

ITEMS = [
    ContextItem("page", "entities/unlinked-mentions.md", "unlinked-mentions", "Unlinked mentions",
                "# Unlinked mentions\n\n" + UNLINKED.replace("[[note]].", "[[note]]. ^[raw/articles/backlinks.md:L20]"),
                50, 1.0),
    ContextItem("page", "entities/excluded-files.md", "excluded-files", "Excluded files", EXCLUDED, 20, 0.9),
    ContextItem("raw", "raw/articles/backlinks.md", "raw/articles/backlinks.md", "Backlinks",
                "With the Backlinks [[Core plugins|plugin]], you can see all the backlinks for the active note.\n"
                "A backlink for a note is a link from another note to that note.", 30, 0.8, 7, 8),
]
FILES = [item.path for item in ITEMS] + ["entities/core-plugins.md", "entities/note.md"]


def checked(answer: str, size: int | None = None) -> tuple[str, list[str], list[str]]:
    """(the checked text, its citations, the links removed), fed whole or in pieces of `size` characters."""
    check = CitationCheck(ITEMS, Resolver(FILES))
    f = AnswerFilter(check, copies=Copies(ITEMS))
    step = size or len(answer) or 1
    text = "".join(f.feed(answer[i : i + step]) for i in range(0, len(answer), step)) + f.finish()
    assert text == f.text
    return text, [c.link for c in check.citations], check.rejected


def test_links_inside_copied_words_are_the_pages_even_to_pages_outside_the_context() -> None:
    # [[note]] is a page that was not in the context: plain text, and not reported as a removed citation
    text, cited, removed = checked("Unlinked mentions are backlinks to any unlinked occurrence of the name of "
                                   "the active [[note]].")
    assert text == ("Unlinked mentions are backlinks to any unlinked occurrence of the name of the active note "
                    "[[unlinked-mentions]].")
    assert (cited, removed) == (["[[unlinked-mentions]]"], [])
    # a link the model added to copied words is its citation; the sentence also cites what it copies
    text, cited, removed = checked("Files matching your Excluded files patterns will not appear in Unlinked "
                                   "mentions [[excluded-files]] [[made-up]].")
    assert text.endswith("Unlinked mentions [[excluded-files]] made-up [[unlinked-mentions]].")
    assert (cited, removed) == (["[[excluded-files]]", "[[unlinked-mentions]]"], ["[[made-up]]"])


def test_a_copied_sentence_citing_an_item_that_holds_it_is_left_as_written() -> None:
    for answer in ("With the Backlinks plugin, you can see all the backlinks for the active note "
                   "[[raw/articles/backlinks.md]].",
                   "Unlinked mentions are backlinks to any unlinked occurrence of the name of the active note "
                   "[[Unlinked mentions]]."):
        text, cited, _ = checked(answer)
        assert text.count("[[") == 1 and len(cited) == 1, text
    # a raw passage's sentence, its link shown as its reader sees it, cites the raw source
    text, cited, _ = checked("With the Backlinks plugin, you can see all the backlinks for the active note. "
                             "That is all.")
    assert text == ("With the Backlinks plugin, you can see all the backlinks for the active note "
                    "[[raw/articles/backlinks.md]]. That is all.")
    assert cited == ["[[raw/articles/backlinks.md]]"]


def test_too_few_or_too_different_words_cite_nothing() -> None:
    for answer in ("It is a note.",  # fewer words than tell where they came from
                   "Unlinked mentions are names of notes that nobody has linked yet in the vault.",
                   "Backlinks list the notes that link to the active note.",
                   # a table row needs its table: no citation is written into it
                   "| Unlinked mentions are backlinks to any unlinked occurrence of the name of the active note |"):
        assert checked(answer)[1:] == ([], []), answer


FRAGMENTS = [
    "Unlinked mentions are backlinks to any unlinked occurrence of the name of the active [[note]]",
    "Files matching your [[Excluded files]] patterns will not appear in Unlinked mentions",
    "A backlink for a note is a link from another note to that note",
    "See [[excluded-files]] e.g. v2.1", "[[nowhere]] and (as of 2024)", "[[excluded-files|Ex. Files]]",
    "在三月的基准测试中", "1", "12",
    ".", "!", "?", "。", ")", "”", " ", "  ", "\n", "\n\n", "- ", "1. ", "\n2) ", "> ", "[[", "]]", "^[raw/x.md:L2]",
]


@given(st.lists(st.sampled_from(FRAGMENTS), max_size=12), st.integers(min_value=1, max_value=9))
def test_an_answer_streamed_in_pieces_of_any_size_reads_as_the_whole(parts: list[str], size: int) -> None:
    answer = "".join(parts)
    assert checked(answer, size) == checked(answer)
