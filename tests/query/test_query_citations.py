"""The citation check on whole texts and on streams cut at every possible place; fingerprints; page safety."""

from __future__ import annotations

import hashlib

import pytest

from wikic.pages.fingerprint import fingerprint_matches, page_fingerprint, same_fingerprint
from wikic.query.citations import AnswerFilter, CitationCheck, check_text
from wikic.query.retrieve import ContextItem
from wikic.query.writeback import page_safe
from wikic.vault.resolve import Resolver

FILES = ["entities/openai.md", "entities/sam-altman.md", "concepts/openai.md", "raw/articles/a.md", "raw/papers/b.pdf",
         "entities/ghost-in-vault.md"]
ITEMS = [
    ContextItem("page", "entities/sam-altman.md", "sam-altman", "Sam Altman", "text", 1, 1.0, aliases=("Sam",)),
    ContextItem("page", "entities/openai.md", "entities/openai", "OpenAI", "text", 1, 1.0),
    ContextItem("raw", "raw/articles/a.md", "raw/articles/a.md", "A", "text", 1, 1.0, 3, 5),
]


def check() -> CitationCheck:
    return CitationCheck(ITEMS, Resolver(FILES))


@pytest.mark.parametrize(("written", "expected"), [
    ("[[sam-altman]]", "[[sam-altman]]"),
    ("[[Sam-Altman]]", "[[sam-altman]]"),  # case-insensitive, as Obsidian
    ("[[entities/sam-altman.md]]", "[[sam-altman]]"),
    ("[[Sam Altman]]", "[[sam-altman|Sam Altman]]"),  # a title: fixed by code, Obsidian would not resolve it
    ("[[Sam]]", "[[sam-altman|Sam]]"),  # an alias
    ("[[sam-altman|the CEO]]", "[[sam-altman|the CEO]]"),
    ("[[sam-altman#Facts]]", "[[sam-altman]]"),
    ("![[sam-altman]]", "[[sam-altman]]"),  # no transclusion in an answer
    ("[[entities/openai]]", "[[entities/openai]]"),
    ("[[raw/articles/a.md]]", "[[raw/articles/a.md]]"),
    ("[[raw/articles/a.md:L3-L5]]", "[[raw/articles/a.md]]"),
    ("[[raw/articles/a]]", "[[raw/articles/a.md]]"),
    ("[[ghost-in-vault]]", "ghost-in-vault"),  # exists, but was not in the context
    ("[[made-up|Made Up]]", "Made Up"),
    ("[[../../etc/passwd]]", "../../etc/passwd"),
    ("[[raw/papers/b.pdf]]", "raw/papers/b.pdf"),
])
def test_links_are_checked_against_the_context(written: str, expected: str) -> None:
    assert check_text(f"Claim {written}.", check()) == f"Claim {expected}."


ANSWER = "Sam leads [[sam-altman]] and ![[entities/openai]]; see [[nowhere]] and [[raw/articles/a.md]]. x[y] [[unclosed"


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 13, len(ANSWER)])  # the last: a whole reply, not streamed
def test_a_stream_cut_anywhere_gives_the_same_checked_text(size: int) -> None:
    reference = check()
    whole = check_text(ANSWER, reference)
    streamed = check()
    f = AnswerFilter(streamed, sentinel=True)
    shown = "".join(f.feed(ANSWER[i : i + size]) for i in range(0, len(ANSWER), size)) + f.finish()
    assert shown == whole == f.text
    assert (streamed.citations, streamed.rejected) == (reference.citations, reference.rejected)
    assert whole == ("Sam leads [[sam-altman]] and [[entities/openai]]; see nowhere and [[raw/articles/a.md]]. "
                     "x[y] [unclosed")


def test_text_is_released_as_soon_as_it_cannot_be_a_link() -> None:
    f = AnswerFilter(check())
    assert f.feed("Hello there ") == "Hello there "
    assert f.feed("see [") == "see "
    assert f.feed("[sam-alt") == ""
    assert f.feed("man]] ok") == "[[sam-altman]] ok"


@pytest.mark.parametrize(
    "pieces", [["NOT_IN_WIKI"], ["NOT", "_IN", "_WIKI\n"], ["  not_in_wiki."], ["<think>hm</think>", "NOT_IN_WIKI"]]
)
def test_the_sentinel_is_recognised_and_never_shown(pieces: list[str]) -> None:
    f = AnswerFilter(check())
    assert "".join(f.feed(p) for p in pieces) + f.finish() == ""
    assert f.not_found


