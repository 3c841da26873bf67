"""`wikic review`: the proposals `wikic ingest --review` made, shown, accepted in whole or in part, or rejected.

Example: wikic review show 20261206-0815-3f2a
"""

from __future__ import annotations

from typing import Annotated

import typer

from wikic.cli._common import VaultDir, resolve_vault, translate_errors
from wikic.cli._output import say, say_json

_HELP = """Review what a run would change before it lands.

`wikic ingest --review` (or [ingest] review = true in wikic.toml) writes
nothing in the vault: it keeps the run's changes as a proposal. `wikic review`
lists the open proposals; `show` shows one (new pages whole, changed ones as a
diff, the claims added or dropped with the source lines they rest on);
`accept` applies it, or the pages and claims you name; `reject` drops it and
remembers what you rejected in .wikic/rejected.md, so later runs of those
sources do not propose it again (delete a line there to undo it).

Example: wikic review show 20261206-0815-3f2a
"""


def register(app: typer.Typer) -> None:
    review = typer.Typer(help=_HELP, invoke_without_command=True, no_args_is_help=False)
    app.add_typer(review, name="review")

    @review.callback(invoke_without_command=True)
    @translate_errors
    def review_list(
        ctx: typer.Context,
        vault: VaultDir = None,
        json_output: Annotated[bool, typer.Option("--json", help="Print the proposals as JSON.")] = False,
    ) -> None:
        """List the open proposals.

        Example: wikic review
        """
        if ctx.invoked_subcommand is not None:
            return
        from wikic.context import VaultContext
        from wikic.review.render import render_list
        from wikic.review.show import list_proposals

        with VaultContext(resolve_vault(vault)) as context:
            listed = list_proposals(context)
        if json_output:
            say_json([p.to_json() for p in listed])
        else:
            say(render_list(listed))

    @review.command("show")
    @translate_errors
    def review_show(
        proposal: Annotated[str, typer.Argument(metavar="ID", help="The proposal (its id, or the start of it).")],
        pages: Annotated[list[str] | None, typer.Argument(metavar="[PAGE]...", help="Only these pages.")] = None,
        vault: VaultDir = None,
        as_patch: Annotated[bool, typer.Option("--patch", help="Print a patch that `git apply` takes.")] = False,
        json_output: Annotated[bool, typer.Option("--json", help="Print it as JSON.")] = False,
    ) -> None:
        """Show what a proposal would change: each page, and the claims it adds or drops with their sources.

        Example: wikic review show 20261206-0815-3f2a entities/chroma.md
        """
        from wikic.context import VaultContext
        from wikic.review.render import render_view
        from wikic.review.show import patch, show

        with VaultContext(resolve_vault(vault)) as context:
            if as_patch:
                say(patch(context, proposal), nl=False)
                return
            view = show(context, proposal, pages or [])
        if json_output:
            say_json(view.to_json())
        else:
            say(render_view(view))

    @review.command("accept")
    @translate_errors
    def review_accept(
        proposal: Annotated[str, typer.Argument(metavar="ID", help="The proposal (its id, or the start of it).")],
        vault: VaultDir = None,
        pages: Annotated[list[str] | None, typer.Option("--page", help="Accept this page (repeat for more).")] = None,
        claims: Annotated[list[str] | None, typer.Option("--claim", help="Accept this claim, by its id.")] = None,
        json_output: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    ) -> None:
        """Apply a proposal, or the pages and claims named: what is left out stays in the proposal.

        Exit code 0 when everything asked for was written, 1 when a page was left out (a person changed the
        same part of it since the proposal was made) or lint finds an error in what was written.

        Example: wikic review accept 20261206-0815-3f2a --page entities/chroma.md
        """
        from wikic.context import VaultContext
        from wikic.review.accept import accept
        from wikic.review.render import render_accepted

        with VaultContext(resolve_vault(vault)) as context:
            done = accept(context, proposal, pages=pages or [], claims=claims or [])
        if json_output:
            say_json(done.to_json())
        else:
            say(render_accepted(done))
        raise typer.Exit(done.exit_code())

    @review.command("reject")
    @translate_errors
    def review_reject(
        proposal: Annotated[str, typer.Argument(metavar="ID", help="The proposal (its id, or the start of it).")],
        vault: VaultDir = None,
        pages: Annotated[list[str] | None, typer.Option("--page", help="Reject this page (repeat for more).")] = None,
        claims: Annotated[list[str] | None, typer.Option("--claim", help="Reject this claim, by its id.")] = None,
        why: Annotated[str, typer.Option("--why", help="Why, kept beside the rejection.")] = "",
        json_output: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    ) -> None:
        """Reject a proposal, or the pages and claims named, for good: later runs do not propose them again.

        Example: wikic review reject 20261206-0815-3f2a --claim c1a2b3c4 --why "the source says the opposite"
        """
        from wikic.context import VaultContext
        from wikic.review.accept import reject
        from wikic.review.render import render_rejected

        with VaultContext(resolve_vault(vault)) as context:
            done = reject(context, proposal, pages=pages or [], claims=claims or [], why=why)
        if json_output:
            say_json(done.to_json())
        else:
            say(render_rejected(done))
