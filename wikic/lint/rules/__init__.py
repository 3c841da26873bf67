"""The lint rules, one module a rule, and their order: the order they run in, and that of `--select`'s
names in the report when none is given. A rule is its module's `RULE`: its id, default severity, summary,
whether it needs SCHEMA.md, and its check; its module's docstring is its documentation (what it checks, why,
an example that fires, the fix), the rule's `doc`."""

from __future__ import annotations

import inspect
from dataclasses import replace

from wikic.errors import UsageError
from wikic.lint.rule import Rule
from wikic.lint.rules import (
    ambiguous_link,
    broken_wikilink,
    case_collision,
    confusable_name,
    contradiction,
    duplicate_page,
    encoding,
    frontmatter,
    index_gap,
    lead_drift,
    malformed_link,
    no_lead,
    ordinary_name,
    orphan_page,
    page_too_long,
    raw_drift,
    repeated_claim,
    source_sections,
    stale_page,
    thin_section,
    too_few_links,
    uncited_sentence,
    unsafe_name,
    unsafe_path,
    unsourced_alias,
)

RULES: dict[str, Rule] = {
    module.RULE.id: replace(module.RULE, doc=inspect.cleandoc(module.__doc__ or ""))
    for module in (
        encoding,
        unsafe_path,
        unsafe_name,
        case_collision,
        confusable_name,
        raw_drift,
        index_gap,
        lead_drift,
        broken_wikilink,
        orphan_page,
        ambiguous_link,
        malformed_link,
        too_few_links,
        no_lead,
        repeated_claim,
        uncited_sentence,
        thin_section,
        source_sections,
        frontmatter,
        stale_page,
        contradiction,
        page_too_long,
        duplicate_page,
        ordinary_name,
        unsourced_alias,
    )
}


def explain(rule_id: str) -> str:
    """A rule's documentation (`wikic lint --explain RULE`): its id and default severity, then what it checks,
    why, an example that fires and the fix."""
    rule = RULES.get(rule_id)
    if rule is None:
        raise UsageError(f"unknown rule: {rule_id}", hint=f"known rules: {', '.join(sorted(RULES))}")
    return f"{rule.id} (default: {rule.severity})\n\n{rule.doc.split(': ', 1)[1]}\n"
