"""The words of a command line as the `wikic` script's fast paths read them (`search_fast.py`, `lint_fast.py`),
before and without Typer: an option's value after `=` (a long option) or as the next word."""

from __future__ import annotations

from collections.abc import Collection, Mapping


def option_value(
    arg: str, args: list[str], valued: Mapping[str, str], short: Collection[str]
) -> tuple[str, str] | None:
    """(the key `valued` gives the option `arg`, its value): after `=` for a long option, else the next word of
    `args` (taken off it); None when `arg` is none of them, a short one written with `=`, or has no value."""
    name, equals, value = arg.partition("=")
    if name not in valued or (equals and name in short):
        return None
    if not equals:
        if not args:
            return None
        value = args.pop(0)
    return valued[name], value
