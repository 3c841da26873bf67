"""orphan-page: a subject page no other subject page links to.

Why: a page no other page links to is found only through index.md or search: links are how a reader goes from one
subject to the next.

Example: `entities/acme.md` exists and no entity, concept or comparison page has `[[acme]]` (index.md and the source
pages do).

Fix: link it from a page that mentions its subject (the compiler links mentions on the next ingest), or merge it
into one.
"""

from __future__ import annotations

from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.rule import Rule
from wikic.vault.graph import linked_from_subjects


def orphans(ctx: LintContext) -> Iterator[Finding]:
    # The hubs (index.md, overview.md, the source pages) link every page by construction: were their links
    # counted, no page with a source would ever be an orphan. And a vault with one subject page has nothing
    # to link it from.
    subjects = ctx.subject_pages
    if len(subjects) <= 1:
        return
    inbound = linked_from_subjects(ctx.links, subjects)
    for page in subjects:
        if page not in inbound:
            yield orphan(ctx, page)


def orphan(ctx: LintContext, page: str) -> Finding:
    return ctx.finding(
        "orphan-page",
        page,
        None,
        "no other wiki page links here (links from index.md, overview.md, the source pages, log.md and raw/ do not "
        "count)",
    )


RULE = Rule(
    "orphan-page",
    "warning",
    "a subject page no other subject page links to",
    needs_schema=False,
    check=orphans,
)
