"""encoding: a page that is not UTF-8 text, or a binary file where a page should be.

Why: a page that is not UTF-8 text is read by neither Obsidian nor wikic as its writer meant; a binary file is no
page.

Example: `entities/notes.md` saved as Latin-1 with an `é`, or a PNG renamed to `.md`.

Fix: save the page as UTF-8, or move the binary file out of the page folders.
"""

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
    at=lambda ctx, path: ctx.problems_at("encoding", path),
)
