"""The `wikic` command line: each command parses arguments, calls one core function, renders the result.

The Typer application is built in `wikic.cli.application` (and imported from here as `wikic.cli.app`). `wikic
capture` does not go through it: an assistant's hook runs it at the end of every turn, so it starts without
Typer, Rich, pydantic or anything a capture does not use (`capture_fast.run_fast`). Nor does a plain `wikic
search QUERY` that a running `wikic serve` answers (`search_fast.served_fast`: the plain forms of its options
alone, printed by `search_output.show` as the full command prints them); any other search, or one no server
answers, is the full command's. Nor does a plain `wikic lint` (`lint_fast.linted_fast`: a pre-commit hook's
lint, `[VAULT] [FILE]...` and the report's options; what it asks is checked, linted and printed by
`lint_report.py`, which the full command uses too); `--fix`, `--diff`, `--explain`, `--help` and any lint that
stops on an error are the full command's. `python -m wikic` runs the same `main`.

Conventions, in detail:

Library first, CLI last: each `wikic/cli/*_cmd.py` parses arguments, calls one core function, renders the
result. The core raises `wikic.errors.WikicError` subclasses (each with an exit code and a hint); the CLI
turns them into `Error: ...` once (`cli/_common.translate_errors`; a usage error with no hint of its own gets
the command's `--help` and example as its hint). Every line the command line prints goes through
`cli/_output.py` (`say`, `say_json`): control characters, C1 codes, lone surrogates and bidirectional
overrides are written out visibly, JSON escapes them the JSON way; `tests/test_cli_output.py` fails on any
other print in `wikic/cli/`. `wikic ingest` stops on SIGTERM as on Ctrl-C (`cli/_signals.terminated_as_interrupted`,
exit 143).
The faces are the composition roots: every command and MCP tool opens one `VaultContext` (`wikic/context.py`)
and passes it down; no entry point below the faces takes a folder, and only `context.py` reads wikic.toml and
SCHEMA.md (and `hubs/setup.py`, for `wikic init`, before there is a vault to open): the palace, facts, graph
and the vault's loading are handed the context's settings or schema (`tests/test_one_door.py`). Module-level
state is kept to what a process shares by nature: `embed._CACHE` (the embedding models loaded, one per model),
`palace/store_process._process` (the one store child process), `lint/run._FORKED_CONTEXT` and
`vault/load._RESOLVER` and `_PER_NOTE` (what a forked worker or one parse reads, set for it and cleared
after), and the `functools` caches of pure functions (in `resources`, `text/`, `llm/schema`, `vault/`,
`facts/same_fact`, `compile/page`, `palace/palace`).
Long work (extraction, writing, embedding) reports `ProgressEvent`s (`wikic/progress.py`) to a callback;
the CLI draws them as Rich bars on a terminal and not at all on a pipe (`cli/_progress.py`).
Every command renders click's plain help through `cli/_help.HelpCommand` (no Rich markup, which would eat
`[[link]]`; values named in capitals, never by Python type), and the argument parser's own usage errors (an
unknown command or option, a missing argument, a number out of its range) go through `HelpCommand` and
`HelpGroup` to `_common.ArgumentError`, which shows them as the other usage errors are. `vault/layout.require_vault`
is the one
check that refuses a folder without SCHEMA.md for everything that needs a wikic vault (ingest, the
palace, query, status, the MCP server).

The base install (what lint, init, graph, status, facts and wake-up import) holds no model client, vector
store or numpy; the `llm`, `palace` and `mcp` extras bring them. `errors.require_extra` is the one check of
an extra: it looks its modules up without importing them and raises `MissingExtra` (exit 2, naming the
extra to install) where a part that needs one starts: the ingest pipeline and the model client (`llm`),
the palace package and `Palace()` (`palace`), the MCP server (`mcp`). Heavy modules (openai, numpy, bs4,
chromadb) are imported where they are used, so a command pays only for what it runs: `status` reads the
palace's manifest (`palace/summary.read_palace_summary`) without starting the store process, query checks the
model's configuration before its search loads the embedder, and the store process starts on the first
search or write (`bench/startup.py` times every command).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # `wikic.cli.app` is imported on first use (`__getattr__` below): its type is the application's
    from wikic.cli.application import app as app


def main(prog_name: str | None = None) -> None:
    """Console entry point (`prog_name`: the name usage lines give the command, when not the script's own)."""
    argv = sys.argv[1:]
    if argv[:1] == ["capture"] and not {"-h", "--help"} & set(argv):
        from wikic.cli.capture_fast import run_fast

        raise SystemExit(run_fast(argv[1:]))
    if argv[:1] == ["search"]:
        from wikic.cli.search_fast import served_fast

        code = served_fast(argv[1:])
        if code is not None:  # a running `wikic serve` answered a plain search
            raise SystemExit(code)
    if argv[:1] == ["lint"]:
        from wikic.cli.lint_fast import linted_fast

        code = linted_fast(argv[1:])
        if code is not None:  # a plain lint, linted
            raise SystemExit(code)
    from wikic.cli.application import app

    app(prog_name=prog_name)


def __getattr__(name: str) -> object:
    if name == "app":
        from wikic.cli.application import app

        return app
    raise AttributeError(name)
