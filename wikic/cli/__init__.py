"""The `wikic` command line: each command parses arguments, calls one core function, renders the result.

The Typer application is built in `wikic.cli.application` (and imported from here as `wikic.cli.app`). `wikic
capture` does not go through it: an assistant's hook runs it at the end of every turn, so it starts without
Typer, Rich, pydantic or anything a capture does not use (`capture_fast.run_fast`).
"""

from __future__ import annotations

import sys


def main() -> None:
    """Console entry point."""
    argv = sys.argv[1:]
    if argv[:1] == ["capture"] and not {"-h", "--help"} & set(argv):
        from wikic.cli.capture_fast import run_fast

        raise SystemExit(run_fast(argv[1:]))
    from wikic.cli.application import app

    app()


def __getattr__(name: str) -> object:
    if name == "app":
        from wikic.cli.application import app

        return app
    raise AttributeError(name)
