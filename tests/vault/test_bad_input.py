"""parse_note on input that is broken, hostile or huge: always a Note with problems, never an exception,
never a hang."""

from __future__ import annotations

import time

import pytest

from wikic.vault.model import Note
from wikic.vault.parse import MAX_PAGE_BYTES, parse_note


def parse(data: bytes | str, path: str = "notes/Bad.md") -> Note:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    note = parse_note(path, raw)
    assert isinstance(note, Note)
    assert note.path == path
    return note


def rules(note: Note) -> list[tuple[str, int | None]]:
    return [(p.rule, p.line) for p in note.problems]


# ---- encodings ---------------------------------------------------------------------------------------


def test_non_utf8_names_the_line() -> None:
    note = parse(b"# Title\n\nok line\nbad \xff byte [[X]]\n")
    assert rules(note) == [("encoding", 4)]
    assert "line 4" in note.problems[0].message and "0xff" in note.problems[0].message
    assert note.links == [] and note.headings == []


def test_latin1_file() -> None:
    note = parse("---\ntitle: Café\n---\n[[Crème]]\n".encode("latin-1"))
    assert rules(note) == [("encoding", 2)]


def test_truncated_utf8_sequence_at_end() -> None:
    note = parse("a\nb [[日本]]\n".encode()[:-4])
    assert rules(note) == [("encoding", 2)]


def test_binary_data() -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4
    note = parse(png, "assets/image.md")
    assert rules(note) == [("encoding", None)]
    assert "binary" in note.problems[0].message
    assert (note.links, note.frontmatter, note.line_count) == ([], None, 0)


def test_utf16_is_named() -> None:
    note = parse("---\ntitle: x\n---\n[[A]]\n".encode("utf-16"))
    assert rules(note) == [("encoding", None)]
    assert "UTF-16" in note.problems[0].message


def test_nul_after_the_sniffed_prefix_is_still_parsed() -> None:
    note = parse("x" * 10000 + "\x00\n[[A]]\n")
    assert [lk.target for lk in note.links] == ["A"]


def test_empty_and_whitespace_files() -> None:
    for data in (b"", b"\n", b"   \n\n\t\n", b"\xef\xbb\xbf"):
        note = parse(data)
        assert note.problems == [] and note.links == [] and note.frontmatter is None


# ---- frontmatter ---------------------------------------------------------------------------------------


def test_invalid_yaml_is_reported_and_the_body_still_parsed() -> None:
    note = parse("---\ntitle: Foo: bar\ntags: [a\n---\n# Body\n[[A]]\n")
    assert rules(note) == [("frontmatter", 2)]
    assert note.frontmatter is None
    assert note.frontmatter_lines == 4 and note.body_text_start == 5
    assert [(lk.target, lk.line) for lk in note.links] == [("A", 6)]
    assert [h.line for h in note.headings] == [5]


def test_impossible_date_in_frontmatter() -> None:
    note = parse("---\ntitle: T\ncreated: 2024-02-30\n---\n[[A]]\n")
    assert rules(note) == [("frontmatter", 3)]
    assert [lk.target for lk in note.links] == ["A"]


def test_unclosed_frontmatter() -> None:
    note = parse("---\ntitle: T\n\n[[A]]\n")
    assert rules(note) == [("frontmatter", 1)]
    assert note.frontmatter is None and note.frontmatter_lines == 0
    assert [(lk.target, lk.line) for lk in note.links] == [("A", 4)]


def test_frontmatter_not_on_line_one() -> None:
    note = parse("\n\n---\ntitle: T\n---\n[[A]]\n")
    assert rules(note) == [("frontmatter", 3)]
    assert "line 1" in note.problems[0].message
    assert note.frontmatter is None
    assert [(lk.target, lk.line) for lk in note.links] == [("A", 6)]


def test_frontmatter_that_is_a_list_or_a_string() -> None:
    for yaml_text, kind in (("- a\n- b", "list"), ("just words", "str")):
        note = parse(f"---\n{yaml_text}\n---\n[[A]]\n")
        assert rules(note) == [("frontmatter", 2)], kind
        assert note.frontmatter is None and [lk.target for lk in note.links] == ["A"]


def test_huge_frontmatter_is_not_read() -> None:
    start = time.perf_counter()
    note = parse("---\n" + "k: v\n" * 100_000 + "---\n[[A]]\n")
    assert time.perf_counter() - start < 5
    assert rules(note) == [("frontmatter", 1)]
    assert [lk.target for lk in note.links] == ["A"]


# ---- Markdown that never closes ------------------------------------------------------------------------


def test_unclosed_wikilink() -> None:
    note = parse("# T\n\nSee [[Page and more\n\nnext [[B]]\n")
    assert [(p.rule, p.line, p.column) for p in note.problems] == [("malformed-link", 3, 5)]
    assert [lk.target for lk in note.links] == ["B"]


def test_unclosed_wikilink_on_the_fast_path_page() -> None:
    note = parse("plain [[a and [[b]]\n")  # a "[[" swallowing another link: markdown-it decides
    assert [lk.target for lk in note.links] == ["b"]


