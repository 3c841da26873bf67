"""too-few-links: a subject page with fewer outbound links than min_outbound_links.

Why: a subject page linking to no other is a dead end for a reader going on from it.

Example: `entities/acme.md` linking to no other subject page, where SCHEMA.md's `min_outbound_links` is 2 (the
default).

Fix: link the subjects the page mentions (an ingest links the names it knows), or lower the threshold.
"""

from __future__ import annotations

from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.rule import Rule
from wikic.vault.graph import outbound, outbound_minimum


def too_few_links(ctx: LintContext) -> Iterator[Finding]:
    pages = frozenset(ctx.subject_pages)
    for page in ctx.subject_pages:
        yield from _at(ctx, page, pages)


def too_few_links_at(ctx: LintContext, path: str) -> Iterator[Finding]:
    pages = ctx.__dict__.get("_subject_set")
    if pages is None:
        pages = ctx.__dict__["_subject_set"] = frozenset(ctx.subject_pages)
    if path in pages:
        yield from _at(ctx, path, pages)


def _at(ctx: LintContext, page: str, pages: frozenset[str]) -> Iterator[Finding]:
    asked = ctx.schema.thresholds["min_outbound_links"]
    minimum = outbound_minimum(asked, len(pages))
    if minimum <= 0:
        return
    targets = outbound(ctx.links, page, pages)
    if len(targets) < minimum:
        yield ctx.finding(
            "too-few-links",
            page,
            None,
            f"links to {len(targets)} other wiki page(s); SCHEMA.md asks for at least {asked}"
            + (f" (here {minimum}: the wiki has {len(pages)} pages)" if minimum < asked else ""),
        )


RULE = Rule(
    "too-few-links",
    "warning",
    "a subject page with fewer outbound links than min_outbound_links",
    needs_schema=True,
    check=too_few_links,
    at=too_few_links_at,
)
