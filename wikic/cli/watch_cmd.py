"""`wikic watch`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from wikic.cli._common import VaultDir, resolve_vault, translate_errors
from wikic.cli._output import say
from wikic.cli._signals import terminated_as_interrupted
from wikic.errors import WikicError

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
            int | None,
            typer.Option(
                "--debounce", metavar="MS", min=0, max=3_600_000,
                help="Compile a changed file once it has been quiet for this long (default: 3000).",
            ),
        ] = None,
        min_interval: Annotated[
            float | None,
            typer.Option(
                "--min-interval", metavar="SECONDS", min=0, max=86_400,
                help="Compile a file again at most once per this many seconds, however often it changes "
                "(default: 60).",
            ),
        ] = None,
        no_palace: Annotated[bool, typer.Option("--no-palace", help="Do not use or update the search index.")] = False,
    ) -> None:
        """Compile what arrives: files dropped into raw/ and sessions `wikic capture` queued.

        Runs `wikic ingest` (no source) once to catch up, then again as raw/ or the capture queue changes,
        printing one line per file. A changed file is compiled once it has been quiet for --debounce
        milliseconds, and a file compiled before at most once per --min-interval seconds (a session's
        captures count as one file); its last change is always compiled. One writer at a time: the vault
        lock. Ctrl-C stops it (exit 130), SIGTERM too (exit 143); what a run left unfinished, the next run
        finishes. With [ingest] review = true in wikic.toml each run is kept as a proposal (wikic review), and
        a source waiting in one is passed over until it changes.

        Example: wikic watch --vault ~/wiki
        """
        from wikic.context import VaultContext
        from wikic.ingest.watch import MIN_INTERVAL, SETTLE, watch
        from wikic.review.propose import watched_run

        root = resolve_vault(vault)

        def started() -> None:  # only once the vault and its settings passed their checks
            say(f"watching {root}/raw and the capture queue (Ctrl-C to stop)", err=True)

        # a service manager stops it with SIGTERM: as Ctrl-C does, with its own exit code
        with terminated_as_interrupted() as stop:
            try:
                with VaultContext(root) as context:
                    watch(context, _show, use_palace=not no_palace, on_start=started,
                          settle=SETTLE if debounce is None else debounce / 1000,
                          min_interval=MIN_INTERVAL if min_interval is None else min_interval,
                          run_ingest=watched_run)
            except KeyboardInterrupt:
                say("stopped (SIGTERM)" if stop.terminated else "stopped", err=True)
                raise typer.Exit(stop.exit_code) from None
