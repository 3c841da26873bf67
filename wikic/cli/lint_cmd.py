"""`wikic lint [VAULT]`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wikic.cli._common import VaultDir, folder_path, translate_errors
from wikic.cli._output import say


def register(app: typer.Typer) -> None:
    @app.command("lint")
    @translate_errors
    def lint(
        paths: Annotated[
            list[Path] | None,
            typer.Argument(
                metavar="VAULT [FILE]", parser=folder_path, show_default=False,
                help="The vault folder (or use --vault), then files of it: the report is limited to their findings "
                "(the whole vault is still linted). A pre-commit hook passes the staged files.",
            ),
        ] = None,
        vault: VaultDir = None,
        changed: Annotated[
            bool,
            typer.Option(
                "--changed",
                help="Report only the findings on the files git sees changed since the last commit (staged, "
                "modified, new); every rule still reads the whole vault.",
            ),
        ] = False,
        fmt: Annotated[
            str, typer.Option("--format", "-f", metavar="FORMAT", help="text, json, sarif or github.")
        ] = "text",
        json_output: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
        strict: Annotated[
            bool | None,
            typer.Option(
                "--strict/--no-strict",
                help="Warnings fail too (exit 1). Default: [lint] strict in wikic.toml, else off.",
            ),
        ] = None,
        select: Annotated[
            list[str] | None,
            typer.Option("--select", metavar="RULES", help="Only these rules (comma-separated or repeated)."),
        ] = None,
        ignore: Annotated[
            list[str] | None,
            typer.Option("--ignore", metavar="RULES", help="Skip these rules (comma-separated or repeated)."),
        ] = None,
        fix: Annotated[
            bool,
            typer.Option(
                "--fix", help="Apply safe repairs (index entries, links whose page is unambiguous by title or alias)."
            ),
        ] = False,
        diff: Annotated[
            bool, typer.Option("--diff", help="Show the repairs --fix would make, change nothing.")
        ] = False,
        cache: Annotated[
            bool | None,
            typer.Option(
                "--cache/--no-cache",
                help=(
                    "Use and refresh the caches in .wikic/cache/ (default: in a wikic vault yes; in a folder without "
                    "SCHEMA.md no, so nothing is written there)."
                ),
            ),
        ] = None,
        as_of: Annotated[
            str | None,
            typer.Option(
                "--as-of", metavar="DATE", help="Judge staleness as of this date (YYYY-MM-DD) instead of today."
            ),
        ] = None,
        explain: Annotated[
            str | None,
            typer.Option(
                "--explain", metavar="RULE", help="Say what the rule checks, why, an example that fires, and the fix."
            ),
        ] = None,
    ) -> None:
        """Check the vault: broken links, orphans, index gaps, frontmatter and schema, stale pages, contradictions.

        Exit code 0 when no error-level finding (warnings allowed unless --strict), 1 when findings fail,
        2 on a usage or configuration error.

        Example: wikic lint example-vault --strict --format github
        """
        if explain is not None:
            from wikic.lint.rules import explain as explained

            say(explained(explain), nl=False)
            return
        # here, not at start-up: every command loads this module
        from wikic.cli.lint_report import lint_request, show_report
        from wikic.context import VaultContext
        from wikic.lint.run import run_lint

        asked = lint_request(paths or [], vault, changed=changed, fmt=fmt, json_output=json_output, strict=strict,
                             select=select, ignore=ignore, cache=cache, as_of=as_of)
        context = VaultContext(asked.root)
        if fix and not diff:
            from wikic.lint.fix import fix_vault

            fixed = fix_vault(context, asked.options, label=asked.label)
            for change in fixed.changes:
                say(f"fixed {change.path}", err=True)
            for path in fixed.skipped:
                say(
                    f"skipped {path}: it changed while the repairs were planned; run `wikic lint --fix` again", err=True
                )
            report = fixed.report
        else:
            report = run_lint(context, asked.options, label=asked.label)
        if diff:
            from wikic.lint.fix import plan_fixes

            changes = plan_fixes(context, report.findings)
            for change in changes:
                say(change.diff(), nl=False)
            if not changes:
                say("nothing to fix", err=True)
            raise typer.Exit(report.exit_code)  # a preview changes nothing, so the findings still stand
        show_report(report, asked.fmt)
        raise typer.Exit(report.exit_code)
