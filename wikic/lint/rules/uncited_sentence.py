"""uncited-sentence: a sentence of compiler text with no anchor after it."""

from __future__ import annotations

from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.rule import Rule
from wikic.lint.rules._pages import compiled_pages, said_briefly


def uncited_sentence(ctx: LintContext) -> Iterator[Finding]:
    for path, page in compiled_pages(ctx):
        for block in page.blocks:
            if not block.holds_statements:
                continue
            for said in page.statements(block.begin + 1, block.end - 1):
                if not said.cited:
                    yield ctx.finding(
                        "uncited-sentence",
                        path,
                        said.line,
                        f"'{said_briefly(said.text)}' carries no anchor: it rests on no quote of a source",
                        column=said.column,
                    )


RULE = Rule(
    "uncited-sentence",
    "warning",
    "a sentence of compiler text with no anchor after it",
    needs_schema=True,
    check=uncited_sentence,
)
