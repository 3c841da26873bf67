"""index-gap: every wiki page listed in index.md, and every index entry pointing at a page that exists."""

from __future__ import annotations

from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding, Fix
from wikic.lint.registry import rule
from wikic.vault.layout import INDEX_FILE


@rule("index-gap", "error", "a page missing from index.md, or an index.md entry to a missing page", needs_schema=True)
def index_gap(ctx: LintContext) -> Iterator[Finding]:
    index = ctx.vault.notes.get(INDEX_FILE)
    if index is None:
        if ctx.pages:
            yield ctx.finding(
                "index-gap",
                INDEX_FILE,
                None,
                "index.md is missing: no page is listed",
                fix=Fix("index-add", INDEX_FILE),
            )
        return
    listed: dict[str, int] = {}
    for edge in ctx.edges_from(INDEX_FILE):
        link = edge.link
        if edge.target is None:
            yield ctx.finding(
                "index-gap",
                INDEX_FILE,
                link.line,
                f"index entry '{link.target}' points at a page that does not exist",
                column=link.column,
                target=link.target,
                fix=Fix("index-remove", INDEX_FILE, link.line, link.raw),
            )
            continue
        if edge.target in listed and ctx.is_page(edge.target) and edge.target != INDEX_FILE:
            yield ctx.finding(
                "index-gap",
                INDEX_FILE,
                link.line,
                f"'{edge.target}' is listed twice (first at line {listed[edge.target]})",
                column=link.column,
                target=link.target,
                severity="warning",
            )
        listed.setdefault(edge.target, link.line)
    for page in ctx.pages:
        if page not in listed:
            yield ctx.finding("index-gap", page, None, "page is not listed in index.md", fix=Fix("index-add", page))
