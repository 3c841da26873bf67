"""no-lead: a subject page that does not open with a lead saying what its subject is.

Why: the lead is what a reader reads first and what the summary, the index and the overview show of the page.

Example: `# Acme` followed directly by `## History`.

Fix: write a paragraph saying what the subject is before the first `##` (an ingest of a source naming it writes
one).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding, finding
from wikic.lint.page_text import PageText
from wikic.lint.rule import Rule
from wikic.lint.rules._pages import page_findings, said_briefly
from wikic.vault.lead import plain_line
from wikic.vault.model import Note
from wikic.vault.names import names_in
from wikic.vault.schema_md import Schema


def no_lead(ctx: LintContext) -> Iterator[Finding]:
    return page_findings(ctx, "no-lead")


def judge(path: str, page: PageText, note: Note, schema: Schema, kind: str | None) -> Iterator[Finding]:
    first = (page.title or page.body_start - 1) + 1
    last = next((s.line - 1 for s in page.sections if s.line >= first), len(page.lines))
    lead = page.lead_block()
    if lead is not None and lead.begin >= first and lead.end <= last and page.has_text(lead.begin, lead.end):
        if kind != "comparison":  # a comparison's lead is its verdict, in the words of its subjects' sources
            yield from _unnamed(path, page, note, lead.begin, lead.end)
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



def _unnamed(path: str, page: PageText, note: Note, begin: int, end: int) -> Iterator[Finding]:
    """A compiled lead that does not name its page's subject (in any form of its title or an alias): a lead
    says what the subject is, so it names it ("Chroma is…"), not whatever sentence came first."""
    fm = note.frontmatter or {}
    title = fm.get("title") if isinstance(fm.get("title"), str) else posixpath.basename(path)[:-3]
    aliases = [a for a in fm.get("aliases") or [] if isinstance(a, str)] if isinstance(fm.get("aliases"), list) else []
    said = [page.lines[n - 1] for n in range(begin + 1, end) if page.shown(n) and not page.lines[n - 1].startswith(">")]
    text = plain_line("\n".join(said))
    if text and not names_in(text, str(title), aliases):
        line = next(n for n in range(begin + 1, end) if page.shown(n))
        yield finding("no-lead", path, line, f"the lead ('{said_briefly(text, 40)}') does not name {title}: a lead "
                      "says what its subject is")

RULE = Rule(
    "no-lead",
    "warning",
    "a subject page that does not open with a lead saying what its subject is",
    needs_schema=True,
    check=no_lead,
    page=judge,
)
