"""The `wikic` Typer application: every command, registered from the modules beside this file.

Command modules each expose `register(app)`. Errors raised by the core (`WikicError`) are translated in one
place (`_common.translate_errors`) into `Error: ...` on stderr and the error's exit code.
"""

from __future__ import annotations

import importlib
from typing import Annotated

import typer

from wikic import __version__
from wikic.cli._help import HelpCommand, HelpGroup
from wikic.cli._output import say

app = typer.Typer(
    name="wikic",
    cls=HelpGroup,
    help="Compile raw sources into a living, interlinked Markdown wiki that opens as an Obsidian vault.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # help texts hold `[[link]]` and `[llm]`: Rich markup would eat them
    context_settings={"help_option_names": ["-h", "--help"]},
)

# Each name is a module of wikic.cli with a `register(app)` function.
COMMAND_MODULES = (
    "init_cmd", "ingest_cmd", "lint_cmd", "graph_cmd", "search_cmd", "index_cmd", "query_cmd", "status_cmd", "mcp_cmd",
    "capture_cmd", "watch_cmd", "hooks_cmd", "wake_cmd", "facts_cmd", "trust_cmd", "review_cmd", "eval_cmd",
    "export_cmd", "serve_cmd",
)


def _version(value: bool) -> None:
    if value:
        say(f"wikic {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """wikic: ingest sources, query and lint an LLM-maintained Obsidian wiki."""


for _name in COMMAND_MODULES:
    importlib.import_module(f"wikic.cli.{_name}").register(app)
for _info in app.registered_commands:
    _info.cls = HelpCommand

