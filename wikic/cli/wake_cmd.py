"""`wikic wake-up`: the briefing a new assistant session starts with, built from the pages (no model call).

Example: wikic wake-up --budget 900 --vault my-wiki
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import typer

from wikic.cli._common import VaultDir, resolve_vault, translate_errors
from wikic.cli._output import say, say_json


def register(app: typer.Typer) -> None:
    @app.command("wake-up")
    @translate_errors
    def wake_up_command(
        budget: Annotated[
            int,
            typer.Option(
                "--budget", metavar="TOKENS", min=20, help="The most tokens the briefing may take (20 or more)."
            ),
        ] = 900,
        project: Annotated[
            str | None,
            typer.Option("--project", metavar="NAME", help="Brief on this project (a page with memories) alone."),
        ] = None,
        as_of: Annotated[
            str | None,
            typer.Option("--as-of", metavar="YYYY-MM-DD", help="Rank recency as of this day (default: today)."),
        ] = None,
        overview: Annotated[
            bool,
            typer.Option("--overview", help="Add what the wiki covers and its main subjects (from overview.md)."),
        ] = False,
        json_output: Annotated[bool, typer.Option("--json", help="Print the briefing and its parts as JSON.")] = False,
        vault: VaultDir = None,
    ) -> None:
        """Print what a new assistant session needs to know, within a token budget.

        Who the user is (identity.md), with --overview what the wiki covers and its main subjects, their
        instructions and preferences, the active projects with their latest decisions, then the most important
        recent memories; each with the [[link]] of its page.
        Built by code from the pages: no model is called, and the same vault gives the same briefing.

        Example: wikic wake-up --budget 900 --vault my-wiki
        """
        from wikic.context import VaultContext
        from wikic.errors import UsageError
        from wikic.memory.briefing import wake_up

        try:
            day = dt.date.fromisoformat(as_of) if as_of is not None else None
        except ValueError:
            raise UsageError(
                f"--as-of must be a date YYYY-MM-DD, not {as_of!r}", hint="for example: --as-of 2026-12-01"
            ) from None
        context = VaultContext(resolve_vault(vault))
        briefing = wake_up(context, budget=budget, project=project, as_of=day, overview=overview)
        if json_output:
            say_json(briefing.to_dict())
        else:
            say(briefing.text, nl=False)
