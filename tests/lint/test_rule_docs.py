"""Each lint rule carries its documentation (what it checks, why, an example that fires, the fix), `wikic lint
--explain RULE` shows it, and the README's rule table lists exactly the registry's rules with their default
severities."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wikic.cli import app
from wikic.lint.rules import RULES

README = Path(__file__).resolve().parents[2] / "README.md"


def _readme_rules() -> dict[str, str]:
    """rule id -> default severity, as the README's table of rules (`| rule | default | finding |`) says."""
    lines = README.read_text(encoding="utf-8").splitlines()
    start = lines.index("| rule | default | finding |")
    table: dict[str, str] = {}
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        found = re.match(r"\| `([a-z-]+)` \| (\w+) \|", line)
        assert found, f"a row of the README's rule table that does not read as one: {line[:80]}"
        assert found[1] not in table, f"{found[1]} is in the README's rule table twice"
        table[found[1]] = found[2]
    return table


def test_the_readmes_rule_table_is_the_registry() -> None:
    assert _readme_rules() == {rule.id: rule.severity for rule in RULES.values()}


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_every_rule_says_what_why_an_example_and_the_fix(rule_id: str) -> None:
    doc = RULES[rule_id].doc
    assert doc.startswith(f"{rule_id}: "), doc[:80]
    parts = [p for p in doc.split("\n\n") if p.startswith(("Why: ", "Example: ", "Fix: "))]
    assert [p.split(":", 1)[0] for p in parts] == ["Why", "Example", "Fix"], doc
    assert all(len(p.split(": ", 1)[1]) > 10 for p in parts), doc


def test_lint_explain_shows_a_rules_documentation() -> None:
    result = CliRunner().invoke(app, ["lint", "--explain", "orphan-page"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("orphan-page (default: warning)\n\na subject page no other subject page links to.")
    assert "\nWhy: " in result.output and "\nExample: " in result.output and "\nFix: " in result.output
    unknown = CliRunner().invoke(app, ["lint", "--explain", "orphan-pages"])
    assert unknown.exit_code == 2 and "unknown rule: orphan-pages" in unknown.output
