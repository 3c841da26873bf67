"""uncited-sentence: a sentence of compiler text with no anchor after it.

Why: every sentence the compiler writes cites its source: one with no anchor cannot be checked.

Example: `Acme makes anvils. It was founded in 1990. ^[raw/a.md]` under a section (the first sentence is uncited).

Fix: add the anchor after the sentence, or delete it.
"""

from __future__ import annotations

from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding, finding
from wikic.lint.page_text import PageText
from wikic.lint.rule import Rule
from wikic.lint.rules._pages import page_findings, said_briefly
from wikic.vault.model import Note
from wikic.vault.schema_md import Schema


def uncited_sentence(ctx: LintContext) -> Iterator[Finding]:
    return page_findings(ctx, "uncited-sentence")


def judge(path: str, page: PageText, note: Note, schema: Schema, kind: str | None) -> Iterator[Finding]:
    if not page.compiled:
        return
    for block in page.blocks:
        if not block.holds_statements:
            continue
        for said in page.statements(block.begin + 1, block.end - 1):
            if not said.cited:
                yield finding(
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
    page=judge,
)
