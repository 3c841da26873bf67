"""`wikic ingest PATH... | -`."""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from wikic.cli._common import VaultDir, resolve_vault, translate_errors
from wikic.cli._output import say, say_json
from wikic.cli._progress import ProgressDisplay
from wikic.cli._signals import Stop, terminated_as_interrupted
from wikic.errors import UsageError
from wikic.vault.layout import RAW_SUBDIRS

if TYPE_CHECKING:  # imported lazily: the CLI must start fast for `wikic lint`
    from wikic.ingest.pipeline import IngestReport


def _interrupted(report: IngestReport, stop: Stop) -> str:
    if report.interrupted == "palace":
        return (f"{stop.cause} while updating the search index: every source above is compiled; the next "
                "`wikic ingest` finishes the index.")
    t = report.totals()
    return (f"{stop.cause}: {t['compiled']} source(s) compiled and kept, {t['interrupted']} not compiled. To compile "
            "the rest, run the same `wikic ingest` command again, or `wikic ingest` with no source (it compiles "
            "what raw/ holds and is not compiled yet): replies already received come from the cache, and the "
            "search index catches up then.")


def _exit_interrupted(message: str, stop: Stop) -> NoReturn:
    say(message, err=True)
    # Everything is written and shown; what is left is the interpreter's teardown, whose garbage collection
    # walks every object the model client and the palace created (a second on a busy machine). Frozen
    # objects are skipped by it, so the prompt comes back at once after Ctrl-C.
    gc.freeze()
    raise typer.Exit(stop.exit_code)


def register(app: typer.Typer) -> None:
    @app.command("ingest")
    @translate_errors
    def ingest_command(
        sources: Annotated[
            list[str] | None,
            typer.Argument(
                metavar="[SOURCE]...",
                help="Files, http(s) URLs, or - for standard input (none: every file in raw/ not compiled yet).",
            ),
        ] = None,
        vault: VaultDir = None,
        kind: Annotated[
            str | None,
            typer.Option("--kind", help=f"raw/ folder: {', '.join(RAW_SUBDIRS[:-1])} or {RAW_SUBDIRS[-1]}."),
        ] = None,
        encoding: Annotated[
            str | None,
            typer.Option(
                "--encoding",
                help="The sources' text encoding (e.g. gb18030, big5, shift_jis, cp1252) when detection cannot tell.",
            ),
        ] = None,
        dry_run: Annotated[
            bool,
            typer.Option(
                "--dry-run",
                help="Show the page changes as a diff; write nothing (sources are not captured; replies are cached).",
            ),
        ] = False,
        estimate: Annotated[
            bool, typer.Option("--estimate", help="Print the expected tokens (and cost) without calling the model.")
        ] = False,
        max_tokens: Annotated[
            int | None,
            typer.Option(
                "--max-tokens", min=1, help="Stop starting new sources once this many tokens were spent."
            ),
        ] = None,
        no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not answer from the reply cache.")] = False,
        force: Annotated[bool, typer.Option("--force", help="Recompile sources even if already compiled.")] = False,
        concurrency: Annotated[int | None, typer.Option("--concurrency", "-j", help="Parallel model calls.")] = None,
        model: Annotated[
            str | None, typer.Option("--model", help="Model name (overrides wikic.toml and WIKIC_LLM_MODEL).")
        ] = None,
        strategy: Annotated[
            str | None,
            typer.Option(
                "--strategy",
                metavar="auto|single|two-pass",
                help=(
                    "How the model is asked: one call for the whole plan, or names first and then their claims "
                    "(small local models); auto chooses per endpoint."
                ),
            ),
        ] = None,
        base_url: Annotated[
            str | None, typer.Option("--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1.")
        ] = None,
        no_palace: Annotated[bool, typer.Option("--no-palace", help="Do not use or update the search index.")] = False,
        compose: Annotated[
            bool | None,
            typer.Option("--compose/--no-compose",
                         help="Write the changed pages' claims as checked prose (default: [llm] compose)."),
        ] = None,
        review: Annotated[
            bool | None,
            typer.Option("--review/--no-review",
                         help="Keep the changes as a proposal to review (wikic review); the vault is left as it "
                              "is (default: [ingest] review)."),
        ] = None,
        judge: Annotated[
            bool | None,
            typer.Option("--judge/--no-judge", help="The model judges each claim against its quote, and each "
                                                    "composed sentence against its claims, before they are "
                                                    "written; one it finds unsupported or contradicted is kept "
                                                    "out (default: [ingest] judge)."),
        ] = None,
        json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    ) -> None:
        """Compile sources into wiki pages through any OpenAI-compatible model.

        Each source is copied into raw/ (never edited afterwards), the model proposes a typed plan, and wikic
        writes the pages, a page per source in sources/, overview.md, index.md and log.md. Unchanged sources
        cost nothing. With no source, every file in
        raw/ that is not compiled yet is compiled (files dropped there by hand, or a failed earlier run).

        Exit code 0 when every source compiled (or was unchanged), 1 when a source failed or was left for a
        later run (--max-tokens), 2 on a usage or configuration error, 130 when interrupted (Ctrl-C), 143 when
        stopped by SIGTERM (timeout, a service manager): the sources finished by then are kept, and running
        `wikic ingest` again compiles the rest.

        Example: wikic ingest notes/meeting.md https://example.com/post --vault my-wiki
        """
        root = resolve_vault(vault)
        if estimate and dry_run:
            raise UsageError(
                "--estimate and --dry-run do not go together",
                hint="--estimate counts the tokens without a model call; --dry-run asks the model and shows the diff",
            )
        flags = {"model": model, "base_url": base_url, "concurrency": concurrency, "strategy": strategy}
        overrides = {k: v for k, v in flags.items() if v is not None}
        from wikic.context import VaultContext
        from wikic.ingest.pipeline import IngestOptions
        from wikic.ingest.report import render_report
        from wikic.review.propose import ingest_run

        options = IngestOptions(
            inputs=sources or [],
            kind=kind,
            encoding=encoding,
            dry_run=dry_run,
            estimate=estimate,
            max_tokens=max_tokens,
            use_cache=not no_cache,
            force=force,
            use_palace=not no_palace,
            compose=compose,
            review=review,
            judge=judge,
        )

        # SIGTERM (a service manager, `timeout`, a CI runner) stops the run as Ctrl-C does
        with terminated_as_interrupted() as stop:
            try:
                with (ProgressDisplay(json_output=json_output) as display,
                      VaultContext(root, overrides) as context):
                    report = ingest_run(context, options, progress=display)
            except KeyboardInterrupt:
                _exit_interrupted(
                    f"{stop.cause}: whatever was cut short while being written is finished by the next "
                    "`wikic ingest`.", stop
                )
        if json_output:
            say_json(report.to_dict(), default=str)
        else:
            if report.diffs:
                say("".join(report.diffs), nl=False)
            say(render_report(report))
        if report.interrupted:
            _exit_interrupted(_interrupted(report, stop), stop)
        raise typer.Exit(report.exit_code())
