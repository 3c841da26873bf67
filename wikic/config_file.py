"""Read `VAULT/wikic.toml`: the one reader, so a broken file gets the same message whoever reads it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from wikic.errors import ConfigError
from wikic.vault.layout import CONFIG_FILE

# tomllib ends its message with where it stopped: "(at line 3, column 11)" or "(at end of document)".
_WHERE = re.compile(r"^(?P<what>.*) \(at (?:line (?P<line>\d+), column (?P<column>\d+)|end of document)\)$", re.S)


def read_config(vault_root: Path) -> dict[str, Any]:
    """The tables of `vault_root/wikic.toml`, or {} when there is none."""
    path = Path(vault_root) / CONFIG_FILE
    if not path.exists():
        return {}
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text", hint="save the file as UTF-8") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(_syntax_error(path, text, str(exc)), hint="see https://toml.io for the syntax") from None


def _syntax_error(path: Path, text: str, message: str) -> str:
    """`path:line:column: invalid TOML: what`, like a lint finding (editors jump to it)."""
    m = _WHERE.match(message)
    if m is None:
        return f"{path}: invalid TOML: {message}"
    if m.group("line"):
        line, column = int(m.group("line")), int(m.group("column"))
    else:  # the file ended inside something unclosed
        lines = text.split("\n")
        line, column = len(lines), len(lines[-1]) + 1
    return f"{path}:{line}:{column}: invalid TOML: {m.group('what')}"
