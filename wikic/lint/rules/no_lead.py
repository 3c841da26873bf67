"""no-lead: a subject page that does not open with a lead saying what its subject is."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding, finding
from wikic.lint.page_text import PageText
from wikic.lint.rule import Rule
from wikic.lint.rules._pages import page_findings, said_briefly
from wikic.vault.model import Note
from wikic.vault.schema_md import Schema


def no_lead(ctx: LintContext) -> Iterator[Finding]:
    return page_findings(ctx, "no-lead")


def judge(path: str, page: PageText, note: Note, schema: Schema, kind: str | None) -> Iterator[Finding]:
    first = (page.title or page.body_start - 1) + 1
    last = next((s.line - 1 for s in page.sections if s.line >= first), len(page.lines))
    lead = page.lead_block()
    if lead is not None and lead.begin >= first and lead.end <= last and page.has_text(lead.begin, lead.end):
        return
    if page.has_paragraph(first, last):  # a paragraph of the person's own
        return
    opening = next((n for n in range(first, len(page.lines) + 1) if page.shown(n)), None)
    title = (note.frontmatter or {}).get("title") or posixpath.basename(path)[:-3]
    if opening is not None:
        where = f"opens with '{said_briefly(page.lines[opening - 1].strip(), 40)}'"
    else:
        where = "has nothing after its title" if page.title else "has no text"
    yield finding(
        "no-lead",
        path,
        opening if opening is not None else page.title,
        f"the page {where}, not a lead saying what {title} is (a summary block or a paragraph before the "
        "first '##' section)",
    )


RULE = Rule(
    "no-lead",
    "warning",
    "a subject page that does not open with a lead saying what its subject is",
    needs_schema=True,
    check=no_lead,
    page=judge,
)
