"""The one check every parser property test makes: whatever path `parse_note` takes for a page (a fast
scanner, a masked one, or markdown-it), its links, headings and block ids equal markdown-it's."""

from __future__ import annotations

from unittest import mock

from wikic.vault import parse
from wikic.vault.parse import parse_note, scan_full


def agrees_with_markdown_it(body: str) -> None:
    note = parse_note("p.md", body.encode("utf-8"))
    links, headings, _, _ = scan_full(body, 1, body.split("\n"))
    assert note.links == links, body
    assert note.headings == headings, body
    with mock.patch.object(parse, "fast_eligible", lambda text: False):  # every page through markdown-it
        assert note.blocks == parse_note("p.md", body.encode("utf-8")).blocks, body