def test_unclosed_code_fence_is_reported_at_the_fence() -> None:
    note = parse("# T\n[[A]]\n\n```python\ncode [[B]]\n\nmore [[C]]\n")
    assert [(p.rule, p.line) for p in note.problems] == [("malformed-link", 4)]
    assert "fence" in note.problems[0].message
    assert [lk.target for lk in note.links] == ["A"]


def test_unclosed_tilde_fence_in_a_list() -> None:
    note = parse("- item\n  ~~~\n  [[B]]\n- [[C]]\n")  # the end of its list item closes it (CommonMark)
    assert [lk.target for lk in note.links] == ["C"]
    assert [(p.rule, p.line) for p in note.problems] == [("malformed-link", 2)]


def test_closed_fence_is_not_reported() -> None:
    note = parse("```\n[[B]]\n```\n~~~~\n[[C]]\n~~~~~\n")
    assert note.problems == [] and note.links == []


def test_unclosed_comment() -> None:
    note = parse("[[A]] %% hidden [[B]]\n\n[[C]]\n")
    assert [(p.rule, p.line, p.column) for p in note.problems] == [("malformed-link", 1, 7)]
    assert [lk.target for lk in note.links] == ["A", "C"]


def test_unclosed_html_comment_hides_the_rest() -> None:
    note = parse("[[A]]\n\n<!-- never closed\n[[B]]\n")
    assert [lk.target for lk in note.links] == ["A"]


def test_unclosed_math_block_hides_the_rest_and_is_reported() -> None:
    # as in Obsidian, unclosed "$$" blocks swallow the rest of a note, like fences
    note = parse("[[A]]\n\n$$\nx = 1\n\n[[B]]\n")
    assert [lk.target for lk in note.links] == ["A"]
    assert [(p.rule, p.line) for p in note.problems] == [("malformed-link", 3)]
    assert "$$" in note.problems[0].message
    note = parse("> $$\n> [[B]]\n\n[[C]]\n")  # ... to the end of its container
    assert [lk.target for lk in note.links] == ["C"]
    note = parse("$$a$$ and [[A]]\n\n$$\nclosed\n$$\n[[B]]\n")
    assert [lk.target for lk in note.links] == ["A", "B"] and note.problems == []
    note = parse("$$ a\nb $$ [[A]]\n\n[[B]]\n")  # closed, though not at a line end: inline math
    assert [lk.target for lk in note.links] == ["A", "B"] and note.problems == []


def test_math_block_stays_in_its_list_item() -> None:
    """dollarmath looked for the closing "$$" past the end of the list item, hiding the items between."""
    note = parse("- $$\n- [[a]]\n- $$\n\n[[b]]\n")
    assert [lk.target for lk in note.links] == ["a", "b"]
    assert [(p.rule, p.line) for p in note.problems] == [("malformed-link", 1), ("malformed-link", 3)]
    note = parse("- $$\n  x = [[no]]\n  $$\n- [[a]]\n")
    assert [lk.target for lk in note.links] == ["a"] and note.problems == []


@pytest.mark.slow  # 20,000 unclosed blocks
def test_unclosed_math_blocks_in_a_long_list_stay_linear() -> None:
    start = time.perf_counter()
    note = parse("- $$ x\n" * 20_000)
    assert time.perf_counter() - start < 10
    assert len(note.problems) == 20_000


def test_unpaired_dollars_are_text() -> None:
    note = parse("price $5 [[A]] and $ [[B]] $\n")
    assert [lk.target for lk in note.links] == ["A", "B"]


# ---- size and depth ------------------------------------------------------------------------------------


