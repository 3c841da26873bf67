"""A search snippet shows what a reader of the page sees first: a composed page's prose, not the claims folded
under it (`> [!quote]- Claims`); a drawer of nothing but folded claims shows the claims, without callout syntax."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from testkit import page

COMPOSED = page("Brewing", type="concept", body=(
    "# Brewing\n\n## Ingredients\n\n"
    "Beer is brewed from malted barley, and hops add its bitterness. ^[raw/articles/notes.md:L3-L4]\n\n"
    "> [!quote]- Claims\n"
    "> - Beer is brewed from malted barley. ^[raw/articles/notes.md:L3] ^c1a2b3c4d\n"
    "> - Hops add bitterness. ^[raw/articles/notes.md:L4] ^c5e6f7a8b\n"
), sources=["raw/articles/notes.md"])
FOLDED_ONLY = page("Hops", body=(
    "# Hops\n\n## Facts\n\n> [!quote]- Claims\n"
    "> - Hops add bitterness to beer. ^[raw/articles/notes.md:L4] ^c9d8e7f6a\n"
), sources=["raw/articles/notes.md"])


def test_a_snippet_shows_the_prose_not_the_folded_claims(make_vault: Callable[..., Path]) -> None:
    from library import open_palace, sync

    from wikic.palace import search

    notes = "# Notes\n\nBeer is brewed from malted barley.\nHops add bitterness.\n"
    root = make_vault({"concepts/brewing.md": COMPOSED, "entities/hops.md": FOLDED_ONLY,
                       "raw/articles/notes.md": notes})
    sync(root)
    with open_palace(root) as palace:
        hits = {h.path: h.snippet for h in search(palace, "malted barley hops bitterness", k=5)}
    assert hits["concepts/brewing.md"] == "Beer is brewed from malted barley, and hops add its bitterness."
    assert hits["entities/hops.md"] == "- Hops add bitterness to beer."
