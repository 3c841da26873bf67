"""too-few-links: a subject page with fewer outbound links than min_outbound_links."""

from __future__ import annotations

from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.rule import Rule


def too_few_links(ctx: LintContext) -> Iterator[Finding]:
    pages = frozenset(ctx.subject_pages)  # a hub leads to pages and is led to: a link to one is no subject's
    # a page cannot link to more other pages than the wiki has (a wiki of one page links to none)
    asked = ctx.schema.thresholds["min_outbound_links"]
    minimum = min(asked, len(pages) - 1)
    if minimum <= 0:
        return
    for page in ctx.subject_pages:
        targets = {e.target for e in ctx.edges_from(page) if e.target in pages and e.target != page}
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
)
