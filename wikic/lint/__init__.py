"""`wikic lint`: deterministic checks over the vault's link graph (rules and output: README, `wikic lint`)."""

from wikic.lint.finding import Finding
from wikic.lint.run import LintOptions, LintReport, run_lint

__all__ = ["Finding", "LintOptions", "LintReport", "run_lint"]
