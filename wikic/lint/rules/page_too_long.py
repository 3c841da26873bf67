"""page-too-long: a page longer than max_page_lines (split it).

Why: a very long page is hard to read and costs the model and the search index more on every use.

Example: a concept page of 900 lines where SCHEMA.md sets `max_page_lines: 500`.

Fix: split the page by subject, or raise the threshold in SCHEMA.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding

if TYPE_CHECKING:
    pass
from wikic.lint.rule import Rule


def too_long(ctx: LintContext) -> Iterator[Finding]:
    yield from ctx.problems("page-too-long")
    for path in ctx.pages:
        yield from _long(ctx, path)


def too_long_at(ctx: LintContext, path: str) -> Iterator[Finding]:
    yield from ctx.problems_at("page-too-long", path)
    if ctx.is_page(path):
        yield from _long(ctx, path)


def _long(ctx: LintContext, path: str) -> Iterator[Finding]:
    if not ctx.schema.present:
        return
    limit = ctx.schema.thresholds["max_page_lines"]
    lines = ctx.vault.notes[path].line_count
    if limit and lines > limit:
        yield ctx.finding(
            "page-too-long", path, None, f"page has {lines} lines; SCHEMA.md's max_page_lines is {limit}"
        )


RULE = Rule(
    "page-too-long",
    "warning",
    "a page longer than max_page_lines (split it)",
    needs_schema=False,
    check=too_long,
    at=too_long_at,
)
