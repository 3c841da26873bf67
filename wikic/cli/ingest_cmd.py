"""`wikic ingest PATH... | -`."""

from __future__ import annotations

import gc
import json
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from wikic.cli._common import VaultDir, resolve_vault, translate_errors
from wikic.cli._progress import ProgressDisplay
from wikic.errors import Interrupted, UsageError
from wikic.vault.layout import OVERVIEW_FILE

if TYPE_CHECKING:  # imported lazily: the CLI must start fast for `wikic lint`
    from wikic.ingest.composing import Composing
    from wikic.ingest.pipeline import IngestReport


def _render(report: IngestReport) -> str:
    from wikic.ingest.report import dropped_reasons

    lines = [f"finished an interrupted run first: {', '.join(report.resumed)}"] if report.resumed else []
    if report.rebuilt:
        lines.append(f"no .wikic/compiled.json: {len(report.rebuilt)} source(s) recorded as compiled, as the pages "
                     "that cite them show (no model call)")
    lines += conversation_lines(report)
    for s in report.sources:
        if s.status == "estimated":
            cost = f", at most ${s.cost:.4f}" if s.cost is not None else ""
            lines.append(
                f"{s.raw_path}: ~{s.prompt_tokens:,} prompt tokens, at most {s.completion_tokens:,} completion "
                f"tokens in {s.calls} call(s) ({s.cached_calls} cached){cost}; {s.context_pages} related page(s) "
                "in context"
            )
            continue
        head = f"{s.raw_path}: {s.status}"
        if s.status == "compiled":
            head += (
                f" — {len(s.created)} created, {len(s.updated)} updated, "
                f"{s.prompt_tokens + s.completion_tokens:,} tokens"
            )
            if s.cached_calls and s.cached_calls == s.calls:
                head += " (from cache)"
        if s.error:
            head += f" — {s.error}"
        lines.append(head)
        for p in s.created:
            lines.append(f"  + {p}")
        for p in s.updated:
            lines.append(f"  ~ {p}")
        if s.pending:
            lines.append(f"  waiting for more sources (below threshold): {', '.join(s.pending)}")
        if s.dropped:
            lines.append(f"  {sum(s.dropped.values())} not written: {dropped_reasons(s.dropped)}")
        if s.invented:
            lines.append(f"  names the source never writes (dropped as invented): {', '.join(s.invented)}")
        if s.nothing_extracted:
            lines.append("  nothing extracted, although the source names things: the model proposed none of them"
                         " (try a larger model, or --strategy two-pass, and --force to compile it again)")
        if s.repaired_quotes:
            lines.append(f"  {s.repaired_quotes} quote(s) repaired: snapped to the source text they nearly copied")
        if s.sentences_found:
            lines.append(f"  {s.sentences_found} claim(s) are the source's own sentences, found for names the model"
                         " could not quote")
        if s.superseded:
            lines.append(f"  {s.superseded} claim(s) superseded by a later value: moved to the page's history")
        for page in s.contested:
            lines.append(f"  contested: {page} states claims that contradict each other (see `wikic lint`)")
        for item in s.rejected:
            lines.append(f"  refused: {item}")
        for item in s.dropped_items:
            lines.append(f"  skipped: {item}")
        for item in s.kept_edits:
            lines.append(f"  kept hand edit: {item}")
    for text_path, encoding in sorted(report.converted.items()):
        lines.append(f"{text_path}: converted from {encoding} (the original is kept beside it)")
    t = report.totals()
    if not report.estimate:
        cost = f", ${t['cost']:.4f}" if t["cost"] is not None else ""
        skipped = f", {t['skipped']} skipped" if t["skipped"] else ""
        skipped += f", {t['nothing_extracted']} with nothing extracted" if t["nothing_extracted"] else ""
        lines.append(
            f"{t['compiled']} compiled, {t['unchanged']} unchanged, {t['failed']} failed{skipped}: "
            f"{t['created']} page(s) created, {t['updated']} updated, "
            f"{t['prompt_tokens'] + t['completion_tokens']:,} tokens{cost}"
        )
        if t["skipped"]:
            lines.append("the token budget (--max-tokens) was reached: run `wikic ingest` again to compile the rest")
        if report.hubs:
            sources = [p for p in report.hubs if p != OVERVIEW_FILE]
            said = [OVERVIEW_FILE] if OVERVIEW_FILE in report.hubs else []
            said += [f"{len(sources)} source page(s) ({', '.join(sources[:3])}{', ...' if len(sources) > 3 else ''})"
                     ] if sources else []
            lines.append("hubs written: " + ", ".join(said))
        advice = report.advice()
        if advice:
            lines.append(advice)
    if report.composed is not None and (report.composed.pages or report.composed.failed):
        lines.extend(composed_lines(report.composed))
    if report.lint is not None:
        from wikic.lint.render import finding_line

        s = report.lint.summary()
        own = len(report.lint_errors_in_written())
        where = f"{own} in what this ingest wrote" if own else "none in what this ingest wrote"
        lines.append(
            f"lint: {s['errors']} error(s) ({where}), {s['warnings']} warning(s)"
            if s["errors"]
            else f"lint: 0 errors, {s['warnings']} warning(s)"
        )
        for f in report.lint.findings[:20]:
            lines.append(f"  {finding_line(f)}")
    return "\n".join(lines)


