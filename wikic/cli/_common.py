"""What every command shares: the one place where errors become a message and an exit code.

Both kinds of usage error end here: a WikicError the core raised (`translate_errors`) and one the argument
parser found before the command ran (`ArgumentError`, from `_help`). Either prints `Error: ...` and a `Hint:
...` on stderr (a usage or configuration error without a hint of its own gets the command's --help and its
example) and, with `--json`, `{"error": ..., "hint": ..., "exit_code": ...}` on stdout.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from typer._click.exceptions import UsageError as ClickUsageError
from typer._click.globals import get_current_context

from wikic.cli._output import say, say_json, say_traceback
from wikic.cli._vault import resolve_vault as resolve_vault
from wikic.errors import WikicError, debugging, os_errors_reported

if TYPE_CHECKING:
    from typer._click import Command

F = TypeVar("F", bound=Callable[..., Any])


def example_of(command: Command | None) -> str | None:
    """The command line of a command's `Example:` paragraph (every command has one: a test holds them to it)."""
    for line in (command.help or "").splitlines() if command is not None else ():
        if line.strip().startswith("Example:"):
            return line.strip().removeprefix("Example:").strip()
    return None


def help_hint(command_path: str, command: Command | None) -> str:
    """The hint of a usage error that has none of its own: where the command's usage is, with its example."""
    example = example_of(command)
    return f"see `{command_path} --help`" + (f"; for example: {example}" if example else "")


def show_error(message: str, hint: str | None, exit_code: int, *, json_output: bool) -> None:
    """`Error: ...` and `Hint: ...` on stderr; with --json, the same as one JSON object on stdout first."""
    if json_output:
        say_json({"error": message, "hint": hint, "exit_code": exit_code}, ensure_ascii=True)
    say(f"Error: {message}", err=True)
    if hint:
        say(f"Hint: {hint}", err=True)


def wants_json(args: Sequence[str]) -> bool:
    """Whether a command line asks for JSON output (`--json`, or lint's `--format json`), before it is parsed."""
    args = list(args)
    for n, arg in enumerate(args):
        if arg == "--":
            return False
        if arg == "--json" or arg in ("--format=json", "-fjson"):
            return True
        if arg in ("--format", "-f") and args[n + 1 : n + 2] == ["json"]:
            return True
    return False


class ArgumentError(ClickUsageError):
    """A usage error the argument parser found (an unknown option, a missing argument, a number out of its
    range), shown as every other usage error is."""

    def __init__(self, error: ClickUsageError, args: Sequence[str]) -> None:
        super().__init__(error.format_message(), error.ctx)
        self.json_output = wants_json(args)

    def show(self, file: IO[Any] | None = None) -> None:
        command_path = self.ctx.command_path if self.ctx is not None else "wikic"
        hint = help_hint(command_path, self.cmd)
        show_error(self.format_message(), hint, self.exit_code, json_output=self.json_output)


def translate_errors(fn: F) -> F:
    """Run a command; a WikicError becomes `Error: ...` (+ `Hint: ...`) on stderr and its exit code.

    With `--json` (or `--format json`) the error is also printed as `{"error": ...}` on stdout so scripts can
    parse it. The file system's refusals (no space, read-only, permissions, too many open files) are user
    errors too (`errors.from_os_error`). Any other exception propagates: a bug should show its traceback.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            with os_errors_reported():
                return fn(*args, **kwargs)
        except WikicError as exc:
            hint = exc.hint
            if hint is None and exc.exit_code == 2:
                ctx = get_current_context(silent=True)
                hint = help_hint(ctx.command_path, ctx.command) if ctx is not None else None
            json_output = bool(kwargs.get("json_output")) or kwargs.get("fmt") == "json"
            show_error(exc.message, hint, exc.exit_code, json_output=json_output)
            if debugging():
                say_traceback(exc)
            raise typer.Exit(exc.exit_code) from None

    return wrapper  # type: ignore[return-value]


def folder_path(value: str) -> Path:
    """A folder given on the command line. An empty one is refused: `--vault "$VAULT"` with the variable
    unset must not quietly mean the current folder (Path("") is ".")."""
    if not value.strip():
        raise typer.BadParameter("the path is empty (for the current folder, give .)")
    return Path(value)


# `vault: VaultDir = None` in a command's signature: the one --vault option every command shares.
VaultDir = Annotated[
    Path | None,
    typer.Option(
        "--vault",
        "-C",
        metavar="DIR",
        parser=folder_path,
        help="Vault folder (default: the nearest parent holding SCHEMA.md, else the current folder).",
    ),
]
