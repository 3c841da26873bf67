"""`wikic serve`: keep the palace loaded so that `wikic search` answers at once."""

from __future__ import annotations

from typing import Annotated

import typer

from wikic.cli._common import VaultDir, resolve_vault, translate_errors
from wikic.cli._output import say
from wikic.cli._signals import terminated_as_interrupted


def register(app: typer.Typer) -> None:
    @app.command("serve")
    @translate_errors
    def serve_command(
        vault: VaultDir = None,
        idle: Annotated[
            float,
            typer.Option("--idle", metavar="SECONDS", min=0, max=7 * 86_400,
                         help="Stop after this long without a search (0: never; default 900)."),
        ] = 900.0,
    ) -> None:
        """Keep the palace loaded (its model and tables) and answer `wikic search` from it at once.

        A search that finds this server asks it over a socket in the vault's .wikic/ instead of loading the
        palace itself (seconds on a big vault): the same search, the same results. A search from another
        environment (WIKIC_* or OPENAI_* variables) or asking for model help (--rerank, --rewrite) runs in
        its own process as before; one finding wikic.toml or the user's config edited since the server
        started also stops it. Stops after --idle seconds without a search, on Ctrl-C (exit 130) or SIGTERM
        (exit 143). Exit code 2 when a server already answers for the vault.

        Example: wikic serve --vault ~/wiki --idle 3600 &
        """
        from wikic.context import VaultContext
        from wikic.search_server import serve

        root = resolve_vault(vault)

        def started(where: object) -> None:
            say(f"answering searches of {root} at {where} (Ctrl-C to stop)", err=True)

        def noted(line: str) -> None:
            say(f"wikic serve: {line}", err=True)

        with terminated_as_interrupted() as stop:
            try:
                with VaultContext(root) as context:
                    done = serve(context, idle=idle, ready=started, note=noted)
            except KeyboardInterrupt:
                say("stopped (SIGTERM)" if stop.terminated else "stopped", err=True)
                raise typer.Exit(stop.exit_code) from None
        say(f"stopped ({done.stopped}) after {done.answered} search(es)", err=True)
