"""`wikic export site DIR`: the wiki as files to read outside Obsidian."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wikic.cli._common import VaultDir, folder_path, resolve_vault, translate_errors
from wikic.cli._help import HelpCommand, HelpGroup
from wikic.cli._output import say, say_json

_HELP = """Export the wiki to read it where Obsidian is not.

`site DIR` writes a static HTML site that opens from disk or any static host,
with no network at view time: every page, the raw sources with line numbers,
each citation's quoted lines on hover, backlinks, clusters, search and a graph.

Example: wikic export site ../wiki-site
"""

# `out_dir: OutDir`: the folder an export writes into, which every export command takes first.
OutDir = Annotated[
    Path,
    typer.Argument(metavar="DIR", parser=folder_path,
                   help="The folder to write into: new, empty, or one an earlier export wrote (outside the vault's "
                        "page folders, raw/ and .wikic/)."),
]


def register(app: typer.Typer) -> None:
    export_app = typer.Typer(help=_HELP, no_args_is_help=True, rich_markup_mode=None, cls=HelpGroup)
    app.add_typer(export_app, name="export")

    @export_app.command("site", cls=HelpCommand)
    @translate_errors
    def site_command(
        out_dir: OutDir,
        vault: VaultDir = None,
        template: Annotated[
            Path | None,
            typer.Option("--template", metavar="FILE", help="The page template (overrides [export] template; "
                                                            "docs/export.md names its placeholders)."),
        ] = None,
        force: Annotated[
            bool, typer.Option("--force", help="Write into a folder that holds other files (none is deleted).")
        ] = False,
        json_output: Annotated[bool, typer.Option("--json", help="Print what was written as JSON.")] = False,
    ) -> None:
        """Write the wiki as a static HTML site into DIR, which opens from disk or any static host.

        A second export rewrites only what changed: the pages edited, the pages whose backlinks or cluster
        changed with them, and the search index and graph.

        Example: wikic export site ../wiki-site
        """
        from wikic.context import VaultContext
        from wikic.export.site import export_site

        with VaultContext(resolve_vault(vault)) as context:
            report = export_site(context, out_dir, template=template, force=force)
        if json_output:
            say_json(report.to_json())
            return
        say(f"{report.out_dir}: {len(report.written)} files written, {report.unchanged} unchanged"
            + (f", {len(report.removed)} removed" if report.removed else "")
            + f" ({report.pages} pages, {report.sources} raw sources) in {report.seconds:.1f} s")
        say(f"open {report.out_dir / 'index.html'}")
