"""malformed-link: unclosed '[[', code fence or '%%' comment, or an empty link."""

from __future__ import annotations

from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.rule import Rule


def malformed(ctx: LintContext) -> Iterator[Finding]:
    yield from ctx.problems("malformed-link")


RULE = Rule(
    "malformed-link",
    "warning",
    "unclosed '[[', code fence or '%%' comment, or an empty link",
    needs_schema=False,
    check=malformed,
)
