"""repeated-claim: one page stating the same claim twice.

Why: a claim stated twice on a page says nothing more and makes the page longer.

Example: `- Acme makes anvils ^[raw/a.md]` in both the summary's section and `## Products` of `entities/acme.md`.

Fix: delete the second line (the finding names the first).
"""

from __future__ import annotations

from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding, finding
from wikic.lint.page_text import PageText
from wikic.lint.rule import Rule
from wikic.lint.rules._pages import page_findings, said_briefly
from wikic.vault.formats.claims import Claim
from wikic.vault.model import Note
from wikic.vault.schema_md import Schema


def repeated_claim(ctx: LintContext) -> Iterator[Finding]:
    return page_findings(ctx, "repeated-claim")


def judge(path: str, page: PageText, note: Note, schema: Schema, kind: str | None) -> Iterator[Finding]:
    if not page.compiled:
        return
    from wikic.facts.same_fact import fact_keys  # its stemmers load only for a vault with compiled pages

    first_by_text: dict[str, Claim] = {}
    first_by_fact: dict[tuple[object, ...], Claim] = {}
    for claim in page.claims:
        words, fact = fact_keys(claim.text)
        earlier = [c for c in (first_by_text.get(words), first_by_fact.get(fact)) if c is not None]
        if earlier:
            first = min(earlier, key=lambda c: c.line or 0)
            yield finding(
                "repeated-claim",
                path,
                claim.line,
                f"states the claim of line {first.line} again: '{said_briefly(claim.text)}' (one line can carry "
                "every source's anchor)",
            )
        first_by_text.setdefault(words, claim)
        first_by_fact.setdefault(fact, claim)


RULE = Rule(
    "repeated-claim",
    "warning",
    "one page stating the same claim twice",
    needs_schema=True,
    check=repeated_claim,
    page=judge,
)
