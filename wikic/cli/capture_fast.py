"""`wikic capture` without Typer: what the `wikic` script runs for it (`wikic.cli.main`), so a hook's
process starts in a few tens of milliseconds. It never exits non-zero: a hook that fails would break the
user's session, so whatever goes wrong is one line on stderr and exit 0.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from wikic.cli._output import say

_USAGE = "usage: wikic capture [--vault DIR] [--tool claude-code|codex|gemini-cli] < HOOK_JSON"


def capture_stdin(vault: Path | None, tool: str | None, stdin: bytes) -> tuple[int, str]:
    """(exit code, the line for stderr or ''): always 0. Anything unexpected is reported too, never raised."""
    from wikic.conversations.queue import capture
    from wikic.errors import WikicError

    try:
        capture(stdin, vault=vault, env=os.environ, tool=tool)
    except WikicError as exc:
        return 0, f"wikic capture: {exc.message}"
    except Exception as exc:  # noqa: BLE001 - a hook must never break the session; the message says what failed
        return (
            0,
            (
                f"wikic capture: failed ({type(exc).__name__}: {exc}); nothing was queued, the next capture takes "
                "these lines"
            ),
        )
    return 0, ""


def run_fast(argv: list[str]) -> int:
    vault: Path | None = None
    tool: str | None = None
    args = list(argv)
    while args:
        arg = args.pop(0)
        name, _, value = arg.partition("=")
        if name in ("--vault", "-C", "--tool") and not value:
            if not args:
                say(f"wikic capture: {name} needs a value ({_USAGE})", err=True)
                return 0
            value = args.pop(0)
        if name in ("--vault", "-C"):
            vault = Path(value)
        elif name == "--tool":
            tool = value
        else:
            say(f"wikic capture: unknown option {arg} ({_USAGE})", err=True)
            return 0
    code, message = capture_stdin(vault, tool, read_stdin())
    if message:
        say(message, err=True)
    return code


def read_stdin() -> bytes:
    try:
        return b"" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read()
    except (OSError, ValueError):
        return b""
