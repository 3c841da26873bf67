"""The lint rules, one module a rule, and their order: the order they run in, and that of `--select`'s
names in the report when none is given. A rule is its module's `RULE`: its id, default severity, summary,
whether it needs SCHEMA.md, and its check."""

from __future__ import annotations

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
    rule.id: rule
    for rule in (
        encoding.RULE,
        unsafe_path.RULE,
        unsafe_name.RULE,
        case_collision.RULE,
        confusable_name.RULE,
        raw_drift.RULE,
        index_gap.RULE,
        lead_drift.RULE,
        broken_wikilink.RULE,
        orphan_page.RULE,
        ambiguous_link.RULE,
        malformed_link.RULE,
        too_few_links.RULE,
        no_lead.RULE,
        repeated_claim.RULE,
        uncited_sentence.RULE,
        thin_section.RULE,
        source_sections.RULE,
        frontmatter.RULE,
        stale_page.RULE,
        contradiction.RULE,
        page_too_long.RULE,
        duplicate_page.RULE,
        ordinary_name.RULE,
        unsourced_alias.RULE,
    )
}
