"""`wikic mcp`: serve the vault to MCP clients (Claude Code, Cursor...) over stdio, or HTTP on 127.0.0.1.

Example: claude mcp add wikic -- wikic mcp --vault /path/to/wiki
"""

from __future__ import annotations

from typing import Annotated

import typer

from wikic.cli._common import VaultDir, resolve_vault, translate_errors
from wikic.cli._output import say
from wikic.mcp_tools import READ_ONLY, TOOLS
from wikic.vault.layout import require_vault

_HELP = f"""Serve the vault to MCP clients (Claude Code, Cursor...).

Tools: {", ".join(name for name, _, _ in TOOLS)}. The read-only ones
({", ".join(name for name, kind, _ in TOOLS if kind == READ_ONLY)}) are marked readOnlyHint. Stdio by
default: the client starts this command itself; --http PORT serves streamable HTTP on 127.0.0.1 instead.

Example: claude mcp add wikic -- wikic mcp --vault /path/to/wiki
"""


def register(app: typer.Typer) -> None:
    @app.command("mcp", help=_HELP)
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
        root = resolve_vault(vault)
        require_vault(root)  # before the MCP SDK is imported: a wrong folder is said at once
        from wikic.mcp_server import serve

        if http is not None:  # the server itself only logs warnings and errors
            say(f"Serving {root} on http://127.0.0.1:{http}/mcp (Ctrl-C stops)", err=True)
        serve(root, http_port=http)
