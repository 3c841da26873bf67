"""`wikic export site DIR` and `wikic export llms DIR`: the wiki as files to read outside Obsidian."""

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

`llms DIR` writes llms.txt and llms-full.txt (llmstxt.org): the wiki for a
language model, every page with its lead, then every page's text.

Example: wikic export site ../wiki-site && wikic export llms ../wiki-site
"""

# `out_dir: OutDir`: the folder an export writes into, which every export command takes first.
OutDir = Annotated[
    Path,
    typer.Argument(metavar="DIR", parser=folder_path,
                   help="The folder to write into: new, empty, or one an earlier export wrote (outside the vault's "
                        "page folders, raw/ and .wikic/)."),
]
# the options every export command takes after its own
Force = Annotated[bool, typer.Option("--force", help="Write into a folder that holds other files (none is deleted).")]
JsonOut = Annotated[bool, typer.Option("--json", help="Print what was written as JSON.")]


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
        force: Force = False,
        json_output: JsonOut = False,
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

    @export_app.command("llms", cls=HelpCommand)
    @translate_errors
    def llms_command(
        out_dir: OutDir,
        vault: VaultDir = None,
        site_url: Annotated[
            str | None,
            typer.Option("--site-url", metavar="URL", help="Where the site is published: each page is linked as "
                                                           "URL/<page>.html."),
        ] = None,
        force: Force = False,
        json_output: JsonOut = False,
    ) -> None:
        """Write llms.txt and llms-full.txt into DIR: the wiki for a language model (llmstxt.org).

        llms.txt: the wiki's title, its overview, then every page under its type with its lead and link.
        llms-full.txt: every page's text as its reader sees it, each citation as [source: raw/x.md L10-L11].
        A page is linked to URL/<page>.html with --site-url, to its page of a site exported into DIR, else
        to its path in the vault.

        Example: wikic export llms ../wiki-site --site-url https://wiki.example.org
        """
        from wikic.context import VaultContext
        from wikic.export.llms import export_llms

        with VaultContext(resolve_vault(vault)) as context:
            report = export_llms(context, out_dir, site_url=site_url, force=force)
        if json_output:
            say_json(report.to_json())
            return
        say(f"{report.out}: llms.txt and llms-full.txt written ({report.total} pages; links lead to "
            f"{_LEADS_TO[report.links]})")
        for path, why in sorted(report.skipped.items()):
            say(f"  {path}: listed without its text ({why})")


_LEADS_TO = {"site-url": "the published site", "site": "the site in that folder", "vault": "the vault's pages"}
