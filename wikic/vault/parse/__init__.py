"""Parse one note: frontmatter, links (with exact line and column), headings, block ids, problems.

    note = parse_note("entities/x.md", data)     # note.py: the entry point

Two scanners produce the same result. `fast.py` is a handful of regular expressions for pages that hold
nothing that can hide a link; `mask.py` blanks out code, math, comments, escapes and references exactly as
markdown-it reads them, so more pages qualify; `reference.py` is markdown-it with Obsidian's own rules, for
every other page and as the oracle property tests hold the fast path to (`link_helpers.py`: markdown-it's link
readers, the same results in less time on text full of brackets).
"""

from wikic.vault.parse.fast import (
    ATX,
    SCHEME,
    SIMPLE_MDLINK,
    WIKI_RE,
    atx_headings,
    fast_eligible,
    plain_tables,
    scan_fast,
    split_target,
)
from wikic.vault.parse.mask import mask_markup
from wikic.vault.parse.note import BLOCK_ID, FM_WIKI, MAX_PAGE_BYTES, decode, parse_note
from wikic.vault.parse.reference import scan_full

__all__ = [
    "ATX",
    "BLOCK_ID",
    "FM_WIKI",
    "MAX_PAGE_BYTES",
    "SCHEME",
    "SIMPLE_MDLINK",
    "WIKI_RE",
    "atx_headings",
    "decode",
    "fast_eligible",
    "mask_markup",
    "parse_note",
    "plain_tables",
    "scan_fast",
    "scan_full",
    "split_target",
]
