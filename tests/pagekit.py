"""Compiled pages built from their parts, for the page rules' tests (`from pagekit import claim, body`): a
claim line as the compiler writes it, a compiler block, a lead, a compiled entity page, and `BAD`, a Key
facts section holding a repeated claim and an uncited sentence.
"""

from __future__ import annotations

from wikic.pages.blocks import render_block
from wikic.vault.formats.claims import claim_id

A_CITE = "^[[[raw/articles/source-a.md|source-a.md]] L8]"
B_CITE = "^[[[raw/articles/source-b.md|source-b.md]] L8]"


def claim(text: str, *cites: str, quote: bool = False) -> str:
    """A claim line as the compiler writes it."""
    return f"{'> ' if quote else ''}- {text} {' '.join(cites or (A_CITE,))} ^{claim_id(text)}"


def block(key: str, *lines: str) -> str:
    return render_block(key, "\n".join(lines))


def body(*parts: str) -> str:
    return "\n".join(parts) + "\n"


LEAD = block("summary", "Acme is a database. " + A_CITE)


def compiled(*lines: str, key: str = "section:key-facts") -> str:
    """A compiled entity page: its lead, then one Key facts block holding `lines`."""
    return body("# Acme", "", LEAD, "", "## Key facts", "", block(key, *lines))


BAD = body("# Acme", "", "## Key facts", "", block("section:key-facts", claim("Acme is fast."), claim("Acme is fast."),
                                                   "- Acme is loved."), "", "## History", "")
