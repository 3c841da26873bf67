"""`wikic query "QUESTION"`: an answer from the wiki, streamed, every citation checked; `--save` files it.

Example: wikic query "Who leads OpenAI?" --save
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from wikic.cli._common import VaultDir, resolve_vault, translate_errors
from wikic.cli._output import say, say_json
from wikic.errors import UsageError

if TYPE_CHECKING:  # imported lazily: the CLI must start fast for `wikic lint`
    from wikic.context import VaultContext
    from wikic.query.answer import QueryOptions, QueryResult
    from wikic.query.writeback import SavedQuery


def _interactive() -> bool:
    """Offer to file the answer only when a person is at the terminal (both ends are a TTY)."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def _write(text: str) -> None:
    say(text, nl=False)


def _footer(result: QueryResult) -> None:
    if result.citations:
        shown = ", ".join(f"{c.link} ({c.path})" if c.link != f"[[{c.path}]]" else c.link for c in result.citations)
        say(f"Cited: {shown}", err=True)
    cost = f", ${result.cost:.4f}" if result.cost is not None else ""
    how = " (from cache)" if result.cached else ""
    items = result.retrieval
    say(
        f"{len(items.pages)} page(s) and {len(items.passages)} raw passage(s) in context ({items.tokens:,} tokens); "
        f"{result.tokens:,} tokens{how}{cost}",
        err=True,
    )
    for warning in result.warnings:
        say(f"Warning: {warning}", err=True)


def _saved_line(saved: SavedQuery) -> str:
    verb = "Filed as" if saved.created else "Updated"
    on_sources = [p for p in saved.asked_pages if p in saved.related]
    cited = len(saved.asked_pages) - len(on_sources)
    parts = [f"{cited} cited page(s)"] * bool(cited) + [f"{len(on_sources)} page(s) on its sources"] * bool(on_sources)
    linked = f"; linked from {' and '.join(parts)}" if parts else ""
    return f"{verb} {saved.path}{linked}"


def register(app: typer.Typer) -> None:
    @app.command("query")
    @translate_errors
    def query_command(
        question: Annotated[str | None, typer.Argument(help="The question, in any language.")] = None,
        save: Annotated[
            bool | None,
            typer.Option(
                "--save/--no-save", help="File the answer as a page in queries/ (default: ask, when at a terminal)."
            ),
        ] = None,
        review: Annotated[
            bool | None,
            typer.Option("--review/--no-review",
                         help="With --save: keep the filing as a proposal to review (wikic review), the vault left as "
                              "it is (default: [ingest] review)."),
        ] = None,
        refresh: Annotated[
            str | None,
            typer.Option(
                "--refresh",
                metavar="PAGE",
                help="Answer a query page's question again, in place (hand edits outside its answer block are kept).",
            ),
        ] = None,
        allow_general: Annotated[
            bool,
            typer.Option(
                "--allow-general",
                help=(
                    "When the wiki has no answer (and no sentence of it is quoted), let the model answer from general "
                    "knowledge (marked as such, never filed)."
                ),
            ),
        ] = False,
        as_of: Annotated[
            str | None,
            typer.Option(
                "--as-of",
                metavar="DATE",
                help="Answer from the claims that held on DATE (YYYY, YYYY-MM or YYYY-MM-DD); not filed.",
            ),
        ] = None,
        k: Annotated[
            int, typer.Option("--k", "-k", metavar="N", min=1, max=50, help="Pages (and raw passages) to consider.")
        ] = 8,
        budget: Annotated[
            int,
            typer.Option(
                "--budget", metavar="TOKENS", min=200, max=1_000_000, help="Context tokens given to the model."
            ),
        ] = 6000,
        max_tokens: Annotated[
            int | None,
            typer.Option(
                "--max-tokens",
                metavar="TOKENS",
                min=16,
                max=1_000_000,
                help="Cap on the answer's tokens (default: 1500, or [llm] max_output_tokens if lower).",
            ),
        ] = None,
        no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not answer from the reply cache.")] = False,
        model: Annotated[
            str | None,
            typer.Option("--model", metavar="NAME", help="Model name (overrides wikic.toml and WIKIC_LLM_MODEL)."),
        ] = None,
        base_url: Annotated[
            str | None,
            typer.Option(
                "--base-url", metavar="URL", help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1."
            ),
        ] = None,
        json_output: Annotated[
            bool,
            typer.Option("--json", help="Print answer, citations, retrieved pages and tokens as JSON (no streaming)."),
        ] = False,
        vault: VaultDir = None,
    ) -> None:
        """Answer a question from the wiki's pages (and raw sources where pages fall short), citing them.

        The answer streams to the terminal; every [[link]] in it is checked against what the model was given.
        When nothing in the wiki answers the question, wikic says so (exit 1) instead of inventing an answer.
        When the model finds no answer but the context holds sentences that match the question, they are
        shown quoted and cited, marked as such (exit 0, status "quoted"; never filed).

        Example: wikic query "Who leads OpenAI?" --save
        """
        root = resolve_vault(vault)
        if refresh is not None and question is not None:
            raise UsageError(
                "give a QUESTION or --refresh PAGE, not both", hint="--refresh asks the page's own question again"
            )
        if refresh is None and (question is None or not question.strip()):
            raise UsageError("give a question", hint='wikic query "who founded OpenAI?"')
        if as_of is not None and (refresh is not None or save):
            raise UsageError(
                "--as-of does not go with --save or --refresh: a query page answers for today",
                hint="ask with --as-of alone to see what held then, or --save without it",
            )
        overrides = {key: value for key, value in {"model": model, "base_url": base_url}.items() if value is not None}
        from wikic.context import VaultContext
        from wikic.facts.lookup import as_of_date
        from wikic.query.answer import QueryOptions

        options = QueryOptions(k=k, budget=budget, max_answer_tokens=max_tokens, allow_general=allow_general,
                               use_cache=not no_cache,
                               as_of=as_of_date(as_of) if as_of is not None else None)
        with VaultContext(root, overrides) as context:
            code = _query(context, question, refresh, save, options, json_output, as_of is not None, review)
        raise typer.Exit(code)