def composed_lines(composed: Composing) -> list[str]:
    """What composing the run's pages did: pages, sentences written and refused, tokens."""
    from wikic.ingest.report import dropped_reasons

    refused = sum(composed.refused.values())
    said = f" ({dropped_reasons(composed.refused)})" if refused else ""
    tokens = composed.prompt_tokens + composed.completion_tokens
    lines = [f"composed {len(composed.pages)} page(s) as prose: {composed.sentences} sentence(s), {refused} refused"
             f"{said} (replaced by their claims as written), {tokens:,} tokens"]
    lines += [f"  not composed: {page} keeps its claim lists ({why})" for page, why in sorted(composed.failed.items())]
    lines += [f"  not composed: {page} changed meanwhile" for page in composed.left]
    return lines


def conversation_lines(report: IngestReport) -> list[str]:
    """One line per conversation export or capture queue the run read, and what could not be read."""
    lines = []
    for c in report.conversations:
        if c.already_read:
            lines.append(f"{c.origin}: {c.tool} export read before ({c.conversations} conversation(s)): nothing new")
        elif c.conversations or c.written or not (c.errors or c.error or c.quarantined):
            lines.append(f"{c.origin}: {c.tool}, {c.conversations} conversation(s): {len(c.written)} transcript(s) "
                         f"written, {c.unchanged} with nothing new")
        # an export that failed is one of the sources below, with its error
        lines += [f"  not read (kept for the next run): {error}" for error in c.errors]
        lines += [f"  not a capture: {item}" for item in c.quarantined]
    return lines


def _interrupted(report: IngestReport) -> str:
    if report.interrupted == "palace":
        return ("Interrupted while updating the search index: every source above is compiled; the next "
                "`wikic ingest` finishes the index.")
    t = report.totals()
    return (f"Interrupted: {t['compiled']} source(s) compiled and kept, {t['interrupted']} not compiled. To compile "
            "the rest, run the same `wikic ingest` command again, or `wikic ingest` with no source (it compiles "
            "what raw/ holds and is not compiled yet): replies already received come from the cache, and the "
            "search index catches up then.")


def _exit_interrupted(message: str) -> NoReturn:
    typer.echo(message, err=True)
    # Everything is written and shown; what is left is the interpreter's teardown, whose garbage collection
    # walks every object the model client and the palace created (a second on a busy machine). Frozen
    # objects are skipped by it, so the prompt comes back at once after Ctrl-C.
    gc.freeze()
    raise typer.Exit(Interrupted.exit_code)


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
            str | None, typer.Option("--kind", help="raw/ folder: articles, papers, transcripts or assets.")
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
        json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    ) -> None:
        """Compile sources into wiki pages through any OpenAI-compatible model.

        Each source is copied into raw/ (never edited afterwards), the model proposes a typed plan, and wikic
        writes the pages, a page per source in sources/, overview.md, index.md and log.md. Unchanged sources
        cost nothing. With no source, every file in
        raw/ that is not compiled yet is compiled (files dropped there by hand, or a failed earlier run).

        Exit code 0 when every source compiled (or was unchanged), 1 when a source failed or was left for a
        later run (--max-tokens), 2 on a usage or configuration error, 130 when interrupted (Ctrl-C): the
        sources finished by then are kept, and running `wikic ingest` again compiles the rest.

        Example: wikic ingest notes/meeting.md https://example.com/post --vault my-wiki
        """
        root = resolve_vault(vault)
        if estimate and dry_run:
            raise UsageError(
                "--estimate and --dry-run do not go together",
                hint="--estimate counts the tokens without a model call; --dry-run asks the model and shows the diff",
            )
        overrides = {"model": model, "base_url": base_url, "concurrency": concurrency, "strategy": strategy}
        from wikic.context import VaultContext
        from wikic.ingest.pipeline import IngestOptions, ingest

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
            overrides={k: v for k, v in overrides.items() if v is not None},
        )

        try:
            with ProgressDisplay(json_output=json_output) as display, VaultContext(root, options.overrides) as context:
                report = ingest(context, options, progress=display)
        except KeyboardInterrupt:
            _exit_interrupted(
                "Interrupted: whatever was cut short while being written is finished by the next `wikic ingest`."
            )
        if json_output:
            typer.echo(json.dumps(report.to_dict(), ensure_ascii=False, default=str))
        else:
            if report.diffs:
                typer.echo("".join(report.diffs), nl=False)
            typer.echo(_render(report))
        if report.interrupted:
            _exit_interrupted(_interrupted(report))
        raise typer.Exit(report.exit_code())
