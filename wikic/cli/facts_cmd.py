"""`wikic facts SUBJECT`: a subject's claims that held on a date, with their anchors.

Example: wikic facts "Acme" --as-of 2024-06-30
"""

from __future__ import annotations

from typing import Annotated

import typer

from wikic.cli._common import VaultDir, resolve_vault, translate_errors
from wikic.cli._output import say, say_json


def register(app: typer.Typer) -> None:
    @app.command("facts")
    @translate_errors
    def facts_command(
        subject: Annotated[str, typer.Argument(help="A page's title, one of its aliases, or its file name.")],
        as_of: Annotated[
            str | None,
            typer.Option("--as-of", metavar="DATE", help="YYYY, YYYY-MM or YYYY-MM-DD (default: today)."),
        ] = None,
        json_output: Annotated[bool, typer.Option("--json", help="Print the claims as JSON.")] = False,
        vault: VaultDir = None,
    ) -> None:
        """List what the wiki says held about SUBJECT on a date: its claims, each with the time it holds
        and the raw lines it comes from. Superseded claims answer for the dates they held; claims that
        contradict each other are both listed and marked. No model is called.

        Example: wikic facts "Acme" --as-of 2024-06-30
        """
        from wikic.context import VaultContext
        from wikic.facts.lookup import facts_for, render_facts

        context = VaultContext(resolve_vault(vault))
        answer = facts_for(context.root, context.schema, subject, as_of)
        if json_output:
            say_json(answer.to_dict())
        else:
            say(render_facts(answer))
