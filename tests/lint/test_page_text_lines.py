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


_LINES = st.sampled_from([
    "Acme makes anvils. It was founded in 1990.", "Dr. Chen measured it. e.g. this", "it continues here.",
    "Acme is based in Oslo. ^[raw/a.md:L3]", "Its founder is Ann. ^[[[raw/a.md|a.md]] L4-L5] ^c0000001",
    "- Acme makes anvils. ^[raw/a.md:L2] ^c0000002", "* an item", "1. a step", "> A quote. Another.", "> [!note] Title",
    "", "   ", "## Section", "# Title", "```", "<!-- a comment -->", "%% hidden %%", "| a | b |", "---",
    "A sentence with a block id. ^abc123", "它是数据库。它很快。", "x", "^[raw/a.md:L9]",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINES, max_size=14), st.sets(st.integers(1, 16), max_size=3))
def test_prose_counts_and_keeps_what_the_statements_say(lines: list[str], keep: set[int]) -> None:
    from wikic.lint.page_text import SENTENCE, PageText
    from wikic.vault.parse import parse_note

    text = "\n".join(lines)
    page = PageText(text, parse_note("entities/acme.md", text.encode()))
    sentences = [s for s in page.statements(1, len(page.lines)) if s.kind == SENTENCE]
    count, kept = page.prose(1, len(page.lines), keep)
    assert count == len(sentences)
    assert kept == [s for s in sentences if s.cited or s.line in keep]


def _reference_hidden_lines(lines: list[str], body_start: int, last: int) -> frozenset[int]:
    """The hidden lines as first read: every line looked at in turn, whether it may open anything or not."""
    from wikic.lint.page_text import _FENCE, _nothing
    from wikic.vault.comments import replace_comments

    hidden: set[int] = set()
    fence: str | None = None
    closing: str | None = None
    for n in range(body_start, last + 1):
        line = lines[n - 1]
        if fence is not None:
            hidden.add(n)
            m = _FENCE.match(line)
            if m is not None and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and \
                    not line.strip()[len(m.group(1)):].strip():
                fence = None
            continue
        if closing is not None:
            hidden.add(n)
            if closing in line:
                closing = None
            continue
        m = _FENCE.match(line)
        if m is not None:
            fence = m.group(1)
            hidden.add(n)
            continue
        rest = replace_comments(line, _nothing)
        for opener, closer in (("<!--", "-->"), ("%%", "%%")):
            if opener in rest:
                hidden.add(n)
                closing = closer
                break
    return frozenset(hidden)


_HIDING = st.sampled_from([
    "```", "~~~", "````", "  ```", "    ```", "``` python", "```  ", "~~~~ x", "`` not", "text ``` inline", "<!--",
    "-->", "a <!-- b", "c --> d", "<!-- closed -->", "<!-- a --> <!-- b", "%%", "%% x %%", "x %% y", "%%%",
    "Prose.", "", "- item", "> ```", "<!-- wikic:begin claims sha=0 -->", "~~~ ```",
])


@settings(max_examples=500, deadline=None)
@given(st.lists(_HIDING, max_size=16), st.integers(1, 4), st.integers(0, 18))
def test_hidden_lines_are_those_of_the_line_by_line_reading(lines: list[str], body_start: int, last: int) -> None:
    from wikic.lint.page_text import _hidden_lines

    last = min(last, len(lines))
    assert _hidden_lines(lines, body_start, last) == _reference_hidden_lines(lines, body_start, last)


def _reference_runs(page: object, first: int, last: int, items: bool) -> list[tuple[str, object]]:
    """A page's runs as first read: line by line, a paragraph going on while its lines are of one kind."""
    from wikic.lint.page_text import ITEM, QUOTED, SENTENCE, PageText, Statement, _read_line, _visible
    from wikic.text.sentences import WORDY as _WORDY
    from wikic.vault.formats.anchors import ANCHOR

    assert isinstance(page, PageText)
    out: list[tuple[str, object]] = []
    paragraph: list[tuple[int, int, str]] = []
    quoted = False
    for n in range(max(first, page.body_start), min(last, len(page.lines)) + 1):
        read = None if n in page.hidden else _read_line(page.lines[n - 1])
        if read is not None and read[0] != ITEM and (read[0] == QUOTED) == quoted:
            paragraph.append((n, read[1] + 1, read[2]))
            continue
        if paragraph:
            out.append(((QUOTED if quoted else SENTENCE), paragraph))
            paragraph = []
        if read is None:
            continue
        kind, at, text = read
        if kind == ITEM:
            if items:
                text = _visible(text)
                if _WORDY.search(ANCHOR.sub("", text)):
                    out.append((ITEM, Statement(n, at + len(text) - len(text.lstrip()) + 1, text.strip(),
                                                ANCHOR.search(text) is not None, ITEM)))
            continue
        quoted = kind == QUOTED
        paragraph.append((n, at + 1, text))
    if paragraph:
        out.append(((QUOTED if quoted else SENTENCE), paragraph))
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINES | _HIDING, min_size=2, max_size=14), st.integers(0, 5), st.integers(3, 18), st.booleans(),
       st.booleans())
def test_runs_are_those_of_the_line_by_line_reading(lines: list[str], first: int, last: int, items: bool,
                                                    frontmatter: bool) -> None:
    from wikic.lint.page_text import PageText
    from wikic.vault.parse import parse_note

    text = "\n".join((["---", "title: Acme", "---"] if frontmatter else []) + lines)
    page = PageText(text, parse_note("entities/acme.md", text.encode()))
    assert list(page._runs(first, last, items=items)) == _reference_runs(page, first, last, items)
    count, _ = page.prose(first, last)
    assert count == sum(1 for s in page.statements(first, last) if s.kind == "sentence")
