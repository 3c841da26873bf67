"""`wikic status`: pages per type, sources, palace, last operations, lint summary, token totals.

Example: wikic status --vault my-wiki
"""

from __future__ import annotations

from typing import Annotated

import typer

from wikic.cli._common import VaultDir, resolve_vault, translate_errors
from wikic.cli._output import say, say_json


def register(app: typer.Typer) -> None:
    @app.command("status")
    @translate_errors
    def status_command(
        recent: Annotated[
            int, typer.Option("--recent", "-n", metavar="N", min=0, help="How many recent log.md rows to show.")
        ] = 10,
        no_lint: Annotated[
            bool, typer.Option("--no-lint", help="Skip the lint summary (faster on a big vault).")
        ] = False,
        json_output: Annotated[bool, typer.Option("--json", help="Print the status as JSON.")] = False,
        vault: VaultDir = None,
    ) -> None:
        """Show what the vault holds and what it has cost.

        Pages per type, raw sources, the palace (size, embedding model), the last operations from log.md,
        a lint summary, and token totals summed from log.md. No model is called.

        Example: wikic status --vault my-wiki
        """
        from wikic.context import VaultContext
        from wikic.status import render_status, vault_status

        status = vault_status(VaultContext(resolve_vault(vault)), lint=not no_lint, recent=recent)
        if json_output:
            say_json(status.to_dict(), default=str)
        else:
            say(render_status(status))
