"""`wikic search`: the best distinct files of the palace for a query, or for a batch of queries."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from wikic.cli._common import VaultDir, resolve_vault, translate_errors
from wikic.cli._output import say, say_json
from wikic.cli.search_fast import K_LEAST, K_MOST
from wikic.cli.search_output import show
from wikic.errors import UsageError


def _batch_lines(batch: Path) -> list[str]:
    if str(batch) == "-":
        return sys.stdin.read().splitlines()
    try:
        return batch.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise UsageError(
            f"cannot read batch file {batch}: {exc.strerror}",
            hint='give a file of JSON lines {"id": ..., "query": ...}, or - to read them from standard input',
        ) from None


@translate_errors
def search_command(
    query: Annotated[str | None, typer.Argument(help="What to look for, in any language.")] = None,
    k: Annotated[
        int, typer.Option("--k", "-k", metavar="N", min=K_LEAST, max=K_MOST, help="How many distinct files to return.")
    ] = 10,
    wing: Annotated[
        str | None,
        typer.Option(
            "--wing", metavar="WING", help="Only this layer: entities, concepts, comparisons, queries, raw, notes."
        ),
    ] = None,
    tag: Annotated[str | None, typer.Option("--tag", metavar="TAG", help="Only pages with this tag.")] = None,
    path: Annotated[
        str | None, typer.Option("--path", metavar="PREFIX", help="Only files under this vault-relative path prefix.")
    ] = None,
    batch: Annotated[
        Path | None,
        typer.Option(
            "--batch",
            metavar="FILE",
            help='JSON lines {"id": ..., "query": ...} ("-" for stdin); one JSON line out per query.',
        ),
    ] = None,
    rerank: Annotated[
        bool | None,
        typer.Option("--rerank/--no-rerank", help="Let the [llm] model reorder the best hits ([search] rerank)."),
    ] = None,
    rewrite: Annotated[
        bool | None,
        typer.Option("--rewrite/--no-rewrite", help="Also search the [llm] model's rewrite of the query."),
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print results as JSON.")] = False,
    vault: VaultDir = None,
) -> None:
    """Search the palace by meaning and by words: dense vectors + BM25, fused.

    Example: wikic search "who founded OpenAI" --k 5 --wing entities
    """
    root = resolve_vault(vault)
    if query is not None and batch is not None:
        raise UsageError("give a QUERY or --batch FILE, not both", hint="put the query into the batch file instead")
    if batch is None and (query is None or not query.strip()):
        raise UsageError(
            "give a QUERY or --batch FILE" if query is None else "the query is empty",
            hint='for example: wikic search "who founded OpenAI" (or --batch queries.jsonl)',
        )
    lines = _batch_lines(batch) if batch is not None else None
    if lines is None and query is not None:
        from wikic.palace.served import served_search

        served = served_search(root, query, k, wing=wing, tag=tag, path=path, rerank=rerank, rewrite=rewrite)
        if served is not None:  # a running `wikic serve` answered: the same search, without loading the palace
            show(query, served, json_output)
            return
    from wikic.context import VaultContext
    from wikic.palace import search_batch
    from wikic.palace.served import keep_warm
    from wikic.query.assist import search_with_settings

    with VaultContext(root) as context:
        settings, palace = context.settings, context.palace()
        if lines is not None:
            for result in search_batch(palace, lines, k, wing=wing, tag=tag, path=path):
                say_json(result)
            return
        assert query is not None
        found = search_with_settings(
            palace, query, k, settings, rerank=rerank, rewrite=rewrite, wing=wing, tag=tag, path=path
        )
    keep_warm(root)  # your own config may ask for a server for the next searches
    for reason in found.report.fallback:
        say(f"note: {reason}; the fused order is kept", err=True)
    assist = found.report.to_dict() if found.report.calls or found.report.fallback else None
    show(query, [h.to_dict() for h in found.hits], json_output, assist)


def register(app: typer.Typer) -> None:
    app.command("search")(search_command)
