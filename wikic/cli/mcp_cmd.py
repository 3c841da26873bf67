"""`wikic mcp`: serve the vault to MCP clients (Claude Code, Cursor...) over stdio, or HTTP on 127.0.0.1.

Example: claude mcp add wikic -- wikic mcp --vault /path/to/wiki
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from wikic.cli._common import VaultDir, resolve_vault, translate_errors
from wikic.cli._output import say
from wikic.mcp_tools import READ_ONLY, TOOLS
from wikic.vault.layout import require_vault

if TYPE_CHECKING:
    from wikic.user_config import McpToken

_HELP = f"""Serve the vault to MCP clients (Claude Code, Cursor...).

Tools: {", ".join(name for name, _, _ in TOOLS)}. The read-only ones
({", ".join(name for name, kind, _ in TOOLS if kind == READ_ONLY)}) are marked readOnlyHint. Stdio by
default: the client starts this command itself; --http PORT serves streamable HTTP on 127.0.0.1 instead,
where every request must carry the header Authorization: Bearer TOKEN (any user or process of the machine
reaches 127.0.0.1): TOKEN is WIKIC_MCP_TOKEN when set, else the one kept in ~/.config/wikic/mcp-token,
made (0600) on first use.

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

        def listening(url: str, token: McpToken) -> None:  # the server itself only logs warnings and errors
            made = " (made now)" if token.created else ""
            say(f"Serving {root} on {url} (Ctrl-C stops)", err=True)
            say(f"Clients must send the header Authorization: Bearer TOKEN, TOKEN being the one in {token.source}"
                f"{made}", err=True)

        serve(root, http_port=http, on_listening=listening)
