"""`wikic capture`: what an assistant's hook runs. It reads the hook's JSON on standard input and queues
the session's new lines (`wikic.conversations.queue.capture`), and always exits 0 (see `capture_fast`,
the path the `wikic` script takes; this Typer command is the same for `--help`, `python -m wikic` and tests).
"""

from __future__ import annotations

from typing import Annotated

import typer

from wikic.cli._common import VaultDir
from wikic.cli._output import say
from wikic.cli.capture_fast import capture_stdin, read_stdin


def register(app: typer.Typer) -> None:
    @app.command("capture")
    def capture_command(
        vault: VaultDir = None,
        tool: Annotated[
            str | None,
            typer.Option(
                "--tool",
                metavar="claude-code|codex|gemini-cli",
                help="Which assistant wrote the session (default: read from the session file).",
            ),
        ] = None,
    ) -> None:
        """Queue the new part of an assistant's session, from its hook's JSON on standard input.

        Reads `transcript_path` (and `session_id`, `cwd`, `hook_event_name`) from the JSON the hook gets,
        copies the session file's lines not copied before into the vault's capture queue, and returns at
        once: no model, no search index. `wikic ingest` (or `wikic watch`) turns the queue into transcripts.
        The vault: --vault, else WIKIC_VAULT, else [capture] vault in ~/.config/wikic/config.toml, else the
        nearest vault above the session's folder. Always exits 0 (a hook must not break the session);
        problems are one line on stderr.

        Example: echo '{"transcript_path": "~/.claude/projects/p/s.jsonl", "session_id": "s"}' | wikic capture --vault ~/wiki
        """  # noqa: E501 - the example is a command line to copy whole
        code, message = capture_stdin(vault, tool, read_stdin())
        if message:
            say(message, err=True)
        raise typer.Exit(code)
