"""Where a hub's blocks go: as the rest of wikic places compiler blocks (`wikic/pages/blocks.py`), a block a
person edited stays as they left it, and what the code has for it now goes into a block of its own right
beside it (`key:more`), so the hub still shows everything (a page it misses, say) without losing their words.
A lead they edited is the page's lead: no second one is written."""

from __future__ import annotations

from collections.abc import Sequence

from wikic.pages.blocks import digest, find_block, merge_blocks, remove_block

MORE = ":more"


def edited(text: str, key: str) -> bool:
    found = find_block(text, key)
    return found is not None and digest(found[3]) != found[2]


def place(body: str, blocks: Sequence[tuple[str, str, str | None]], *, order: Sequence[str] = (),
          lead: str | None = None) -> str:
    """`body` with `blocks` (key, text, section) written: into their own block, or beside it when a person
    edited it; a `:more` block no longer needed (its block is the code's again) is taken out. `lead`: the
    key of the lead's block, never doubled."""
    writes = []
    for key, text, section in blocks:
        if edited(body, key):
            if key != lead:
                writes.append((key + MORE, text, section))
            continue
        if find_block(body, key + MORE) is not None:
            body, _ = remove_block(body, key + MORE)
        writes.append((key, text, section))
    return merge_blocks(body, writes, order=order).text