def _query(context: VaultContext, question: str | None, refresh: str | None, save: bool | None,
           options: QueryOptions, json_output: bool, as_of: bool, review: bool | None = None) -> int:
    """Answer (or refresh), show, and file when asked; the exit code."""
    from wikic.query.answer import answer_question
    from wikic.query.writeback import check_can_file

    if save:
        check_can_file(context)  # before the model is asked: an answer that cannot be filed costs nothing
    on_text = None if json_output else _write
    out: dict[str, Any] = {}

    if refresh is not None:
        if options.allow_general:
            raise UsageError(
                "--allow-general does not go with --refresh: a query page holds wiki answers only",
                hint="refresh without --allow-general",
            )
        from wikic.query.writeback import refresh_query

        done = refresh_query(context, refresh, options, on_text=on_text)
        result = done.result
        if json_output:
            out = result.to_dict() | {"page": done.path, "saved": done.saved.to_dict() if done.saved else None}
            say_json(out, default=str)
        else:
            _finish_text(result)
            if done.saved is not None:
                say(f"Refreshed {done.path}", err=True)
                _saved_warnings(done.saved)
            else:
                say(f"{done.path} was left as it was.", err=True)
        return 0 if done.saved is not None else 1

    assert question is not None
    result = answer_question(context, question, options, on_text=on_text)
    saved: SavedQuery | None = None
    if not json_output:
        _finish_text(result)
    filable = result.answered and bool(result.citations)
    if save is None and not json_output and filable and not as_of and _interactive():
        save = typer.confirm("File this answer in the wiki (queries/)?", default=False, err=True)
    if save:
        from wikic.review.propose import file_answer

        try:
            filed = file_answer(context, result, review=review)
            saved = filed.saved
        except UsageError as exc:
            # the answer (or the lack of one) was already shown; say why it was not filed
            if not json_output:
                say(f"Not filed: {exc.message}", err=True)
            out["not_filed"] = exc.message
        else:
            if filed.proposal is not None:
                out["proposal"] = filed.proposal
                if not json_output:
                    say(f"Kept for review as proposal {filed.proposal}: wikic review show {filed.proposal}", err=True)
            elif saved is not None and not json_output:
                say(_saved_line(saved), err=True)
                _saved_warnings(saved)
    if json_output:
        out = result.to_dict() | {"saved": saved.to_dict() if saved else None} | out
        say_json(out, default=str)
    # a quoted reply is what the wiki says (exit 0); only --save, which never files one, makes it a failure
    failed = result.status == "not_found" or (bool(save) and saved is None and "proposal" not in out)
    return 1 if failed else 0


def _finish_text(result: QueryResult) -> None:
    if result.status == "not_found":
        _write(result.answer + "\n")
    else:
        _write("\n")
    if result.calls or result.cached:
        _footer(result)


def _saved_warnings(saved: SavedQuery) -> None:
    for kept in saved.kept_edits:
        say(f"Kept hand edit: {kept}", err=True)
    for warning in saved.warnings:
        say(f"Warning: {warning}", err=True)
