"""source-sections: a page of several sources whose every section holds one source's claims, not all of them
the layout's.

Why: sections by source repeat the sources' order, not the subject's: a reader looking for a topic reads every
section.

Example: a page citing `raw/a.md` and `raw/b.md` with `## From a` holding only a's claims and `## From b` only b's.

Fix: regroup the claims under the sections of the page type's layout (a rebuild with `wikic ingest --force` does).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding, finding
from wikic.lint.page_text import PageText
from wikic.lint.rule import Rule
from wikic.lint.rules._pages import page_findings
from wikic.vault.model import Note
from wikic.vault.page_layout import CLAIMS, role_of
from wikic.vault.schema_md import Schema


def source_sections(ctx: LintContext) -> Iterator[Finding]:
    return page_findings(ctx, "source-sections")


def judge(path: str, page: PageText, note: Note, schema: Schema, kind: str | None) -> Iterator[Finding]:
    if not page.compiled:
        return
    held: list[tuple[str, set[str]]] = []
    for section in page.sections:
        if role_of(section.heading) != CLAIMS:
            continue
        sources = {s for c in page.claims if page.in_section(section, c.line) for s in c.sources}
        if sources:
            held.append((section.heading, sources))
    cited = {s for _, sources in held for s in sources}
    if len(held) < 2 or len(cited) < 2 or any(len(sources) > 1 for _, sources in held):
        return
    # the compiler files each claim under the layout's section for its topic: sections it lays out are
    # topic sections, however the sources happen to fall
    layout = schema.layout(kind or "")
    if all(layout.named(heading) is not None for heading, _ in held):
        return
    listed = "; ".join(f"{heading}: {posixpath.basename(next(iter(sources)))}" for heading, sources in held)
    yield finding(
        "source-sections",
        path,
        None,
        f"each of its {len(held)} sections holds the claims of one source ({listed}): sections by source, not "
        "by topic",
    )


RULE = Rule(
    "source-sections",
    "warning",
    "a page of several sources whose every section holds one source's claims, not all of them the layout's",
    needs_schema=True,
    check=source_sections,
    page=judge,
)
