"""Pages with plain GFM tables take the fast path (`plain_tables`); wherever it accepts a page, its links
and headings must equal markdown-it's. Tables are generated around the cases where GFM changes links:
pipes inside links, escaped pipes, rows with more cells than the header, header/delimiter mismatches,
tables that interrupt a paragraph or sit in a list or quote, rows without a leading pipe."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from wikic.vault.parse import fast_eligible, parse_note, scan_fast

from .test_parse_equivalence import check

CELL = st.sampled_from([
    "", "x", "数据库", "[[a]]", "[[b|B]]", "[[c\\|C]]", "[[d\\|D\\|E]]", "[[e#H\\|h]]", "![[f.png\\|100]]",
    "[t](g.md)", "[t|u](h.md)", "[t](i\\|j.md)", "a \\| b", "[[k", "l]]", "[[m|", "|n]]", "^blk", "# no heading",
    "[[o]] and [[p]]", "x\u00a0", "\u3000[[q]]", "- [[r]]", "> [[s]]",
])
DELIMITER_CELL = st.sampled_from(["---", "---", ":--", "--:", ":-:", "-", " --- ", "", "x--", "-:-"])
TEXT = st.sampled_from(["Intro [[before]].", "- item [[li]]", "> quote [[qt]]", "# Head", "plain", "  indented",
                        "[[after]] text", "\u00a0", "|", "| lone | row |"])


@st.composite
def row(draw: st.DrawFn, cells: int) -> str:
    extra = draw(st.sampled_from([0, 0, 0, -1, 1]))  # mostly as many cells as the header
    values = draw(st.lists(CELL, min_size=max(0, cells + extra), max_size=max(0, cells + extra)))
    lead = draw(st.sampled_from(["|", "|", "|", "|", "|", "", " |", "> |"]))
    trail = draw(st.sampled_from([" |", " |", "", " | "]))
    return lead + " " + " | ".join(values) + trail


@st.composite
def table(draw: st.DrawFn) -> str:
    columns = draw(st.integers(1, 4))
    header = draw(row(columns))
    width = columns + draw(st.sampled_from([0, 0, 0, -1, 1]))
    delimiter_cells = draw(st.lists(DELIMITER_CELL, min_size=max(1, width), max_size=max(1, width)))
    delimiter = draw(st.sampled_from(["|", "|", ""])) + "|".join(delimiter_cells) + draw(st.sampled_from(["|", ""]))
    rows = draw(st.lists(row(columns), max_size=4))
    return "\n".join([header, delimiter, *rows])


@st.composite
def page(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["table", "table", "text", "blank", "blank"]))
        parts.append(draw(table()) if kind == "table" else draw(TEXT) if kind == "text" else "")
    return "\n".join(parts) + draw(st.sampled_from(["", "\n"]))


# Pages found by the search once, or that sit on an edge: checked on every run.
TABLE_CASES = [
    "| [[a|b]] |\n|---|\n",  # the pipe splits the link: two cells, no link
    "| h |\n|---|\n| [[c\\|C]] |\n",  # an escaped pipe is the link's alias separator
    "| h |\n|---|\n| [[d\\|D\\|E]] |\n",  # unescaped, the alias would be "D|E"
    "| h |\n|---|\n| x | [[dropped]] |\n",  # a cell past the header's count is dropped, link and all
    "text\n| h |\n|---|\n| [[a|b]] |\n",  # a table interrupting a paragraph
    "| h |\n|---|\nno pipe [[a|b]]\n",  # a row without a leading pipe still belongs to the table
    "| a | b |\n|---|\n| [[x|y]] |\n",  # header and delimiter disagree: a paragraph, [[x|y]] is a link
    "| [[d\\|D\\|E]] |\n:--",  # a one-column delimiter row needs no pipe
]


@pytest.mark.parametrize("body", TABLE_CASES)
def test_fast_scanner_agrees_with_markdown_it_on_known_tables(body: str) -> None:
    check(body)


@pytest.mark.slow  # 1,500 generated pages
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(page())
def test_fast_scanner_agrees_with_markdown_it_on_tables(body: str) -> None:
    check(body)


def test_ordinary_tables_take_the_fast_path() -> None:
    """A comparison table as the compiler writes it, and one as people write it, must not need markdown-it,
    or the property above proves nothing."""
    body = (
        "# Comparison\n\nIntro [[alpha]].\n\n"
        "| Axis | [[alpha]] | [[beta\\|Beta]] |\n|---|:---:|---|\n"
        "| Speed | fast ^[raw/x.md:L1-L2] | slow |\n| Cost | [t](costs.md) | [[gamma#Price\\|price]] |\n\n"
        "After [[delta]].\n"
    )
    assert fast_eligible(body)
    fast = scan_fast(body, 1)
    assert fast is not None
    assert [(lk.target, lk.alias) for lk in fast[0]] == [
        ("alpha", None), ("alpha", None), ("beta", "Beta"), ("costs.md", None), ("gamma", "price"), ("delta", None)]
    check(body)
    note = parse_note("comparisons/x.md", body.encode("utf-8"))
    assert [lk.raw for lk in note.links][2] == "[[beta\\|Beta]]"


def test_a_markdown_link_with_an_escaped_pipe_in_a_cell_is_reported_as_written() -> None:
    """markdown-it unescapes the cell ("a|b.md"); the finding must still quote and point at the file's text
    (found by bench/fuzz_parser.py)."""
    body = "| h |\n|---|\n| see [t](a\\|b.md) |\n"
    (link,) = parse_note("p.md", body.encode("utf-8")).links
    assert (link.target, link.raw, link.line) == ("a|b.md", "[t](a\\|b.md)", 3)
    assert body.split("\n")[2][link.column - 1 :].startswith(link.raw)
