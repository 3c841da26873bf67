"""Links in frontmatter values are placed where a search for each one's text from the previous link on finds it
(its line and column in the file), in time that grows with the block however many of them are nowhere in it as
written (an escaped "[[\\x61]]" reads as "[[a]]"); an unquoted link is reported at its key's line."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from testkit import growth

from wikic.vault.model import FRONTMATTER
from wikic.vault.parse import FM_WIKI, parse_note


def searched(yaml_text: str, data: dict[str, Any]) -> list[tuple[str, int, int]]:
    """(text, line, column) of each link of the values, each searched for from the previous one on."""
    lines = yaml_text.split("\n")
    cursor = (0, 0)
    out = []

    def values(v: Any) -> Any:
        if isinstance(v, str):
            yield v
        elif isinstance(v, list):
            for item in v:
                yield from values(item)
        elif isinstance(v, dict):
            for item in v.values():
                yield from values(item)

    for value in data.values():
        for text in values(value):
            for m in FM_WIKI.finditer(text):
                raw = m.group(0)
                line, col = 2, 1
                for j in range(cursor[0], len(lines)):
                    idx = lines[j].find(raw, cursor[1] if j == cursor[0] else 0)
                    if idx >= 0:
                        line, col = j + 2, idx + 1
                        cursor = (j, idx + len(raw))
                        break
                out.append((raw, line, col))
    return out


LINK = st.sampled_from(["[[a]]", "[[b|B]]", "[[a#H]]", "[[\\x61]]", "[[[a]]", "[[a]]]", "x [[a]] y", "[[c]][[a]]"])
VALUE = st.one_of(
    LINK.map(lambda v: f'"{v}"'),
    st.lists(LINK.map(lambda v: f'"{v}"'), min_size=1, max_size=3).map(lambda vs: "[" + ", ".join(vs) + "]"),
    st.lists(LINK.map(lambda v: f'"{v}"'), min_size=1, max_size=3).map(lambda vs: "".join(f"\n  - {v}" for v in vs)),
    LINK.map(lambda v: f"\n  k: '{v}'"),
    st.sampled_from(["plain", "[[a]]", "[a, [[b]]]"]),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(VALUE, min_size=1, max_size=6))
def test_links_are_where_a_search_from_the_previous_link_finds_them(values: list[str]) -> None:
    yaml_text = "\n".join(f"k{i}: {v}" for i, v in enumerate(values))
    note = parse_note("p.md", f"---\n{yaml_text}\n---\n".encode())
    if note.frontmatter is None:
        return
    got = [(link.raw, link.line, link.column) for link in note.links if link.kind == FRONTMATTER]
    assert got == searched(yaml_text, note.frontmatter), yaml_text


def test_links_nowhere_in_the_block_as_written_are_placed_in_linear_time() -> None:
    def page(n: int) -> bytes:
        return ("---\n" + "\n".join(f'k{i}: "[[\\x61]]"' for i in range(n)) + "\n---\n").encode()

    small, large = page(1_000), page(8_000)
    assert len(parse_note("p.md", large).links) == 8_000
    assert growth(lambda: parse_note("p.md", small), lambda: parse_note("p.md", large)) < 8 * 3  # quadratic: 64


@pytest.mark.parametrize(("yaml_text", "line"), [
    ("a:b: 1\na: [[x]]", 3),  # a key that begins another key's line
    ('b: 1\n"a": [[x]]', 3),  # a quoted key
    ("b: 1\na:\n  - [[x]]", 3),
])
def test_an_unquoted_link_is_reported_at_its_keys_line(yaml_text: str, line: int) -> None:
    note = parse_note("p.md", f"---\n{yaml_text}\n---\n".encode())
    assert [p.line for p in note.problems if "unquoted wikilink" in p.message] == [line]
