"""Pages built on the same raw source link to each other: the "See also" line of a page's Related section.

The pages that cite a raw file (its *members*) are kept in path order as a ring, and each lists the next
few (MAX_SEE_ALSO) after it; so every member is linked from the members before it, however many the source
yielded, and a member is linked both ways whenever the source has at most MAX_SEE_ALSO + 1 pages. A page
already linked from the page's own text, or listed for another of its sources, is not listed again.

The relation does not depend on when the pages were written: a page promoted from the mentions ledger
with what an earlier source said joins that source's members, and the members written earlier get a
link to it. The line closes the page's `related` block, after the relations its sources state
(`wikic/compile/page.py`); a block a person edited is left alone (see `wikic/pages/blocks.py`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Sequence

from wikic.pages.blocks import block_keys, find_block

MAX_SEE_ALSO = 6


def window(members: Sequence[str], page: str, size: int = MAX_SEE_ALSO) -> list[str]:
    """The members after `page` in the ring of `members` (sorted), at most `size` of them."""
    i = bisect.bisect_left(members, page)
    if i == len(members) or members[i] != page:
        return []
    n = len(members)
    return [members[(i + j) % n] for j in range(1, min(size, n - 1) + 1)]


def _outside_related(body: str) -> str:
    """`body` without the compiler's Related blocks: the text whose links make a See also redundant."""
    for key in block_keys(body):
        if key == "related" or key.startswith("related:"):
            found = find_block(body, key)
            if found is not None:
                body = body[: found[0]] + body[found[1] :]
    return body


_LINK_ENDS = ("]]", "|", "\\|", "#")
# Every `[[`, overlapping ones included ("[[[[x]]"), with what follows it up to a character that may end a target.
_LINK_OPENING = re.compile(r"(?=\[\[([^\]|#\\]*))")
_TARGET_STOPS = frozenset("]|#\\")


def _linked(text: str, target: str) -> bool:
    return any(f"[[{target}{end}" in text for end in _LINK_ENDS)


def _link_targets(text: str) -> set[str]:
    """Every `target` free of `_TARGET_STOPS` for which `text` holds `[[target` and then one of `_LINK_ENDS`:
    `_linked` for all pages at once, in one pass over the text (a page citing many sources asks about
    hundreds of pages, and each ask searched the whole page)."""
    return {m.group(1) for m in _LINK_OPENING.finditer(text) if text.startswith(_LINK_ENDS, m.end(1))}


def see_also(
    body: str, page: str, sources: Iterable[str], members: Callable[[str], Sequence[str]],
    link_text: Callable[[str], str],
) -> list[str]:
    """The pages `page` lists under See also: for each of its `sources`, the members after it in the ring
    (`window`), each once, leaving out the pages its own text already links to."""
    outside = _outside_related(body)
    linked = _link_targets(outside)
    shown: dict[str, None] = {}  # in order, and asked about in constant time
    for source in sorted(set(sources)):
        for other in window(members(source), page):
            if other in shown:
                continue
            target = link_text(other)
            if target in linked if _TARGET_STOPS.isdisjoint(target) else _linked(outside, target):
                continue
            shown[other] = None
    return list(shown)
