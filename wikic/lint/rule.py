"""What a lint rule is (its id, default severity, summary, whether it needs SCHEMA.md, and its check), and the
named groups of rules. The rules themselves, one module each, and their order: `wikic/lint/rules/`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wikic.lint.context import LintContext
    from wikic.lint.finding import Finding

Check = Callable[["LintContext"], Iterable["Finding"]]


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str  # default severity of its findings
    summary: str
    needs_schema: bool  # skipped on a plain Obsidian vault (no SCHEMA.md)
    check: Check


CORE_RULES = ("orphan-page", "broken-wikilink", "index-gap", "frontmatter", "stale-page", "contradiction")
# What a reader of a compiled page trips over (`rules/_pages.py`): `wikic status` counts them apart.
PAGE_RULES = ("no-lead", "repeated-claim", "uncited-sentence", "thin-section", "source-sections")
