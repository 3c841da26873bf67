"""duplicate-page: two pages with the same title or alias.

Why: two pages for one subject split what is known of it, and a link by that name means either.

Example: `entities/openai.md` titled `OpenAI` and `entities/open-ai.md` with the alias `OpenAI`.

Fix: merge the pages, or drop the alias or title the two share.
"""

from __future__ import annotations

from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.rule import Rule


def duplicates(ctx: LintContext) -> Iterator[Finding]:
    for name, pages in sorted(ctx.names.items()):
        yield from named_alike(ctx, name, pages)


def named_alike(ctx: LintContext, name: str, pages: list[str]) -> Iterator[Finding]:
    """The findings of the pages carrying the title or alias `name` (folded), when more than one does."""
    unique = sorted(set(pages))
    if len(unique) > 1:
        for page in unique:
            others = ", ".join(p for p in unique if p != page)
            yield ctx.finding(
                "duplicate-page",
                page,
                None,
                f"title or alias '{name}' is also used by {others}: merge them or rename one",
                target=name,
            )


RULE = Rule(
    "duplicate-page",
    "warning",
    "two pages with the same title or alias",
    needs_schema=True,
    check=duplicates,
)
