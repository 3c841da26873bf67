"""Read `VAULT/wikic.toml`: the one reader, so a broken file gets the same message whoever reads it.

Besides the tables it returns the line of each key, so a setting that fails validation is reported at
`wikic.toml:LINE` like a lint finding (tomllib itself keeps no positions).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from wikic.errors import ConfigError

CONFIG_FILE = "wikic.toml"  # at the vault's root

# tomllib ends its message with where it stopped: "(at line 3, column 11)" or "(at end of document)".
_WHERE = re.compile(r"^(?P<what>.*) \(at (?:line (?P<line>\d+), column (?P<column>\d+)|end of document)\)$", re.S)
# A table header `[llm]` / `[ a . "b" ]` and a `key =` line (bare, quoted or dotted key).
_PART = r'(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|\'[^\']*\')'
_HEADER = re.compile(rf"^\s*\[\s*({_PART}(?:\s*\.\s*{_PART})*)\s*\]\s*(?:#.*)?$")
_KEY = re.compile(rf"^\s*({_PART}(?:\s*\.\s*{_PART})*)\s*=")
_DOT = re.compile(rf"{_PART}")


class ConfigFile:
    # a plain class: `wikic capture` (a hook, every turn) reads `[capture]` through this module and must start fast
    def __init__(self, path: Path, data: dict[str, Any] | None = None,
                 lines: dict[tuple[str, ...], int] | None = None) -> None:
        self.path = path
        self.data = data if data is not None else {}
        # ("llm",) -> line of `[llm]`; ("llm", "model") -> line of `model = ...` under it (1-based)
        self.lines = lines if lines is not None else {}


def read_config_file(vault_root: Path) -> ConfigFile:
    """`vault_root/wikic.toml` parsed, with the line of every key; empty when there is no file.

    The file may start with a UTF-8 byte order mark (Windows editors write one)."""
    import tomllib

    path = Path(vault_root) / CONFIG_FILE
    if not path.exists():
        return ConfigFile(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text", hint="save the file as UTF-8") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(_syntax_error(path, text, str(exc)), hint="see https://toml.io for the syntax") from None
    return ConfigFile(path, data, key_lines(text))


def capture_allow(vault_root: Path) -> list[str]:
    """`[capture] allow` of `vault_root/wikic.toml` as written (the entries that are text), read for `wikic
    capture`, which starts on every turn of a session: a file that does not mention `capture` is not parsed.
    ConfigError when the file cannot be read."""
    try:
        mentioned = "capture" in (Path(vault_root) / CONFIG_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        mentioned = False
    if not mentioned:
        return []
    table = read_config_file(vault_root).data.get("capture")
    extra = table.get("allow") if isinstance(table, dict) else None
    return [item for item in extra if isinstance(item, str)] if isinstance(extra, list) else []


def key_lines(text: str) -> dict[tuple[str, ...], int]:
    """Where each table and key of a valid TOML document is (first occurrence). Lines inside multi-line
    strings are skipped; a key this cannot place simply has no line."""
    out: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    in_string: str | None = None
    for number, line in enumerate(text.split("\n"), start=1):
        if in_string is not None:
            if line.count(in_string) % 2 == 1:
                in_string = None
            continue
        if m := _HEADER.match(line):
            table = _parts(m.group(1))
            out.setdefault(table, number)
        elif m := _KEY.match(line):
            out.setdefault((*table, *_parts(m.group(1))), number)
            rest = line[m.end() :]
            for quotes in ('"""', "'''"):
                if rest.count(quotes) % 2 == 1:
                    in_string = quotes
    return out


def _parts(dotted: str) -> tuple[str, ...]:
    return tuple(p[1:-1] if p[0] in "\"'" else p for p in _DOT.findall(dotted))


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
