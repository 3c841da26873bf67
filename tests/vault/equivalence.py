"""The one check every parser property test makes: whatever path `parse_note` takes for a page (a fast
scanner, a masked one, or markdown-it), its links, headings, block ids and malformed-link problems (empty and
unclosed links) equal markdown-it's."""

from __future__ import annotations

from unittest import mock

from wikic.vault import parse
from wikic.vault.model import FRONTMATTER
from wikic.vault.parse import parse_note, scan_full


def agrees_with_markdown_it(body: str) -> None:
    note = parse_note("p.md", body.encode("utf-8"))
    # A page that opens with a frontmatter block ("---" lines around anything): markdown-it reads what
    # follows the block, as parse_note does; the block's own links are frontmatter links.
    lines = body.split("\n")
    skip = note.frontmatter_lines
    text = "\n" * skip + "\n".join(lines[skip:]) if skip else body
    links, headings, problems, _ = scan_full(text, skip + 1, lines)
    assert [link for link in note.links if link.kind != FRONTMATTER] == links, body
    assert note.headings == headings, body
    assert [p for p in note.problems if p.rule == "malformed-link"] == problems, body
    with mock.patch.object(parse, "fast_eligible", lambda text: False):  # every page through markdown-it
        assert note.blocks == parse_note("p.md", body.encode("utf-8")).blocks, body
