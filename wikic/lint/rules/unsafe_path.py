"""unsafe-path: a symbolic link leading outside the vault, or a file that cannot be read.

Why: wikic never reads outside the vault or opens a device: what it cannot read, it cannot lint or index.

Example: `entities/secret.md` a symbolic link to `/etc/passwd`, or a named pipe in `raw/`.

Fix: replace the link by the file itself, or remove it.
"""

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
    at=lambda ctx, path: ctx.problems_at("unsafe-path", path),
)
