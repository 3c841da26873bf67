"""Inline code is shown as written: the places that make a page's plain text read links outside code only."""

from __future__ import annotations

from wikic.pages.render import clean_text, linkify
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


def test_a_name_in_code_is_never_linked() -> None:
    text, used = linkify("Add the `aliases` property to a note, then Aliases show up. `[[Obsidian]]` is Obsidian's",
                         {"Aliases": "entities/aliases", "Obsidian": "obsidian"})
    assert text == ("Add the `aliases` property to a note, then [[entities/aliases|Aliases]] show up. "
                    "`[[Obsidian]]` is [[obsidian|Obsidian]]'s")
    assert used == {"entities/aliases", "obsidian"}


def test_a_markdown_escape_in_a_sources_prose_stays_the_escape_its_reader_saw() -> None:
    # `\[\[` shows "[[" and opens no link; a backslash before what the line escapes itself is doubled
    assert clean_text(r"link them using the \[\[double bracket syntax\]\].") == (
        r"link them using the \[\[double bracket syntax\]\].")
    assert clean_text(r"costs \$5, not \<b>") == r"costs \\\$5, not \\&lt;b&gt;"
