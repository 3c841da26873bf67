"""malformed-link: unclosed '[[', code fence or '%%' comment, or an empty link.

Why: an unclosed `[[`, code fence or `%%` comment swallows the text after it, in Obsidian as in wikic.

Example: `See [[openai for more.` or `[[]]`.

Fix: close the link, fence or comment, or remove the empty link.
"""

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
    at=lambda ctx, path: ctx.problems_at("malformed-link", path),
)
