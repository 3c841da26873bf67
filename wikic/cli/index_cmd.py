"""`wikic index`: bring the palace in line with the vault."""

from __future__ import annotations

from typing import Annotated

import typer

from wikic.cli._common import VaultDir, resolve_vault, translate_errors
from wikic.cli._output import say, say_json
from wikic.cli._progress import ProgressDisplay


def _list(label: str, paths: list[str]) -> None:
    if not paths:
        return
    say(f"{label} ({len(paths)}):")
    for p in paths[:50]:
        say(f"  {p}")
    if len(paths) > 50:
        say(f"  … and {len(paths) - 50} more")


@translate_errors
def index(
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Drop the palace and re-embed everything.")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    vault: VaultDir = None,
) -> None:
    """Index every page and raw source into the palace; only changed drawers are re-embedded.

    Example: wikic index --vault my-wiki
    """
    from wikic.context import VaultContext
    from wikic.palace import sync

    with ProgressDisplay(json_output=json_output) as display:
        context = VaultContext(resolve_vault(vault))
        report = sync(context.root, context.settings, rebuild=rebuild, progress=display)
    if json_output:
        say_json(report.to_dict())
        return
    _list("added", report.added)
    _list("updated", report.updated)
    _list("removed", report.removed)
    for path, why in report.skipped.items():
        say(f"skipped {path}: {why}", err=True)
    say(
        f"{len(report.added)} added, {len(report.updated)} updated, {len(report.removed)} removed, "
        f"{report.unchanged} unchanged; {report.drawers_embedded} drawers embedded, "
        f"{report.drawers_removed} removed; {report.files_total} files / {report.drawers_total} drawers "
        f"in {report.seconds:.2f}s ({report.model}{', rebuilt' if report.rebuilt else ''})"
    )


def register(app: typer.Typer) -> None:
    app.command("index")(index)
