"""too-few-links: a subject page with fewer outbound links than min_outbound_links.

Why: a subject page linking to no other is a dead end for a reader going on from it.

Example: `entities/acme.md` linking to no other subject page, where SCHEMA.md's `min_outbound_links` is 2 (the
default).

Fix: link the subjects the page mentions (an ingest links the names it knows), or lower the threshold.
"""

from __future__ import annotations

from collections.abc import Container, Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.rule import Rule
from wikic.vault.graph import outbound, outbound_minimum


def too_few_links(ctx: LintContext) -> Iterator[Finding]:
    pages = frozenset(ctx.subject_pages)
    for page in ctx.subject_pages:
        yield from _at(ctx, page, pages, len(pages))


def too_few_links_at(ctx: LintContext, path: str) -> Iterator[Finding]:
    if ctx.is_subject(path):
        yield from _at(ctx, path, _Subjects(ctx), ctx.subject_count)


class _Subjects:
    """The subject pages, as a set that is asked only whether it holds a page (a few pages judged alone)."""

    def __init__(self, ctx: LintContext) -> None:
        self._ctx = ctx

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self._ctx.is_subject(path)


def _at(ctx: LintContext, page: str, subjects: Container[str], count: int) -> Iterator[Finding]:
    asked = ctx.schema.thresholds["min_outbound_links"]
    minimum = outbound_minimum(asked, count)
    if minimum <= 0:
        return
    targets = outbound(ctx.links, page, subjects)
    if len(targets) < minimum:
        yield ctx.finding(
            "too-few-links",
            page,
            None,
            f"links to {len(targets)} other wiki page(s); SCHEMA.md asks for at least {asked}"
            + (f" (here {minimum}: the wiki has {count} pages)" if minimum < asked else ""),
        )


RULE = Rule(
    "too-few-links",
    "warning",
    "a subject page with fewer outbound links than min_outbound_links",
    needs_schema=True,
    check=too_few_links,
    at=too_few_links_at,
)
