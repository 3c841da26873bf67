"""thin-section: a section of the page's layout holding fewer claims than min_section_claims.

Why: a section with no claim is a heading with nothing under it.

Example: `## Funding` of an entity page's layout holding no claim line.

Fix: ingest a source that says something for it, or lower `min_section_claims` in SCHEMA.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding, finding
from wikic.lint.page_text import PageText
from wikic.lint.rule import Rule
from wikic.lint.rules._pages import page_findings
from wikic.vault.model import Note
from wikic.vault.page_layout import CLAIMS, role_of
from wikic.vault.schema_md import Schema


def thin_section(ctx: LintContext) -> Iterator[Finding]:
    return page_findings(ctx, "thin-section")


def judge(path: str, page: PageText, note: Note, schema: Schema, kind: str | None) -> Iterator[Finding]:
    minimum = schema.thresholds["min_section_claims"]
    if minimum <= 0 or not page.compiled:
        return
    layout = schema.layout(kind or "")
    for section in page.sections:
        named = layout.named(section.heading)
        if named is None or role_of(named) != CLAIMS:
            continue
        held = len({c.id for c in page.claims if page.in_section(section, c.line)})
        if not held:  # a section a person rewrote without claim lines: what it cites counts
            held = sum(1 for s in page.statements(section.line + 1, section.end) if s.cited)
        if held < minimum:
            count = f"{held} claim{'' if held == 1 else 's'}" if held else "no claim"
            yield finding(
                "thin-section",
                path,
                section.line,
                f"'## {section.heading}' holds {count}; SCHEMA.md's min_section_claims is {minimum}",
            )


RULE = Rule(
    "thin-section",
    "warning",
    "a section of the page's layout holding fewer claims than min_section_claims",
    needs_schema=True,
    check=thin_section,
    page=judge,
)
