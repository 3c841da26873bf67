"""Pages built on the same raw source link to each other: the "See also" line of a page's `related:`
block for that source.

The pages that cite a raw file (its *members*) are kept in path order as a ring, and each lists the next
few (MAX_SEE_ALSO) after it; so every member is linked from the members before it, however many the source
yielded, and a member is linked both ways whenever the source has at most MAX_SEE_ALSO + 1 pages. A page
already linked from the page's own text, or listed for another of its sources, is not listed again.

The relation does not depend on when the pages were written: a page promoted from the mentions ledger
with what an earlier source said joins that source's members, and the members written earlier get a
link to it. The line sits in the compiler's `related:<source>` block, after the relations of that
source; a block a person edited is left alone (see `wikic/pages/blocks.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from wikic.pages.blocks import block_keys, digest, find_block, merge_blocks, remove_block
from wikic.pages.render import link
from wikic.vault import frontmatter as fm_parser
from wikic.vault.markers import begin_prefix

SEE_ALSO = "- See also: "
MAX_SEE_ALSO = 6
RELATED_SECTION = "Related"


def related_key(source: str) -> str:
    return f"related:{source}"


def window(members: list[str], page: str, size: int = MAX_SEE_ALSO) -> list[str]:
    """The members after `page` in the ring of `members` (sorted), at most `size` of them."""
    if page not in members:
        return []
    i = members.index(page)
    n = len(members)
    return [members[(i + j) % n] for j in range(1, min(size, n - 1) + 1)]


def _outside_related(body: str) -> str:
    """`body` without the compiler's `related:` blocks: the text whose links make a See also redundant."""
    for key in block_keys(body):
        if key.startswith("related:"):
            found = find_block(body, key)
            if found is not None:
                body = body[: found[0]] + body[found[1] :]
    return body


def _linked(text: str, target: str) -> bool:
    return any(f"[[{target}{end}" in text for end in ("]]", "|", "\\|", "#"))


def with_see_also(
    text: str,
    page: str,
    sources: Iterable[str],
    members: Callable[[str], list[str]],
    link_text: Callable[[str], str],
    title: Callable[[str], str | None],
) -> tuple[str, list[str]]:
    """`text` of `page` with the See also line of each of its `sources` rebuilt from `members(source)`.

    Returns the new text and the keys of blocks left alone because a person edited them.
    """
    split = fm_parser.split(text)
    lines = text.split("\n")
    head = "\n".join(lines[: split.block_lines]) + "\n" if split.block_lines else ""
    body = "\n".join(lines[split.block_lines :])
    outside = _outside_related(body)
    shown: set[str] = set()
    kept: list[str] = []
    for source in sorted(set(sources)):
        others = [p for p in window(members(source), page) if p not in shown and not _linked(outside, link_text(p))]
        shown.update(others)
        key = related_key(source)
        if not others and begin_prefix(key) not in body:
            continue  # nothing to list, nothing listed before
        found = find_block(body, key)
        if found is not None and digest(found[3]) != found[2]:
            kept.append(key)
            continue
        current = found[3].split("\n") if found is not None else []
        keep = [line for line in current if line.strip() and not line.startswith(SEE_ALSO)]
        if others:
            keep.append(SEE_ALSO + ", ".join(link(link_text(p), title(p)) for p in others))
        if keep:
            body = merge_blocks(body, [(key, "\n".join(keep), RELATED_SECTION)]).text
        elif found is not None:
            body, _ = remove_block(body, key)
    return head + body, kept
