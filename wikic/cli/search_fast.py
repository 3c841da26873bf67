"""`wikic search QUERY` without Typer, while a `wikic serve` answers for the vault: what the `wikic` script runs
first for a search (`wikic.cli.main`), so the process asking the server starts in tens of milliseconds rather
than loading the command line's machinery (Typer and the pydantic it builds each option's parser with).

Only the plain forms are read here: one QUERY, `--k N` (`-k`), `--wing W`, `--tag T`, `--path P`, `--json`,
`--vault DIR` (`-C`), each once, a value after its option or after `=`. Anything else (another option,
`--batch`, `--rerank`, `--help`, an option twice, a value out of range, an empty query or folder) and any
search no server answers go to the full command, which reads them as it always does: this path only ever
prints what the full command would have printed for the same words.
"""

from __future__ import annotations

from pathlib import Path

from wikic.cli._output import stdout_to_nowhere
from wikic.cli._plain_words import option_value
from wikic.cli.search_output import show

_VALUED = {"--k": "k", "-k": "k", "--wing": "wing", "--tag": "tag", "--path": "path", "--vault": "vault",
           "-C": "vault"}
_SHORT = ("-k", "-C")  # a short option's value follows it as the next word (no `-k=5`, no `-k5` here)
K_LEAST, K_MOST = 1, 1000  # `wikic search --k`'s bounds (the full command's option is made with them)


def served_fast(argv: list[str]) -> int | None:
    """Print the answer a running server gives to `wikic search ARGV` and give the exit code (0; 1 when stdout is
    a pipe closed before the answer is written, as the full command ends then); None when the words are not
    plain ones or no server answers (the full command runs then)."""
    asked = _plain(argv)
    if asked is None:
        return None
    from wikic.cli._vault import resolve_vault
    from wikic.errors import UsageError
    from wikic.palace.served import served_search

    vault = asked.get("vault")
    try:
        root = resolve_vault(Path(vault) if vault is not None else None)
    except UsageError:
        return None  # the full command says what is wrong with it
    digits = asked.get("k", "10")
    if not (digits.isascii() and digits.isdigit()) or not K_LEAST <= int(digits) <= K_MOST:
        return None
    k = int(digits)
    hits = served_search(root, asked["query"], k, wing=asked.get("wing"), tag=asked.get("tag"),
                         path=asked.get("path"))
    if hits is None:
        return None
    try:
        show(asked["query"], hits, "json" in asked)
    except BrokenPipeError:  # `wikic search ... | head`: the rest unsaid and exit 1
        stdout_to_nowhere()
        return 1
    return 0


def _plain(argv: list[str]) -> dict[str, str] | None:
    """The plain words of a search (`query`, the options' values, `json` when asked), or None."""
    out: dict[str, str] = {}
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--json":
            key, value = "json", ""
        elif not arg.startswith("-"):
            key, value = "query", arg
        else:
            valued = option_value(arg, args, _VALUED, _SHORT)
            if valued is None:
                return None
            key, value = valued
        if key in out:
            return None
        out[key] = value
    if not out.get("query", "").strip() or ("vault" in out and not out["vault"].strip()):
        return None
    return out
