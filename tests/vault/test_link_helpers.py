"""The reference parser reads links as markdown-it's own rules do, only faster on text full of brackets: its link
helpers (`link_helpers.py`), its run of plain text at once, the link rules' failures remembered, a footnote
reference's label looked up and its rules tried by the character at hand give the same tokens as markdown-it's
rules run one by one."""

from __future__ import annotations

import inspect
from collections.abc import MutableMapping
from typing import Any

import markdown_it.helpers
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from markdown_it import MarkdownIt
from markdown_it.helpers import parseLinkDestination

from wikic.vault.parse.link_helpers import parse_link_destination
from wikic.vault.parse.reference import _RULE_STARTS, INLINE_NESTING, MAX_NESTING, _build


def as_markdown_it_runs_it(md: MarkdownIt) -> MarkdownIt:
    """`md` with markdown-it's own link helpers and every inline rule tried in turn."""
    md.helpers = markdown_it.helpers
    ruler = md.inline.ruler
    ruler.disable(["by_first_character", "plain_run"])
    ruler.enable([rule.name for rule in ruler.__rules__ if rule.name in _RULE_STARTS or rule.name == "text"])
    for name in ("link", "image", "footnote_ref"):  # without the failures remembered, the labels looked up
        ruler.at(name, inspect.unwrap(ruler.__rules__[ruler.__find__(name)].fn))
    return md


FAST = {n: _build(n) for n in (INLINE_NESTING, MAX_NESTING, 3)}
STOCK = {n: as_markdown_it_runs_it(_build(n)) for n in (INLINE_NESTING, MAX_NESTING, 3)}

PIECES = ["[", "]", "(", ")", "[[", "]]", "![", "![[", "](", "][", "a", "b c", " ", "\\", "\\[", "\\(", "<", ">",
          "<a>", "<http://x.y>", "`", "``", "$", "$x$", "%%", "*", "_", "~~", "&amp;", "&#91;", "[^1]", "<!--",
          "-->", "\n", "|", "#", ":", "^", "!", "-", "=", "{", "}", "+", "@", '"t"', "'", "\t", "\x01", "é", "|x",
          "[^", "[^1", "[^x y]", "[^12]"]
INLINE = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)
DEFINITIONS = st.lists(st.sampled_from(["[a]: x.md", "[b c]: <y z.md> \"t\"", "[^1]: note", "[^12]: n", "[(]: p"]),
                       max_size=3)


def tokens(md: MarkdownIt, text: str) -> list[MutableMapping[str, Any]]:
    return [token.as_dict() for token in md.parse(text)]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DEFINITIONS, INLINE, st.sampled_from(sorted(FAST)))
def test_the_same_tokens_as_markdown_its_rules_one_by_one(definitions: list[str], text: str, nesting: int) -> None:
    page = "\n".join(definitions) + "\n\n" + text if definitions else text
    assert tokens(FAST[nesting], page) == tokens(STOCK[nesting], page), page


@pytest.mark.parametrize("text", [
    "[" * 21 + "foo]()",  # markdown-it's own quirk at its nesting bound
    "[" * 30 + "a](b)" + "]" * 30,
    "[a](" + "(" * 31 + ")" * 31 + ")", "[a](" + "(" * 32 + ")" * 32 + ")", "[a](" + "(" * 33 + ")" * 33 + ")",
    "[a](<b\\>c>) [d](e\\ f) [g](h\\", "![[x]] ![y](z) [[a|b]] [[c]](d)", "[[" * 40 + "]]" * 40,
])
def test_the_same_tokens_at_the_edges(text: str) -> None:
    for nesting in FAST:
        assert tokens(FAST[nesting], text) == tokens(STOCK[nesting], text)


DESTINATION = st.lists(st.sampled_from(["a", "(", ")", "\\", " ", "\n", "<", ">", "\x01", "\x7f", "é", "\\ ", "\\("]),
                       max_size=40).map("".join)


@given(DESTINATION, st.integers(0, 5), st.integers(0, 5))
def test_a_destination_is_read_as_markdown_it_reads_it(text: str, start: int, short: int) -> None:
    start = min(start, len(text))
    maximum = max(start, len(text) - short)
    if start >= len(text):
        return
    mine, theirs = parse_link_destination(text, start, maximum), parseLinkDestination(text, start, maximum)
    assert (mine.ok, mine.pos, mine.str) == (theirs.ok, theirs.pos, theirs.str), (text, start, maximum)

