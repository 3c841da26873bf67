"""Help as a person reads it, for every command: click's plain layout, values named in capitals, no Python types.

Typer's Rich help read `[[link]]` or `[llm]` in a help text as markup and dropped it, and named values by
their Python type (`<bool>`, `<list[str]>`, `{sources}...`). `wikic.cli` turns Rich markup off and builds
every command with this class.
"""

from __future__ import annotations

import inspect
import re
from typing import TYPE_CHECKING, Any, get_args

from typer._click.exceptions import NoArgsIsHelpError, UsageError as ClickUsageError
from typer.core import TyperCommand, TyperGroup, TyperOption

from wikic.cli._common import ArgumentError

if TYPE_CHECKING:  # Typer vendors click as typer._click
    from typer._click import Context, HelpFormatter

# An "Example:" paragraph is a command line to copy: click must not rewrap it (it breaks `my-wiki` at the hyphen).
_EXAMPLE = re.compile(r"^Example:", re.MULTILINE)
_BARE = re.compile(r"^\[?([^\[\].]+)\]?(?:\.\.\.)?$")
# The metavar of an option that names none itself: click's own words for the type of its value.
_TYPE_WORDS = {int: "INTEGER", float: "NUMBER"}


def _type_word(param: Any) -> str:
    desc = param.type_descriptor
    if desc.is_path:
        return "PATH"
    annotation = get_args(desc.annotation)[0] if desc.is_list else desc.annotation
    return _TYPE_WORDS.get(annotation, "TEXT")


def _argument_name(param: Any) -> str:
    """The argument's bare name; a metavar written as a whole usage piece (`[SOURCE]...`) counts by its name."""
    name = param.metavar or param.name.upper()
    return _BARE.sub(r"\1", name)


def _as_argument_error(error: ClickUsageError, args: list[str]) -> ClickUsageError:
    """click's own usage errors, shown as wikic's are (`Error:`, `Hint:`, JSON with --json); a bare `wikic`
    or `wikic hooks` still prints its help."""
    if isinstance(error, (ArgumentError, NoArgsIsHelpError)):
        return error
    return ArgumentError(error, args)


class HelpGroup(TyperGroup):
    """The `wikic` group (and `wikic hooks`): an unknown command or option is a usage error like any other."""

    def make_context(self, info_name: str | None, args: list[str], parent: Context | None = None,
                     **extra: Any) -> Context:
        given = list(args)  # the parser consumes the list it is given
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except ClickUsageError as error:
            raise _as_argument_error(error, given) from None

    def invoke(self, ctx: Context) -> Any:
        args = [*ctx._protected_args, *ctx.args]
        try:
            return super().invoke(ctx)
        except ClickUsageError as error:
            raise _as_argument_error(error, args) from None


class HelpCommand(TyperCommand):
    """A Typer command whose help shows `SOURCE...`, `[VAULT]` and `--vault DIR`, and whose argument errors
    read as wikic's other usage errors."""

    def make_context(self, info_name: str | None, args: list[str], parent: Context | None = None,
                     **extra: Any) -> Context:
        given = list(args)  # the parser consumes the list it is given
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except ClickUsageError as error:
            raise _as_argument_error(error, given) from None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.help:
            self.help = _EXAMPLE.sub("\b\nExample:", inspect.cleandoc(self.help))
        for param in self.params:
            if isinstance(param, TyperOption) and not param.is_flag and param.metavar is None:
                param.metavar = _type_word(param)

    def collect_usage_pieces(self, ctx: Context) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                name = _argument_name(param)
                piece = name if param.required else f"[{name}]"
                pieces.append(piece + ("..." if param.nargs != 1 else ""))
        return pieces

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                # Typer's record names the argument with its Python type (`VAULT <path>`): keep only the help
                arguments.append((_argument_name(param) + ("..." if param.nargs != 1 else ""), record[1]))
            else:
                options.append(record)
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
