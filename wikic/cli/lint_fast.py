"""`wikic lint` without Typer, for its plain forms: what the `wikic` script runs first for a lint
(`wikic.cli.main`), so a pre-commit hook's lint of a vault its last run left cached does not spend a third of
its time loading the command line's machinery (Typer and the pydantic it builds each option's parser with).

Only the plain forms are read here: `[VAULT] [FILE]...`, `--vault DIR` (`-C`), `--format F` (`-f`), `--json`,
`--changed`, `--strict`/`--no-strict`, `--cache`/`--no-cache`, `--select R`, `--ignore R`, `--as-of DATE`, each
once, a value after its option (or after `=` for a long one). Anything else (`--fix`, `--diff`, `--explain`,
`--help`, an option twice, an empty word, a value that looks like an option) and any lint that stops on an
error goes to the full command, which reads the words as it always does and reports what is wrong: this path
only ever prints what the full command would have printed for the same words, with the same exit code (a bug
aside, whose traceback either shows).
"""

from __future__ import annotations

from pathlib import Path

from wikic.cli._output import stdout_to_nowhere
from wikic.cli._plain_words import option_value

_VALUED = {"--vault": "vault", "-C": "vault", "--format": "format", "-f": "format", "--select": "select",
           "--ignore": "ignore", "--as-of": "as_of"}
_SHORT = ("-C", "-f")  # a short option's value follows it as the next word (no `-fjson` here)
_FLAGS = {"--json": ("json", True), "--changed": ("changed", True), "--strict": ("strict", True),
          "--no-strict": ("strict", False), "--cache": ("cache", True), "--no-cache": ("cache", False)}
INTERRUPTED = 130  # Ctrl-C, as the full command exits on it


def linted_fast(argv: list[str]) -> int | None:
    """Lint as `wikic lint ARGV` does, print its report and give its exit code; None when the words are not
    plain ones or the lint stopped on an error (nothing was printed: the full command runs then)."""
    asked = _plain(argv)
    if asked is None:
        return None
    from wikic.cli.lint_report import lint_request, show_report
    from wikic.context import VaultContext
    from wikic.errors import WikicError, os_errors_reported
    from wikic.lint.run import run_lint

    words, flags, values = asked
    try:
        with os_errors_reported():
            request = lint_request(
                [Path(w) for w in words], Path(values["vault"]) if "vault" in values else None,
                changed=bool(flags.get("changed")), fmt=values.get("format", "text"),
                json_output=bool(flags.get("json")), strict=flags.get("strict"),
                select=[values["select"]] if "select" in values else None,
                ignore=[values["ignore"]] if "ignore" in values else None,
                cache=flags.get("cache"), as_of=values.get("as_of"))
            report = run_lint(VaultContext(request.root), request.options, label=request.label)
    except WikicError:
        return None  # the full command says what is wrong, as it always does
    except KeyboardInterrupt:
        return INTERRUPTED
    try:
        show_report(report, request.fmt)
    except BrokenPipeError:  # `wikic lint | head`: as the full command, the rest unsaid and exit 1
        stdout_to_nowhere()
        return 1
    return report.exit_code


def _plain(argv: list[str]) -> tuple[list[str], dict[str, bool], dict[str, str]] | None:
    """(the words that are no option, the flags given, the options' values), or None for any other form."""
    words: list[str] = []
    flags: dict[str, bool] = {}
    values: dict[str, str] = {}
    args = list(argv)
    while args:
        arg = args.pop(0)
        if not arg.strip():
            return None  # the full command refuses an empty path
        if not arg.startswith("-"):
            words.append(arg)
            continue
        if arg in _FLAGS:
            key, flag = _FLAGS[arg]
            if key in flags:
                return None
            flags[key] = flag
            continue
        valued = option_value(arg, args, _VALUED, _SHORT)
        if valued is None:
            return None
        key, value = valued
        if key in values or not value.strip() or value.startswith("-"):
            return None
        values[key] = value
    return words, flags, values
