"""ambiguous-link: a link whose name matches several files.

Why: a name that means several files leads wherever Obsidian's order of resolution happens to pick, not necessarily
where the writer meant.

Example: `[[setup]]` on a page of a vault holding `entities/setup.md` and `concepts/setup.md`.

Fix: write the folder (`[[concepts/setup]]`) or rename one of the files.
"""

from __future__ import annotations

from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.rule import Rule


def ambiguous(ctx: LintContext) -> Iterator[Finding]:
    for source in sorted(ctx.vault.notes):
        yield from ambiguous_at(ctx, source)


def ambiguous_at(ctx: LintContext, source: str) -> Iterator[Finding]:
    """The ambiguous links of one note."""
    for edge in ctx.edges_from(source):
        if edge.candidates:
            listed = ", ".join(edge.candidates[:5]) + (" ..." if len(edge.candidates) > 5 else "")
            yield ctx.finding(
                "ambiguous-link",
                source,
                edge.link.line,
                (
                    f"'{edge.link.target}' matches {len(edge.candidates)} files ({listed}); it resolves to "
                    f"'{edge.target}': write the path to be sure"
                ),
                column=edge.link.column,
                target=edge.link.target,
            )


RULE = Rule(
    "ambiguous-link",
    "warning",
    "a link whose name matches several files",
    needs_schema=False,
    check=ambiguous,
    at=ambiguous_at,
)