def test_twenty_megabyte_page_returns_quickly() -> None:
    line = "Some words and a [[Link]] and `code` and more words here.\n"
    data = ("---\ntitle: Big\nup: \"[[Home]]\"\n---\n" + line * (20 * 1024 * 1024 // len(line) + 1)).encode()
    assert len(data) > 20 * 1024 * 1024 > MAX_PAGE_BYTES
    start = time.perf_counter()
    note = parse(data)
    elapsed = time.perf_counter() - start
    assert elapsed < 5, f"took {elapsed:.1f} s"
    assert [(p.rule, p.line) for p in note.problems] == [("page-too-long", None)]
    assert "MB" in note.problems[0].message
    assert note.frontmatter == {"title": "Big", "up": "[[Home]]"}  # the frontmatter is still read
    assert [lk.target for lk in note.links] == ["Home"]
    assert note.line_count == data.count(b"\n")


def test_page_limit_is_a_parameter() -> None:
    note = parse_note("n.md", b"[[A]]\n" * 100, max_bytes=100)
    assert [p.rule for p in note.problems] == ["page-too-long"] and note.links == []


@pytest.mark.parametrize(
    "text",
    [
        "[" * 20_000 + "`x`",
        "[[a " * 5_000 + "`x`",
        "[" * 5_000 + "]" * 5_000 + "`x`",
        "*_" * 10_000 + "[[a]]" + "`x`",
        "`" * 20_000,
        "<" * 20_000,
        "%%" * 10_000,
        "$" * 20_000,
        "| a " * 2_000 + "|\n" + "|---" * 2_000 + "|\n" + "| [[x]] " * 2_000 + "|\n",
        "[a](" * 5_000,
        "![[" * 5_000 + "]]",
        "\\" * 20_000 + "[[a]]",
    ],
    ids=["brackets", "unclosed-wikilinks", "nested-brackets", "emphasis", "backticks", "lt", "percent",
         "dollars", "wide-table", "open-mdlinks", "embeds", "backslashes"],
)
def test_pathological_lines_finish(text: str) -> None:
    start = time.perf_counter()
    parse(text)
    assert time.perf_counter() - start < 10


@pytest.mark.parametrize(
    "text",
    [
        "-" * 200_000 + "x [[a]]",  # table-row and setext checks must not backtrack
        "- " * 100_000 + "x [[a]]",
        "|" * 200_000 + "x [[a]]",
        "=" * 200_000 + "x [[a]]",
        "1. " * 100_000 + "x [[a]]",
        "---\nk: a" + " " * 200_000 + "b\n---\n[[a]]",  # frontmatter key and value patterns
        "---\na" + " " * 200_000 + "\n---\n[[a]]",
        "---\nk:\n  - a" + " " * 200_000 + "b\n---\n[[a]]",
        "---\na" + " :" * 100_000 + "x\n---\n[[a]]",
    ],
    ids=["dashes", "dash-space", "pipes", "equals", "ordered", "fm-value-spaces", "fm-key-spaces", "fm-item-spaces",
         "fm-colons"],
)
def test_regexes_stay_linear_on_long_lines(text: str) -> None:
    start = time.perf_counter()
    note = parse(text)
    assert time.perf_counter() - start < 5
    assert [lk.target for lk in note.links if lk.kind == "wikilink"] == ["a"]


@pytest.mark.parametrize("depth", [30, 90, 1000])
def test_deeply_nested_quotes(depth: int) -> None:
    note = parse("> " * depth + "[[Deep]] `x`\n")
    if depth <= 90:  # the block parser follows 100 levels (the markdown-it preset stops at 20)
        assert [(lk.target, lk.line, lk.column) for lk in note.links] == [("Deep", 1, 2 * depth + 1)]


@pytest.mark.parametrize("depth", [30, 45, 1000])
def test_deeply_nested_lists(depth: int) -> None:
    text = "".join("  " * i + "- level\n" for i in range(depth)) + "  " * depth + "- [[Deep]] `x`\n"
    note = parse(text)
    if depth <= 45:  # a list level is two block levels
        assert [(lk.target, lk.line, lk.column) for lk in note.links] == [("Deep", depth + 1, 2 * depth + 3)]


def test_deeply_nested_mixed_containers_fast_and_full_agree() -> None:
    text = "".join("> - " * (i % 7) + f"[[L{i}]]\n" for i in range(40))
    plain = parse(text)
    forced = parse(text + "`x`\n")  # a code span sends the page to markdown-it
    assert plain.links == forced.links


def test_deeply_nested_brackets_and_emphasis() -> None:
    note = parse("[" * 500 + "[[a]]" + "]" * 500 + " " + "*" * 500 + "[[b]]" + "*" * 500 + " `x`")
    assert [lk.target for lk in note.links] == ["a", "b"]


@pytest.mark.slow  # 20,000 lines, 40,000 links
def test_many_lines_and_links() -> None:
    text = "".join(f"- [[Note {i}]] and [md](n{i}.md) `c`\n" for i in range(20_000))
    start = time.perf_counter()
    note = parse(text)
    assert time.perf_counter() - start < 20
    assert len(note.links) == 40_000
    assert note.links[-1].line == 20_000 and note.links[-1].column == 22


@pytest.mark.slow  # 80,000 links, twice
def test_many_links_on_the_fast_path() -> None:
    """Thousands of wikilinks and Markdown links, on one line and on many: linear time."""
    for sep in (" ", "\n"):
        text = sep.join(["w [[a]] [m](x.md)"] * 40_000)
        start = time.perf_counter()
        note = parse(text)
        assert time.perf_counter() - start < 10
        assert len(note.links) == 80_000
        last = note.links[-1]
        assert text.split("\n")[last.line - 1][last.column - 1 :].startswith(last.raw)


def test_very_long_single_line() -> None:
    note = parse("word " * 400_000 + "[[End]]")
    assert [(lk.target, lk.line, lk.column) for lk in note.links] == [("End", 1, 2_000_001)]


def test_control_characters_and_odd_line_breaks() -> None:
    note = parse("a\x0bb\x0cc [[A]]\u2028[[B]]\u0085[[C]]\x1b[0m [[D]]\r\n")
    assert [lk.target for lk in note.links] == ["A", "B", "C", "D"]
    assert {lk.line for lk in note.links} == {1}  # only \n, \r\n and \r end a line
