"""`wikic graph`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wikic.cli._common import VaultDir, resolve_vault, translate_errors
from wikic.cli._output import say, say_json


def register(app: typer.Typer) -> None:
    @app.command("graph")
    @translate_errors
    def graph(
        vault: VaultDir = None,
        graphml: Annotated[
            Path | None, typer.Option("--graphml", metavar="FILE", help="Write the link graph as GraphML to this file.")
        ] = None,
        json_file: Annotated[
            Path | None,
            typer.Option("--json-file", metavar="FILE", help="Write the link graph as node-link JSON to this file."),
        ] = None,
        json_output: Annotated[bool, typer.Option("--json", help="Print the health report as JSON.")] = False,
        top: Annotated[
            int, typer.Option("--top", metavar="N", min=0, help="How many hubs and wanted pages to list.")
        ] = 10,
    ) -> None:
        """Export the link graph (GraphML, JSON) and print its health: pages, links, components, hubs, dead ends.

        Example: wikic graph --vault example-vault --graphml wiki.graphml
        """
        from wikic.context import VaultContext
        from wikic.graph_export import graph_report

        context = VaultContext(resolve_vault(vault))
        report = graph_report(context.root, context.schema, graphml=graphml, json_file=json_file, top=top)
        if json_output:
            say_json(report)
            return
        citing = f", {report['citations']} citing raw sources" if report["citations"] else ""
        say(
            f"{report['pages']} pages, {report['links']} links ({report['broken_links']} broken{citing}), "
            f"{report['files']} files"
        )
        say(
            f"{report['components']} connected component(s); the largest holds {report['largest_component']} pages"
        )
        if report["most_linked"]:
            say("most linked:")
            for item in report["most_linked"]:
                say(f"  {item['inbound']:>4}  {item['path']}")
        if report["dead_ends"]:
            say(f"dead ends (no outbound link): {len(report['dead_ends'])}")
            for path in report["dead_ends"][:top]:
                say(f"        {path}")
        if report["isolated_pages"]:
            say(f"isolated pages (no link in or out): {len(report['isolated_pages'])}")
            for path in report["isolated_pages"][:top]:
                say(f"        {path}")
        if report["wanted_pages"]:
            say("wanted (linked but missing):")
            for item in report["wanted_pages"]:
                say(f"  {item['links']:>4}  {item['target']}")
        if report["missing_sources"]:
            say("cited but missing raw sources:")
            for item in report["missing_sources"]:
                say(f"  {item['links']:>4}  {item['target']}")
        for written in report.get("written", []):
            say(f"wrote {written}")
