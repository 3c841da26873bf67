"""case-collision: two files whose paths differ only in case (they collide on macOS and Windows).

Why: macOS and Windows file systems fold case: a clone there keeps one file of the two, and links resolve
differently.

Example: `entities/OpenAI.md` beside `entities/openai.md`.

Fix: merge the two pages or rename one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.rule import Rule
from wikic.vault.resolve import fold_name


def case_collision(ctx: LintContext) -> Iterator[Finding]:
    yield from collisions(ctx, sorted(ctx.vault.files))


def collisions(ctx: LintContext, paths: Iterable[str]) -> Iterator[Finding]:
    """The findings among `paths` (in path order): each path after the first of those that fold alike."""
    seen: dict[str, str] = {}
    for path in paths:
        key = fold_name(path)
        if key in seen:
            yield ctx.finding(
                "case-collision",
                path,
                None,
                f"differs from '{seen[key]}' only in case: the two collide on macOS and Windows",
                target=seen[key],
            )
        else:
            seen[key] = path


RULE = Rule(
    "case-collision",
    "error",
    "two files whose paths differ only in case (they collide on macOS and Windows)",
    needs_schema=False,
    check=case_collision,
)
