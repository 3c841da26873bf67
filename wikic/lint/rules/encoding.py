"""encoding: a page that is not UTF-8 text, or a binary file where a page should be."""

from __future__ import annotations

from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.rule import Rule


def encoding(ctx: LintContext) -> Iterator[Finding]:
    yield from ctx.problems("encoding")


RULE = Rule(
    "encoding",
    "error",
    "a page that is not UTF-8 text, or a binary file where a page should be",
    needs_schema=False,
    check=encoding,
)
