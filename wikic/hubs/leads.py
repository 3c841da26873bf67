"""A lead a person edited, followed wherever wikic shows it. The page's frontmatter `summary` says what its
lead says (`followed`); the hub plan of the page so changed (`plan.plan_hubs`, `changed`) rewrites its index.md
entry (the old summary is what code wrote there), the overview and the pages of its sources, which read the
lead from the page."""

from __future__ import annotations

from wikic.pages.frontmatter import dump_frontmatter
from wikic.vault.frontmatter import split_page
from wikic.vault.lead import drifted_summary


def followed(text: str) -> str:
    """The page `text` with its frontmatter `summary` saying what its lead says (`text` itself when it does,
    or when the page has no lead block or no frontmatter to hold it)."""
    data, body = split_page(text)
    lead = drifted_summary(data, body)
    if data is None or lead is None:
        return text
    return dump_frontmatter({**data, "summary": lead}) + body
