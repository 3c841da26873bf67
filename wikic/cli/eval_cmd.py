"""`wikic eval`: how good the vault is, per page and whole, checked by code (no model)."""

from __future__ import annotations

from typing import Annotated

import typer

from wikic.cli._common import VaultDir, resolve_vault, translate_errors
from wikic.cli._output import say
from wikic.errors import UsageError


def register(app: typer.Typer) -> None:
    @app.command("eval")
    @translate_errors
    def eval_command(
        vault: VaultDir = None,
        fmt: Annotated[
            str, typer.Option("--format", "-f", metavar="FORMAT", help="text, json or markdown.")
        ] = "text",
        json_output: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
        page: Annotated[
            str | None,
            typer.Option("--page", metavar="PAGE", help="Show this page's figures (its path, file name or title)."),
        ] = None,
        min_score: Annotated[
            float | None,
            typer.Option("--min-score", metavar="N", min=0, max=100,
                         help="Exit 1 when the vault's health score is below N (for CI)."),
        ] = None,
        out: Annotated[
            str | None,
            typer.Option("--out", "-o", metavar="FILE",
                         help="Write the report to FILE inside the vault (not raw/, .wikic/ or a page folder)."),
        ] = None,
    ) -> None:
        """Report how good the wiki is, for the vault and each page, from files alone (no model call).

        Sentences cited, claims anchored, every anchor checked again against raw/ as it is now (drifted: its
        lines are gone or its source was edited since capture), specifics stated by their quotes, leads,
        sections in the layout, links resolving, orphans, names waiting, open contradictions, what the runs
        refused by reason, and one health score out of 100 (docs/eval.md gives its formula).

        Exit code 0, or 1 when --min-score N is given and the vault scores below N; 2 on a usage error.

        Example: wikic eval --vault my-wiki --format markdown --out reports/eval.md
        """
        from wikic.context import VaultContext
        from wikic.evaluation import EvalOptions, evaluate, render, save_report
        from wikic.evaluation.render import FORMATS

        if json_output and fmt not in ("text", "json"):
            raise UsageError(f"--json and --format {fmt} do not go together", hint="--json is --format json: give one")
        fmt = "json" if json_output else fmt
        if fmt not in FORMATS:
            raise UsageError(f"unknown format '{fmt}'", hint=f"use one of: {', '.join(FORMATS)}")
        report = evaluate(VaultContext(resolve_vault(vault)), EvalOptions(page=page, out=out))
        text = render(report, fmt)
        if report.out is not None:
            say(f"wrote {save_report(report, text)}", err=True)
        else:
            say(text, as_json=fmt == "json")
        raise typer.Exit(1 if min_score is not None and report.below(min_score) else 0)
