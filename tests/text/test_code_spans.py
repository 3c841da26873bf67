"""Inline code is shown as written: the places that make a page's plain text read links outside code only."""

from __future__ import annotations

from wikic.pages.render import clean_text
from wikic.text.code_spans import CodeSpans, outside_code
from wikic.vault.formats.claims import normal_text, plain_text
from wikic.vault.lead import plain_line

QUOTED = "Rather than the alias as the destination (`[[AI]]`), Obsidian writes [[Artificial Intelligence|AI]]."


def test_outside_code_changes_only_the_text_between_code_spans() -> None:
    assert outside_code("a `b` c ``d`e`` f", str.upper) == "A `b` C ``d`e`` F"
    assert outside_code("an `unclosed span", str.upper) == "AN `UNCLOSED SPAN"


def test_code_spans_say_which_offsets_they_hold() -> None:
    text = "x `a. b` y ``c`` z"
    spans = CodeSpans(text)
    assert spans.around(text.index("a.") + 2) == (2, 8)
    assert spans.around(text.index("c")) == (11, 16)
    assert spans.around(text.index("y")) is None and spans.around(2) is None


def test_a_link_quoted_in_code_keeps_its_syntax_where_plain_text_is_made() -> None:
    assert plain_text(QUOTED) == "Rather than the alias as the destination (`[[AI]]`), Obsidian writes AI."
    assert normal_text(QUOTED).startswith("rather than the alias as the destination (`[[ai]]`)")
    assert plain_line(QUOTED) == plain_text(QUOTED)


def test_a_double_backtick_span_stays_code_in_a_clean_line() -> None:
    assert clean_text("use ``a`b`` here, not <b>") == "use ``a`b`` here, not &lt;b&gt;"
