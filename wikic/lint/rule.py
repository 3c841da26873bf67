"""What a lint rule is (its id, default severity, summary, whether it needs SCHEMA.md, its check and its
documentation), and the named groups of rules. The rules themselves, one module each, and their order:
`wikic/lint/rules/`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wikic.lint.context import LintContext
    from wikic.lint.finding import Finding
    from wikic.lint.page_text import PageText
    from wikic.vault.model import Note
    from wikic.vault.schema_md import Schema

Check = Callable[["LintContext"], Iterable["Finding"]]
# A page rule's judgement of one subject page: its path, its text, its note, SCHEMA.md and the page's type.
PageCheck = Callable[[str, "PageText", "Note", "Schema", "str | None"], Iterable["Finding"]]
# a rule's findings on one page of the vault, as its check gives them (`lint/changed.py`)
PageAt = Callable[["LintContext", str], Iterable["Finding"]]


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str  # default severity of its findings
    summary: str
    needs_schema: bool  # skipped on a plain Obsidian vault (no SCHEMA.md)
    check: Check
    # a page rule's judgement of one page (`rules/_pages.py`), which lint also runs where each page is parsed
    page: PageCheck | None = None
    # its findings on one page, for a rule that judges page by page: after a few pages were edited, lint judges
    # those (and the pages that read them) alone, the other pages' findings being the last lint's
    at: PageAt | None = None
    # what it checks, why, an example that fires and the fix: its module's docstring (`rules/__init__.py`)
    doc: str = ""


CORE_RULES = ("orphan-page", "broken-wikilink", "index-gap", "frontmatter", "stale-page", "contradiction")
# What a reader of a compiled page trips over (`rules/_pages.py`): `wikic status` counts them apart.
PAGE_RULES = ("no-lead", "repeated-claim", "uncited-sentence", "thin-section", "source-sections")
# Every rule that judges one page from the page alone (`rules/_pages.py`): those, and whether its summary
# still says what its lead says.
JUDGED_RULES = (*PAGE_RULES, "lead-drift")
# The rules that keep their findings on each page from one lint to the next (`kept_findings.py`): after a small
# change they judge only the pages it reaches.
KEPT_RULES = ("broken-wikilink", "frontmatter", "stale-page", "ordinary-name", "unsourced-alias")
