"""How lint's page reading takes a line: its quick answers for the lines most pages are made of (prose at the
margin, blank lines) are those of the full reading."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from wikic.lint.page_text import _read_line, read_marked_line

_OPENERS = st.sampled_from(["A", "é", "ß", "z", "Ω", "中", "", " ", "\t", "   ", "> ", ">", "- ", "* ", "1. ", "12) ",
                            "# ", "## ", "#", "| ", "---", "***", "[!note] ", "<!-- wikic:end x -->", "%%", "1", "_"])
_RESTS = st.sampled_from(["", "x", " text.", " - item", "> q", "|a|b|", " ^abc", "  ", "\t", "-->", " [[Link]]"])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(_OPENERS, _RESTS), max_size=5).map("".join))
def test_a_line_is_read_as_the_full_reading_reads_it(line: str) -> None:
    assert _read_line(line) == read_marked_line(line)


def test_prose_and_blank_lines_are_read_at_once() -> None:
    assert _read_line("Acme makes anvils.  ") == ("sentence", 0, "Acme makes anvils.")
    assert _read_line("") is None and _read_line(" \t ") is None
    assert _read_line("> Acme") == ("quoted", 2, "Acme")
