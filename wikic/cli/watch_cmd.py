"""`wikic watch`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from wikic.cli._common import VaultDir, resolve_vault, translate_errors
from wikic.cli._output import say
from wikic.errors import Interrupted, WikicError

if TYPE_CHECKING:  # the pipeline is imported when the command runs: the CLI must start fast
    from wikic.ingest.pipeline import IngestReport


def _lines(result: IngestReport | WikicError) -> list[str]:
    """One status line per file the run compiled, failed on or turned into transcripts; nothing for a run
    that found nothing to do."""
    if isinstance(result, WikicError):
        return [f"Error: {result.message}" + (f" ({result.hint})" if result.hint else "")]
    from wikic.ingest.report import conversation_lines

    lines = [line for line in conversation_lines(result) if "0 transcript(s)" not in line]
    for s in result.sources:
        if s.status == "unchanged":
            continue
        detail = f" — {len(s.created)} created, {len(s.updated)} updated" if s.status == "compiled" else ""
        lines.append(f"{s.raw_path}: {s.status}{detail}" + (f" — {s.error}" if s.error else ""))
    return lines


def _show(result: IngestReport | WikicError) -> None:
    for line in _lines(result):
        say(line)


def register(app: typer.Typer) -> None:
    @app.command("watch")
    @translate_errors
    def watch_command(
        vault: VaultDir = None,
        debounce: Annotated[
            int,
            typer.Option(
                "--debounce", metavar="MS", min=0, max=3_600_000, help="Wait until changes have settled for this long."
            ),
        ] = 1500,
        no_palace: Annotated[bool, typer.Option("--no-palace", help="Do not use or update the search index.")] = False,
    ) -> None:
        """Compile what arrives: files dropped into raw/ and sessions `wikic capture` queued.

        Runs `wikic ingest` (no source) once to catch up, then again whenever raw/ or the capture queue
        changes (after --debounce milliseconds of quiet), printing one line per file. One writer at a time:
        the vault lock. Ctrl-C stops it (exit 130); what a run left unfinished, the next run finishes.

        Example: wikic watch --vault ~/wiki
        """
        from wikic.context import VaultContext
        from wikic.ingest.watch import watch

        root = resolve_vault(vault)

        def started() -> None:  # only once the vault and its settings passed their checks
            say(f"watching {root}/raw and the capture queue (Ctrl-C to stop)", err=True)

        try:
            with VaultContext(root) as context:
                watch(context, _show, debounce_ms=debounce, use_palace=not no_palace, on_start=started)
        except KeyboardInterrupt:
            say("stopped", err=True)
            raise typer.Exit(Interrupted.exit_code) from None
