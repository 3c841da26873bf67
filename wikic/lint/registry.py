"""Named rules with default severities, registered by decorator (markdown-it's Ruler, in miniature)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wikic.lint.context import LintContext
    from wikic.lint.finding import Finding

RuleFn = Callable[["LintContext"], Iterable["Finding"]]


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str  # default severity of its findings
    summary: str
    needs_schema: bool  # skipped on a plain Obsidian vault (no SCHEMA.md)
    fn: RuleFn


RULES: dict[str, Rule] = {}

CORE_RULES = ("orphan-page", "broken-wikilink", "index-gap", "frontmatter", "stale-page", "contradiction")
# What a reader of a compiled page trips over (`rules_page.py`): `wikic status` counts them apart.
PAGE_RULES = ("no-lead", "repeated-claim", "uncited-sentence", "thin-section", "source-sections")


def rule(rule_id: str, severity: str, summary: str, *, needs_schema: bool = False) -> Callable[[RuleFn], RuleFn]:
    def register(fn: RuleFn) -> RuleFn:
        RULES[rule_id] = Rule(rule_id, severity, summary, needs_schema, fn)
        return fn

    return register