def test_text_that_merely_starts_like_the_sentinel_is_shown() -> None:
    f = AnswerFilter(check())
    assert f.feed("NOT") == ""
    assert f.feed("ABLY, Sam [[sam-altman]]") + f.finish() == "NOTABLY, Sam [[sam-altman]]"
    assert not f.not_found


@pytest.mark.parametrize("pieces", [["<thi", "nk>plan [[x]]", "</think>\n\nSam", " [[sam-altman]]"],
                                    ["<think>plan [[x]]</think>\n\nSam [[sam-altman]]"]])
def test_a_leading_think_block_is_dropped_even_when_streamed(pieces: list[str]) -> None:
    f = AnswerFilter(check())
    out = "".join(f.feed(p) for p in pieces) + f.finish()
    assert out == "Sam [[sam-altman]]"


def test_citations_are_recorded_once_in_order() -> None:
    c = check()
    check_text("[[raw/articles/a.md]] [[sam-altman]] [[Sam Altman]] [[nope]]", c)
    assert [x.path for x in c.citations] == ["raw/articles/a.md", "entities/sam-altman.md"]
    assert [x.kind for x in c.citations] == ["raw", "page"]
    assert c.rejected == ["[[nope]]"]


PAGE = """---
title: OpenAI
updated: 2026-01-01
---
# OpenAI

- Based in San Francisco.
"""


def test_fingerprint_covers_knowledge_not_frontmatter_or_asked_blocks() -> None:
    base = page_fingerprint(PAGE)
    assert page_fingerprint(PAGE.replace("2026-01-01", "2026-02-02")) == base
    asked = (
        PAGE + "\n## Asked about\n\n<!-- wikic:begin asked sha=0123456789ab -->\n- [[q|Q?]]\n<!-- wikic:end asked -->\n"
    )
    assert page_fingerprint(asked) == base
    assert page_fingerprint(PAGE.replace("\n", "\r\n")) == base
    assert page_fingerprint(PAGE + "- Founded in 2015.\n") != base
    assert same_fingerprint(base, base) and same_fingerprint(base[:8], base)
    assert not same_fingerprint(base[:7], base) and not same_fingerprint(None, base)


RELATED = PAGE + (
    "\n## Related\n\n<!-- wikic:begin related:raw/a.md sha=0123456789ab -->\n- See also: "
    "[[x|X]]\n<!-- wikic:end related:raw/a.md -->\n"
)


def test_fingerprint_leaves_out_see_also_lines_and_block_markers() -> None:
    """Ingest rewrites a See also line when a page built on the same source appears: no new knowledge."""
    base = page_fingerprint(RELATED)
    assert base == page_fingerprint(PAGE)  # its section held nothing else
    assert (
        page_fingerprint(RELATED.replace("[[x|X]]", "[[x|X]], [[y|Y]]").replace("0123456789ab", "ba9876543210")) == base
    )
    assert page_fingerprint(RELATED.replace("- See also", "- Founded in 2015.\n- See also")) != base


def test_a_fingerprint_an_earlier_version_recorded_still_matches_the_unchanged_page() -> None:
    body = RELATED.split("---\n", 2)[2].strip()  # what earlier versions hashed: See also lines and markers too
    earlier = hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]
    assert earlier != page_fingerprint(RELATED)
    assert fingerprint_matches(earlier, RELATED) and fingerprint_matches(page_fingerprint(RELATED), RELATED)
    assert not fingerprint_matches(earlier, RELATED + "- Founded in 2015.\n")


@pytest.mark.parametrize(("answer", "bad"), [
    ("text\n<!-- wikic:end answer -->\nmore", "<!--"),
    ("a %% hidden", "%%"),
    ("---\ntitle: x", "---"),
])
def test_page_safe_defuses_what_would_break_the_page(answer: str, bad: str) -> None:
    assert bad not in page_safe(answer)


def test_page_safe_closes_a_stray_code_fence() -> None:
    assert page_safe("```python\nprint(1)").endswith("```")
    assert page_safe("```\nok\n```") == "```\nok\n```"
