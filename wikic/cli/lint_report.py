"""What `wikic lint` does once its words are read, without Typer: the checks of what they ask for, the lint,
and the report printed. The full command (`lint_cmd.py`) and the `wikic` script's fast path for the plain
forms (`lint_fast.py`) both go through it, so the two print the same for the same words."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from wikic.cli._output import say
from wikic.cli._vault import resolve_vault
from wikic.errors import UsageError
from wikic.lint.render import FORMATS, render
from wikic.lint.run import LintOptions, LintReport
from wikic.lint.scope import asked_about


@dataclass(frozen=True)
class LintRequest:
    """A lint as the words asked for it: the vault, the label its report names it by, the options, the format."""

    root: Path
    label: str
    options: LintOptions
    fmt: str


def lint_request(
    paths: list[Path], vault: Path | None, *, changed: bool = False, fmt: str = "text", json_output: bool = False,
    strict: bool | None = None, select: list[str] | None = None, ignore: list[str] | None = None,
    cache: bool | None = None, as_of: str | None = None,
) -> LintRequest:
    """The lint `wikic lint PATHS...` asks for with these options; a UsageError for words that do not go
    together, a vault or file that is not there, a date that is none."""
    vault_arg, files = split_paths(paths, vault)
    if json_output and fmt not in ("text", "json"):
        raise UsageError(f"--json and --format {fmt} do not go together", hint="--json is --format json: give one")
    fmt = "json" if json_output else fmt
    if fmt not in FORMATS:
        raise UsageError(f"unknown format '{fmt}'", hint=f"use one of: {', '.join(FORMATS)}")
    root = resolve_vault(vault_arg or vault)
    today = None
    if as_of is not None:
        try:
            today = dt.date.fromisoformat(as_of)
        except ValueError:
            raise UsageError(
                f"--as-of must be a date YYYY-MM-DD, not '{as_of}'", hint="for example: --as-of 2026-11-29"
            ) from None
    options = LintOptions(select=_names(select), ignore=_names(ignore), strict=strict, use_cache=cache, today=today,
                          only=asked_about(root, files, changed))
    return LintRequest(root, str(vault_arg or vault or root), options, fmt)


def show_report(report: LintReport, fmt: str) -> None:
    """The report in `fmt` on stdout (nothing when that format has nothing to say)."""
    out = render(report, fmt)
    if out:
        say(out, as_json=fmt in ("json", "sarif"))


def split_paths(paths: list[Path], vault: Path | None) -> tuple[Path | None, list[Path]]:
    """(the vault given as the first argument, the files given after it, or after --vault): files that exist,
    and a vault given once."""
    vault_arg, files = (None, paths) if vault is not None else (paths[0] if paths else None, paths[1:])
    for path in files:
        if path.is_dir():
            raise UsageError(
                f"{path} is a folder: give one vault, either as the first argument or with --vault, then files of it",
                hint="wikic lint my-wiki, or wikic lint --vault my-wiki my-wiki/entities/acme.md",
            )
        if not path.exists():
            raise UsageError(f"no such file: {path}", hint="name files of the vault that exist")
    return vault_arg, files


def _names(values: list[str] | None) -> tuple[str, ...]:
    return tuple(n.strip() for v in values or [] for n in v.split(",") if n.strip())
