"""`wikic init [DIR]`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wikic.cli._common import folder_path, translate_errors
from wikic.cli._output import say, say_json
from wikic.errors import UsageError


def register(app: typer.Typer) -> None:
    @app.command("init")
    @translate_errors
    def init(
        directory: Annotated[
            Path | None,
            typer.Argument(
                metavar="DIR",
                parser=folder_path,
                help="Folder for the new vault (created if missing; default: the current folder).",
            ),
        ] = None,
        vault: Annotated[
            Path | None,
            typer.Option(
                "--vault", "-C", metavar="DIR", parser=folder_path, help="The same folder, as every command takes it."
            ),
        ] = None,
        json_output: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    ) -> None:
        """Create a vault: SCHEMA.md, index.md, overview.md, log.md, wikic.toml, raw/ and page folders (sources/
        among them), .obsidian/.

        Never overwrites a file; running it twice changes nothing. In a vault an earlier version made, it adds
        what is missing: overview.md and a page per compiled source in sources/, listed in index.md.

        Example: wikic init my-wiki (or wikic init --vault my-wiki)
        """
        from wikic.hubs.setup import init_with_hubs

        if directory is not None and vault is not None and directory != vault:
            raise UsageError(f"two folders given: {directory} and --vault {vault}", hint="give the folder once")
        report = init_with_hubs(directory or vault or Path("."))
        if json_output:
            say_json({"vault": str(report.root), "created": report.created, "existing": report.existing},
                     ensure_ascii=True)
            return
        for item in report.created:
            say(f"created  {item}")
        if not report.created:
            say(f"{report.root}: already a vault, nothing to do")
        else:
            say(
                f"\nVault ready in {report.root}. Open it in Obsidian, drop sources into raw/, then run `wikic ingest`."
            )
