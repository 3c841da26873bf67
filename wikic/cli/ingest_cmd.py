"""`wikic ingest PATH... | -`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from wikic.cli._common import resolve_vault, translate_errors
from wikic.errors import UsageError

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported lazily: the CLI must start fast for `wikic lint`
    from wikic.ingest.pipeline import IngestReport


def _render(report: IngestReport) -> str:
    lines = [f"finished an interrupted run first: {', '.join(report.resumed)}"] if report.resumed else []
    for s in report.sources:
        if s.status == "estimated":
            cost = f", at most ${s.cost:.4f}" if s.cost is not None else ""
            lines.append(f"{s.raw_path}: ~{s.prompt_tokens:,} prompt tokens, at most {s.completion_tokens:,} completion tokens in {s.calls} call(s) ({s.cached_calls} cached){cost}; {s.context_pages} related page(s) in context")
            continue
        head = f"{s.raw_path}: {s.status}"
        if s.status == "compiled":
            head += f" — {len(s.created)} created, {len(s.updated)} updated, {s.prompt_tokens + s.completion_tokens:,} tokens"
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
        if s.dropped_facts:
            lines.append(f"  {s.dropped_facts} claim(s) dropped: their quote is not in the source")
        for item in s.dropped_items:
            lines.append(f"  skipped: {item}")
        for item in s.kept_edits:
            lines.append(f"  kept hand edit: {item}")
    t = report.totals()
    if not report.estimate:
        cost = f", ${t['cost']:.4f}" if t["cost"] is not None else ""
        lines.append(f"{t['compiled']} compiled, {t['unchanged']} unchanged, {t['failed']} failed: {t['created']} page(s) created, {t['updated']} updated, {t['prompt_tokens'] + t['completion_tokens']:,} tokens{cost}")
    if report.lint is not None:
        from wikic.lint.render import finding_line

        s = report.lint.summary()
        lines.append(f"lint: {s['errors']} error(s), {s['warnings']} warning(s)")
        for f in report.lint.findings[:20]:
            lines.append(f"  {finding_line(f)}")
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    @app.command("ingest")
    @translate_errors
    def ingest_command(
        sources: Annotated[list[str], typer.Argument(help="Files, http(s) URLs, or - for standard input.")],
        vault: Annotated[Path | None, typer.Option("--vault", "-C", help="Vault folder.")] = None,
        kind: Annotated[str | None, typer.Option("--kind", help="raw/ folder: articles, papers, transcripts or assets.")] = None,
        dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the page changes as a diff; write no page (sources are still captured into raw/).")] = False,
        estimate: Annotated[bool, typer.Option("--estimate", help="Print the expected tokens (and cost) without calling the model.")] = False,
        max_tokens: Annotated[int | None, typer.Option("--max-tokens", help="Stop starting new sources once this many tokens were spent.")] = None,
        no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not answer from the reply cache.")] = False,
        force: Annotated[bool, typer.Option("--force", help="Recompile sources even if already compiled.")] = False,
        concurrency: Annotated[int | None, typer.Option("--concurrency", "-j", help="Parallel model calls.")] = None,
        model: Annotated[str | None, typer.Option("--model", help="Model name (overrides wikic.toml and WIKIC_LLM_MODEL).")] = None,
        base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1.")] = None,
        no_palace: Annotated[bool, typer.Option("--no-palace", help="Do not use or update the search index.")] = False,
        json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    ) -> None:
        """Compile sources into wiki pages through any OpenAI-compatible model.

        Each source is copied into raw/ (never edited afterwards), the model proposes a typed plan, and wikic
        writes the pages, index.md and log.md. Unchanged sources cost nothing.

        Example: wikic ingest notes/meeting.md https://example.com/post --vault my-wiki
        """
        root = resolve_vault(vault)
        if estimate and dry_run:
            raise UsageError("--estimate and --dry-run do not go together")
        overrides = {"model": model, "base_url": base_url, "concurrency": concurrency}
        from wikic.ingest.pipeline import IngestOptions, ingest
        options = IngestOptions(
            inputs=sources, kind=kind, dry_run=dry_run, estimate=estimate, max_tokens=max_tokens, use_cache=not no_cache,
            force=force, use_palace=not no_palace, overrides={k: v for k, v in overrides.items() if v is not None},
        )

        def progress(stage: str, done: int, total: int) -> None:
            if not json_output and sys.stderr.isatty():
                typer.echo(f"\r{stage} {done}/{total}", err=True, nl=False)

        report = ingest(root, options, progress=progress)
        if json_output:
            typer.echo(json.dumps(report.to_dict(), ensure_ascii=False, default=str))
        else:
            if report.diffs:
                typer.echo("".join(report.diffs), nl=False)
            typer.echo(_render(report))
        failed = bool(report.failed) or (report.lint is not None and report.lint.count("error") > 0)
        raise typer.Exit(1 if failed else 0)
