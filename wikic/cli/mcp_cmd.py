"""`wikic mcp`: serve the vault to MCP clients (Claude Code, Cursor...) over stdio, or HTTP on 127.0.0.1.

Example: claude mcp add wikic -- wikic mcp --vault /path/to/wiki
"""

from __future__ import annotations

from typing import Annotated

import typer

from wikic.cli._common import VaultDir, resolve_vault, translate_errors
from wikic.vault.layout import require_vault


def register(app: typer.Typer) -> None:
    @app.command("mcp")
    @translate_errors
    def mcp_command(
        http: Annotated[
            int | None,
            typer.Option(
                "--http",
                metavar="PORT",
                min=1,
                max=65535,
                help="Serve streamable HTTP on 127.0.0.1:PORT (path /mcp) instead of stdio.",
            ),
        ] = None,
        vault: VaultDir = None,
    ) -> None:
        """Serve the vault to MCP clients (Claude Code, Cursor...).

        Tools: search, read_page, list_pages, query, ingest, lint, status and file_note (capture into raw/
        for a later ingest). Read-only tools are marked readOnlyHint. Stdio by default: the client starts
        this command itself; --http PORT serves streamable HTTP on 127.0.0.1 instead.

        Example: claude mcp add wikic -- wikic mcp --vault /path/to/wiki
        """
        root = resolve_vault(vault)
        require_vault(root)  # before the MCP SDK is imported: a wrong folder is said at once
        from wikic.mcp_server import serve

        if http is not None:  # the server itself only logs warnings and errors
            typer.echo(f"Serving {root} on http://127.0.0.1:{http}/mcp (Ctrl-C stops)", err=True)
        serve(root, http_port=http)
