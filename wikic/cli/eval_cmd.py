"""`wikic eval`: how good the vault is, per page and whole, checked by code (no model)."""

from __future__ import annotations

import json
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
        judge: Annotated[
            bool, typer.Option("--judge", help="The [llm] model judges each claim and cited sentence "
                                               "against its quotes first; its verdicts are kept in .wikic/.")
        ] = False,
        sample: Annotated[
            int | None,
            typer.Option("--sample", metavar="N", min=1, help="With --judge: judge N of them, drawn at random "
                                                               "(seeded), and give the rate's 95 % interval."),
        ] = None,
        calibrate: Annotated[
            bool, typer.Option("--calibrate", help="Measure the judge on the labelled claim-quote pairs shipped "
                                                   "with wikic, and report its accuracy per label.")
        ] = False,
        model: Annotated[
            str | None, typer.Option("--model", metavar="NAME", help="The judge's model (overrides [llm] model).")
        ] = None,
        base_url: Annotated[
            str | None, typer.Option("--base-url", metavar="URL", help="The judge's OpenAI-compatible endpoint.")
        ] = None,
    ) -> None:
        """Report how good the wiki is, for the vault and each page, from files alone (no model call).

        Sentences cited, claims anchored, every anchor checked again against raw/ as it is now (drifted: its
        lines are gone or its source was edited since capture), specifics stated by their quotes, leads,
        sections in the layout, links resolving, orphans, names waiting, open contradictions, what the runs
        refused by reason, and one health score out of 100 (docs/eval.md gives its formula).

        Exit code 0, or 1 when --min-score N is given and the vault scores below N; 2 on a usage error.

        --judge asks a model whether each claim and cited sentence says what its quotes say (--sample N: N of
        them); the support rate is shown with its 95 % interval and the judge's accuracy from --calibrate.

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
        overrides = {key: value for key, value in {"model": model, "base_url": base_url}.items() if value is not None}
        if sample is not None and not judge:
            raise UsageError("--sample goes with --judge", hint="wikic eval --judge --sample 40")
        if calibrate:
            from wikic.evaluation.judge import calibrate as run_calibration
            from wikic.evaluation.render import render_calibration

            result = run_calibration(VaultContext(resolve_vault(vault), overrides))
            say(json.dumps(result.to_dict(), indent=2) if fmt == "json" else render_calibration(result),
                as_json=fmt == "json")
            raise typer.Exit(0)
        report = evaluate(VaultContext(resolve_vault(vault), overrides),
                          EvalOptions(page=page, out=out, judge=judge, sample=sample))
        text = render(report, fmt)
        if report.out is not None:
            say(f"wrote {save_report(report, text)}", err=True)
        else:
            say(text, as_json=fmt == "json")
        raise typer.Exit(1 if min_score is not None and report.below(min_score) else 0)
