"""Reading a page's claims: only its marker lines and the lines holding a claim's id are read, each with its
number in the file and the block it sits in, as reading every line in turn finds them."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings, strategies as st

from wikic.vault.formats import claims as c
from wikic.vault.formats.markers import BEGIN, end_line


def _reference(text: str) -> list[c.Claim]:
    rows: dict[str, list[str]] = {}
    if c.CLAIMS_KEY in text:
        for row in c._row_lines(text):
            rows.setdefault(row.split(" ", 1)[0], []).append(row)
    out: list[c.Claim] = []
    block: str | None = None
    for number, line in enumerate(text.split("\n"), start=1):
        begin = BEGIN.match(line)
        if begin:
            block = begin.group(1)
            continue
        if block is not None and line == end_line(block):
            block = None
            continue
        if "^c" not in line:
            continue
        own = c._TRAILING_ID.search(line)
        claim = c._line_claim(line, tuple(rows.get(own.group(1), ())) if own else ())
        if claim is not None:
            out.append(replace(claim, block=block, line=number))
    return out


_SHA = "0" * 12
_LINES = st.sampled_from([
    "- Acme runs on PostgreSQL ^[[[raw/a.md|a.md]] L3] ^c1a2b3c4d",
    "- Acme is in Oslo (since 2023-01) ^[[[raw/a.md|a.md]] L4] ^c0000abcd",
    "Acme makes anvils. ^[[[raw/b.md|b.md]] L2] ^c00000001",
    "> - A quoted claim ^[[[raw/a.md|a.md]] L5] ^c0000000f",
    "- Old form ^[[[raw/a.md|a.md]] L6] %%claim seen=2023-02-01 via=frontmatter%% ^c00000002",
    "- no anchor ^c00000003", "text ^c", "^c", "plain line", "", "## Key facts",
    f"<!-- wikic:begin section:key-facts sha={_SHA} -->", "<!-- wikic:end section:key-facts -->",
    f"<!-- wikic:begin claims sha={_SHA} -->", "<!-- wikic:end claims -->", "<!-- wikic:end other -->",
    "<!--", "c1a2b3c4d src=raw/a.md seen=2023-02-01 via=captured", "c0000abcd from=2023-01", "-->",
    "<!-- wikic: not a marker ^c00000004", "\r", "x\r",
])


@settings(max_examples=200, deadline=None)
@given(st.lists(_LINES, max_size=16))
def test_claims_are_those_of_the_line_by_line_reading(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert c.scan(text) == _reference(text)
