"""Link, heading and block-id extraction, case by case, from tests/fixtures/links.md.

Each case runs four ways: as written (LF), with CRLF line ends, behind a UTF-8 BOM, and forced through
the markdown-it scanner (so both scanners are held to every expectation).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pytest

from wikic.vault import parse
from wikic.vault.model import Link, Note
from wikic.vault.parse import parse_note

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "links.md"


class Case(NamedTuple):
    title: str
    line: int  # line of the title in the fixture file
    source: str
    expected: list[str]


def read_fixture(path: Path) -> list[Case]:
    """markdown-it-py's fixture format: title, ".", input, ".", expected, "."."""
    lines = path.read_text(encoding="utf-8").split("\n")
    cases = []
    i = 0
    while i + 1 < len(lines):
        if lines[i].strip() and lines[i] != "." and lines[i + 1] == ".":
            title, start = lines[i], i + 1
            i += 2
            source: list[str] = []
            while lines[i] != ".":
                source.append(lines[i])
                i += 1
            i += 1
            expected: list[str] = []
            while lines[i] != ".":
                expected.append(lines[i])
                i += 1
            cases.append(Case(title, start, "".join(line + "\n" for line in source), expected))
        i += 1
    return cases


def describe_link(link: Link) -> str:
    text = link.target
    if link.subpath:
        text += "#" + link.subpath
    if link.alias is not None:
        text += "|" + link.alias
    return f"{link.kind} {text} @{link.line}:{link.column}"


def describe(note: Note) -> list[str]:
    out = [describe_link(link) for link in note.links]
    out += [f"heading {h.level} {h.text} @{h.line}" for h in note.headings]
    out += [f"block {b.id} @{b.line}" for b in note.blocks]
    out += [f"problem {p.rule} @{'-' if p.line is None else p.line}:{p.column}" for p in note.problems]
    return out


CASES = read_fixture(FIXTURE)


def test_fixture_file_is_read() -> None:
    assert len(CASES) >= 80
    titles = [c.title for c in CASES]
    assert len(titles) == len(set(titles)), "case titles must be unique"


@pytest.mark.parametrize("variant", ["lf", "crlf", "bom", "full"])
@pytest.mark.parametrize("case", CASES, ids=[f"L{c.line}" for c in CASES])
def test_links_fixture(case: Case, variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    source = case.source
    if variant == "crlf":
        source = source.replace("\n", "\r\n")
    elif variant == "bom":
        source = "\ufeff" + source.replace("\n", "\r\n")
    elif variant == "full":
        monkeypatch.setattr(parse, "fast_eligible", lambda body: False)
    note = parse_note("notes/Source.md", source.encode("utf-8"))
    assert describe(note) == case.expected, f"{case.title} (links.md line {case.line})"


# ---- details the fixture format does not show ------------------------------------------------------


def test_raw_is_the_link_as_written() -> None:
    src = "a [[P#h|x]] b ![[i.png|100]] [t](Three%20laws.md#Sec) ![a](p.png)\n"
    note = parse_note("n.md", src.encode())
    assert [lk.raw for lk in note.links] == ["[[P#h|x]]", "![[i.png|100]]", "[t](Three%20laws.md#Sec)", "![a](p.png)"]
    for link in note.links:
        assert src[link.column - 1 :].startswith(link.raw)


def test_raw_in_a_table_keeps_the_escaped_pipe() -> None:
    src = "| a |\n|---|\n| [[T\\|x]] |\n"
    (link,) = parse_note("n.md", src.encode()).links
    assert (link.target, link.alias, link.raw) == ("T", "x", "[[T\\|x]]")
    assert src.split("\n")[2][link.column - 1 :].startswith(link.raw)


def test_raw_of_a_markdown_link_with_a_parenthesis_in_its_text() -> None:
    (link,) = parse_note("n.md", b"[a) b](Page.md) tail)").links
    assert link.raw == "[a) b](Page.md)"


def test_columns_point_at_the_link_in_every_container() -> None:
    """Every link's column points at its raw text in the file line, wherever it sits."""
    src = (
        "---\ntitle: x\nup: \"[[Fm]]\"\n---\n"
        "> quote `[[no]]` [[A]]\n"
        ">   - nested [[B]] and [c](C.md)\n"
        "1. item\n\n   para [[D]]\n"
        "| x | y |\n|---|---|\n| `[[no]]` [[E\\|e]] | [[F]] |\n"
        "# Heading [[G]] #\n"
        "[^1]: foot [[H]]\n"
    )
    for force_full in (False, True):
        note = parse_note("n.md", src.encode())
        if force_full:
            lines = src.split("\n")
            body_links = parse.scan_full("\n" * 4 + "\n".join(lines[4:]), 5, lines)[0]
            links = [lk for lk in note.links if lk.kind == "frontmatter"] + body_links
        else:
            links = note.links
        assert [lk.target for lk in links] == ["Fm", "A", "B", "C.md", "D", "E", "F", "G", "H"]
        file_lines = src.split("\n")
        for link in links:
            assert file_lines[link.line - 1][link.column - 1 :].startswith(link.raw), link


def test_crlf_and_lone_cr_line_ends_count_as_lines() -> None:
    note = parse_note("n.md", b"a\r\nb\rc [[X]]\r\n")
    assert [(lk.line, lk.column) for lk in note.links] == [(3, 3)]
    assert note.line_count == 3


def test_bom_is_not_part_of_the_first_line() -> None:
    note = parse_note("n.md", "\ufeff[[X]] # no\n# Title\n".encode())
    assert [(lk.target, lk.line, lk.column) for lk in note.links] == [("X", 1, 1)]
    assert [h.text for h in note.headings] == ["Title"]


def test_frontmatter_bookkeeping() -> None:
    src = "---\ntitle: T\ntags:\n  - a\nup: \"[[P]]\"\n---\n\n[[Q]]\n"
    note = parse_note("n.md", src.encode())
    assert note.frontmatter == {"title": "T", "tags": ["a"], "up": "[[P]]"}
    assert note.frontmatter_lines == 6
    assert note.key_lines == {"title": 2, "tags": 3, "up": 5}
    assert note.body_text_start == 7
    assert note.line_count == 8
    assert note.problems == []


def test_no_frontmatter() -> None:
    note = parse_note("n.md", b"# T\n")
    assert (note.frontmatter, note.frontmatter_lines, note.key_lines, note.body_text_start) == (None, 0, {}, 1)


def test_fast_path_and_markdown_it_agree_on_every_fixture() -> None:
    """The equivalence property, on the hand-written cases (which are not generated by the grammar)."""
    for case in CASES:
        body = case.source
        if body.startswith("---"):
            continue
        if parse.fast_eligible(body):
            fast = parse.scan_fast(body, 1)
            if fast is not None:
                full = parse.scan_full(body, 1, body.split("\n"))
                assert (fast[0], fast[1]) == (full[0], full[1]), case.title
