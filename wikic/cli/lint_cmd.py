"""`wikic lint [VAULT]`."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Annotated

import typer

from wikic.cli._common import VaultDir, folder_path, resolve_vault, translate_errors
from wikic.cli._output import say
from wikic.errors import UsageError


def _names(values: list[str] | None) -> tuple[str, ...]:
    return tuple(n.strip() for v in values or [] for n in v.split(",") if n.strip())


def split_paths(paths: list[Path], vault: Path | None) -> tuple[Path | None, list[Path]]:
    """(the vault given as the first argument, the files given after it, or after --vault): files that exist,
    and a vault given once."""
    vault_arg, files = (None, paths) if vault is not None else (paths[0] if paths else None, paths[1:])
    for path in files:
        if path.is_dir():
            raise UsageError(
                f"{path} is a folder: give one vault, either as the first argument or with --vault, then files of it",
                hint="wikic lint my-wiki, or wikic lint --vault my-wiki my-wiki/entities/acme.md",
            )
        if not path.exists():
            raise UsageError(f"no such file: {path}", hint="name files of the vault that exist")
    return vault_arg, files


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
        from wikic.lint.render import FORMATS, render  # here, not at start-up: every command loads this module
        from wikic.lint.run import LintOptions, run_lint
        from wikic.lint.scope import asked_about

        if explain is not None:
            from wikic.lint.rules import explain as explained

            say(explained(explain), nl=False)
            return

        vault_arg, files = split_paths(paths or [], vault)
        if json_output and fmt not in ("text", "json"):
            raise UsageError(f"--json and --format {fmt} do not go together", hint="--json is --format json: give one")
        fmt = "json" if json_output else fmt
        if fmt not in FORMATS:
            raise UsageError(f"unknown format '{fmt}'", hint=f"use one of: {', '.join(FORMATS)}")
        root = resolve_vault(vault_arg or vault)
        today = None
        if as_of is not None:
            try:
                today = dt.date.fromisoformat(as_of)
            except ValueError:
                raise UsageError(
                    f"--as-of must be a date YYYY-MM-DD, not '{as_of}'", hint="for example: --as-of 2026-11-29"
                ) from None
        options = LintOptions(select=_names(select), ignore=_names(ignore), strict=strict, use_cache=cache, today=today,
                              only=asked_about(root, files, changed))
        label = str(vault_arg or vault or root)
        from wikic.context import VaultContext

        context = VaultContext(root)
        if fix and not diff:
            from wikic.lint.fix import fix_vault

            fixed = fix_vault(context, options, label=label)
            for change in fixed.changes:
                say(f"fixed {change.path}", err=True)
            for path in fixed.skipped:
                say(
                    f"skipped {path}: it changed while the repairs were planned; run `wikic lint --fix` again", err=True
                )
            report = fixed.report
        else:
            report = run_lint(context, options, label=label)
        if diff:
            from wikic.lint.fix import plan_fixes

            changes = plan_fixes(context, report.findings)
            for change in changes:
                say(change.diff(), nl=False)
            if not changes:
                say("nothing to fix", err=True)
            raise typer.Exit(report.exit_code)  # a preview changes nothing, so the findings still stand
        out = render(report, fmt)
        if out:
            say(out, as_json=fmt in ("json", "sarif"))
        raise typer.Exit(report.exit_code)
