"""Finding a compiler block by its key: the first begin marker of that key at the start of a line, as a scan
of every marker of the page finds it, however the page is made (keys that start alike, markers in the middle
of a line, damaged markers, a block never closed)."""

from __future__ import annotations

from hypothesis import given, strategies as st

from wikic.pages.blocks import find_block, render_block
from wikic.vault.formats.markers import BEGIN, PREFIX, end_line


def scanned(text: str, key: str) -> tuple[int, int, str, str] | None:
    """The block as a scan of every begin marker of the page finds it."""
    for m in BEGIN.finditer(text):
        if m.group(1) != key:
            continue
        close = text.find(end_line(key), m.end())
        if close < 0:
            return None
        body = text[m.end() + 1 : close].rstrip("\n") if m.end() < len(text) else ""
        return m.start(), close + len(end_line(key)), m.group(2), body
    return None


KEYS = ["facts:a.md", "facts:a.md2", "facts:a", "history", "related:raw/x.md"]
PIECES = st.one_of(
    st.sampled_from(KEYS).map(lambda k: render_block(k, f"- about {k}")),
    st.sampled_from(KEYS).map(lambda k: f"text before {PREFIX}begin {k} sha=0123456789ab -->"),  # mid-line
    st.sampled_from(KEYS).map(lambda k: f"{PREFIX}begin {k} sha=nothex -->"),  # damaged
    st.sampled_from(KEYS).map(lambda k: f"{PREFIX}begin {k} sha=0123456789ab -->\nnever closed"),
    st.sampled_from(KEYS).map(end_line),
    st.text(alphabet="ab \n-#", max_size=20),
)


@given(st.lists(PIECES, max_size=8), st.sampled_from([*KEYS, "missing"]))
def test_a_block_is_found_where_a_scan_of_every_marker_finds_it(pieces: list[str], key: str) -> None:
    text = "\n".join(pieces)
    assert find_block(text, key) == scanned(text, key)


def test_a_key_that_starts_like_another_is_not_taken_for_it() -> None:
    text = "# T\n\n" + render_block("facts:a.md2", "- two") + "\n\n" + render_block("facts:a.md", "- one") + "\n"
    found = find_block(text, "facts:a.md")
    assert found is not None and found[3] == "- one"
