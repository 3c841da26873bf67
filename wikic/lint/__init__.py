"""`wikic lint`: deterministic checks over the vault's link graph (rules and output: README, `wikic lint`).

Lint, in detail:

`run_lint` walks the vault, and if nothing changed since the last run (paths, sizes, mtimes, options, date)
returns the cached report. Otherwise it loads the vault, builds the link graph (`vault/graph.py`)
and runs the rules over a `LintContext`: one module a rule under `rules/`, each defining its `RULE`, listed
in the order they run in `rules/__init__.py` (what a rule is: `rule.py`). Rules yield `Finding`s (data); severities
come from the
rule, then SCHEMA.md's `## Lint`; renderers (`render.py`) print text, JSON, SARIF or GitHub annotations;
`fix.py` plans only safe repairs and shows them as diffs. The page rules (`rules/no_lead.py` and the four beside it: a
lead, a claim stated
twice, a sentence with no anchor, a thin section, sections by source) read each page once through `page_text.py`
(its title, `##` sections, compiler blocks and statements, each with its line) and compare claims as the
compiler merges them (`facts/same_fact.py`). A page rule judges a page from the page alone, so what they found
on an unchanged page is kept in `.wikic/cache/page-rules.json` (`judgements.py`, keyed by size + mtime, for one
SCHEMA.md, one set of page rules and one version): after one page is edited, the others are not read again.
The "did you mean" names `broken-wikilink` offers depend on the link's target and the page names alone, so
they are kept too (`close_names.py`, `.wikic/cache/close-names.json`, for one set of page names and one
version; after pages are added or removed, for the targets none of their names is near). The rules that judge
one page at a time from a few files (`broken-wikilink`, `frontmatter`, `stale-page`, `ordinary-name`,
`unsourced-alias`: `rule.KEPT_RULES`) keep each page's findings (`kept_findings.py`,
`.wikic/cache/rule-*.json`), with the listing of the files the run saw (`.wikic/cache/lint-files`): the next
lint judges again only the pages that changed or that read a file that did (a heading linked into, a raw
source cited, where a link lands after a file was added or removed). `--fix` lints and plans under the vault
lock, from
the vault as it is then, and hands the repairs to `pages` (through the journal), so it never writes over
what a concurrent ingest or saved answer just wrote.
"""

from wikic.lint.finding import Finding
from wikic.lint.run import LintOptions, LintReport, run_lint

__all__ = ["Finding", "LintOptions", "LintReport", "run_lint"]
