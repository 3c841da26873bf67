"""What every command shares: the one place where wikic errors become a message and an exit code."""

from __future__ import annotations

import functools
import json
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from wikic.errors import UsageError, WikicError, debugging, os_errors_reported
from wikic.vault.layout import find_vault_root

F = TypeVar("F", bound=Callable[..., Any])


def translate_errors(fn: F) -> F:
    """Run a command; a WikicError becomes `Error: ...` (+ `Hint: ...`) on stderr and its exit code.

    With `--json` commands the error is also printed as `{"error": ...}` on stdout so scripts can parse it.
    The file system's refusals (no space, read-only, permissions, too many open files) are user errors too
    (`errors.from_os_error`). Any other exception propagates: a bug should show its traceback.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            with os_errors_reported():
                return fn(*args, **kwargs)
        except WikicError as exc:
            if kwargs.get("json_output"):
                typer.echo(json.dumps({"error": exc.message, "hint": exc.hint, "exit_code": exc.exit_code}))
            typer.echo(f"Error: {exc.message}", err=True)
            if exc.hint:
                typer.echo(f"Hint: {exc.hint}", err=True)
            if debugging():
                traceback.print_exception(exc, file=sys.stderr)
            raise typer.Exit(exc.exit_code) from None

    return wrapper  # type: ignore[return-value]


def resolve_vault(vault: Path | None) -> Path:
    """`--vault DIR`, or the nearest parent of the current directory holding SCHEMA.md, or the cwd."""
    if vault is None:
        return find_vault_root(Path.cwd())
    if not vault.exists():
        raise UsageError(f"vault folder does not exist: {vault}")
    if not vault.is_dir():
        raise UsageError(f"vault is not a folder: {vault}")
    return vault.resolve()


# `vault: VaultDir = None` in a command's signature: the one --vault option every command shares.
VaultDir = Annotated[
    Path | None,
    typer.Option(
        "--vault",
        "-C",
        metavar="DIR",
        help="Vault folder (default: the nearest parent holding SCHEMA.md, else the current folder).",
    ),
]
