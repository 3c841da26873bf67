"""lead-drift: a subject page whose frontmatter `summary` no longer says what its lead says. A person edited the
lead, and the summary (with index.md's entry, the overview and the source pages, which show the lead) still
says the old words until the page is compiled again. `--fix` makes them follow the lead (`fix.py`). A lead
block as the compiler wrote it (its body still hashes to its marker's `sha`) was written with its summary, and
is not read further.

Why: the summary is what the index, the overview and the source pages show of a page: after an edit of the lead they
show words the page no longer says.

Example: a person rewrote the lead of `entities/acme.md` to say it makes rockets; its `summary:` still says anvils.

Fix: `wikic lint --fix` makes the summary (and what shows it) follow the lead.
"""

from __future__ import annotations

from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding, Fix, finding
from wikic.lint.page_text import PageText
from wikic.lint.rule import Rule
from wikic.lint.rules._pages import page_findings, said_briefly
from wikic.pages.blocks import digest
from wikic.vault.formats.markers import BEGIN
from wikic.vault.lead import drifted_summary
from wikic.vault.model import Note
from wikic.vault.schema_md import Schema


def lead_drift(ctx: LintContext) -> Iterator[Finding]:
    return page_findings(ctx, "lead-drift")


def judge(path: str, page: PageText, note: Note, schema: Schema, kind: str | None) -> Iterator[Finding]:
    block = page.lead_block()
    if note.frontmatter is None or block is None:
        return
    written = BEGIN.match(page.lines[block.begin - 1])
    if written is not None and digest("\n".join(page.lines[block.begin : block.end - 1])) == written.group(2):
        return  # the lead as the compiler wrote it, with the summary it wrote beside it: no one edited it
    lead = drifted_summary(note.frontmatter, "\n".join(page.lines[page.body_start - 1 :]))
    if lead is None:
        return
    said = note.frontmatter.get("summary")
    was = f"'{said_briefly(said, 40)}'" if isinstance(said, str) and said.strip() else "nothing"
    yield finding(
        "lead-drift",
        path,
        note.key_lines.get("summary") or block.begin,
        f"the summary says {was}, the lead '{said_briefly(lead, 40)}': index.md, the overview and the source "
        "pages still show the summary",
        fix=Fix("lead", path),
    )


RULE = Rule(
    "lead-drift",
    "warning",
    "a page whose summary (and index.md entry) no longer says what its lead says: the lead was edited",
    needs_schema=True,
    check=lead_drift,
    page=judge,
)
