"""What the rules broken-wikilink, index-gap share."""

from __future__ import annotations

from wikic.lint.context import LintContext
from wikic.vault.frontmatter import unwrap_link


def hub_source(ctx: LintContext, page: str) -> str | None:
    """The raw file a source page is the page of (the first of its `sources`)."""
    listed = (ctx.vault.notes[page].frontmatter or {}).get("sources") if page in ctx.vault.notes else None
    first = listed[0] if isinstance(listed, list) and listed and isinstance(listed[0], str) else None
    return unwrap_link(first) if first else None
