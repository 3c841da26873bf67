"""unsafe-path: a symbolic link leading outside the vault, or a file that cannot be read."""

from __future__ import annotations

from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.rule import Rule


def unsafe_path(ctx: LintContext) -> Iterator[Finding]:
    yield from ctx.problems("unsafe-path")


RULE = Rule(
    "unsafe-path",
    "error",
    "a symbolic link leading outside the vault, or a file that cannot be read",
    needs_schema=False,
    check=unsafe_path,
)
