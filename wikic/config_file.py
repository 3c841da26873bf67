"""Read `VAULT/wikic.toml`, and the user's own config: the one reader of each, so a broken file gets the
same message whoever reads it.

Besides the tables it returns the line of each key, so a setting that fails validation is reported at
`wikic.toml:LINE` like a lint finding (tomllib itself keeps no positions).

The user's own config (`$XDG_CONFIG_HOME/wikic/config.toml`, by default `~/.config/wikic/config.toml`) holds
what no vault may decide for its user, since a vault is often a clone or a synced folder: which endpoints may
get the API key from the environment, and what wikic may reach besides the vault (see `wikic.settings`).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wikic import __version__
from wikic.errors import ConfigError, VaultError
from wikic.vault.paths import read_inside

CONFIG_FILE = "wikic.toml"  # at the vault's root
USER_CONFIG = "wikic/config.toml"  # under $XDG_CONFIG_HOME (default ~/.config)

# tomllib ends its message with where it stopped: "(at line 3, column 11)" or "(at end of document)".
_WHERE = re.compile(r"^(?P<what>.*) \(at (?:line (?P<line>\d+), column (?P<column>\d+)|end of document)\)$", re.S)
# A table header `[llm]` / `[ a . "b" ]` and a `key =` line (bare, quoted or dotted key).
_PART = r'(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|\'[^\']*\')'
_HEADER = re.compile(rf"^\s*\[\s*({_PART}(?:\s*\.\s*{_PART})*)\s*\]\s*(?:#.*)?$")
_KEY = re.compile(rf"^\s*({_PART}(?:\s*\.\s*{_PART})*)\s*=")
_DOT = re.compile(rf"{_PART}")
_ENV_PREFIXES = ("WIKIC_", "OPENAI_")  # the environment variables settings may read
_ENV_NAMES = ("HOME", "XDG_CONFIG_HOME")  # where the user's own config is read from


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

    The file may start with a UTF-8 byte order mark (Windows editors write one). VaultError when it is a
    link leading outside the vault: another file's settings are never taken, nor its lines shown."""
    path = Path(vault_root) / CONFIG_FILE
    try:
        raw = read_inside(Path(vault_root), path)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    return ConfigFile(path) if raw is None else parse_config(path, raw)


def user_config_path(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/wikic/config.toml`, by default `~/.config/wikic/config.toml` (a relative
    XDG_CONFIG_HOME is ignored, as the XDG specification says)."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or ""
    if not os.path.isabs(base):
        base = os.path.join(env.get("HOME") or os.path.expanduser("~"), ".config")
    return Path(base) / USER_CONFIG


def read_user_config(env: Mapping[str, str] | None = None) -> ConfigFile:
    """The user's own config parsed, with the line of every key; empty when there is none."""
    path = user_config_path(env)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return ConfigFile(path)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    return parse_config(path, raw)


def parse_config(path: Path, raw: bytes) -> ConfigFile:
    """The bytes of the TOML file at `path` parsed (a UTF-8 byte order mark tolerated), with the line of every
    key; ConfigError naming the file (and the line and column) when they are no TOML."""
    import tomllib

    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text", hint="save the file as UTF-8") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(_syntax_error(path, text, str(exc)), hint="see https://toml.io for the syntax") from None
    except RecursionError:  # an array or inline table nested thousands deep: tomllib reads it by recursion
        raise ConfigError(f"{path}: values nested too deep to read", hint="no setting of wikic nests: remove the "
                          "nested arrays or tables") from None
    return ConfigFile(path, data, key_lines(text))


def capture_allow(user_config: ConfigFile) -> list[str]:
    """`[capture] allow` of the user's own config as written (the entries that are text), read for `wikic
    capture`, which starts on every turn of a session and so reads it without the settings' validation. A
    vault's own `[capture] allow` is never read: the vault may be a clone (see `wikic.settings`)."""
    table = user_config.data.get("capture")
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


def config_fingerprint(root: Path, env: Mapping[str, str] | None = None) -> str:
    """What the vault's settings are made from, as one hash: this wikic, wikic.toml, the user's own config and
    the environment variables settings may read. Equal fingerprints mean equal settings."""
    env = os.environ if env is None else env
    digest = hashlib.sha256(f"{__version__}\0".encode())

    def vault_file() -> bytes | None:
        # as `read_config_file` reads it: never through a link out of the vault, nor from a named pipe
        return read_inside(Path(root), Path(root) / CONFIG_FILE)

    for read in (vault_file, user_config_path(env).read_bytes):
        try:
            raw = read()
        except (OSError, VaultError) as exc:
            digest.update(f"<{type(exc).__name__} {getattr(exc, 'errno', '')}>".encode())
        else:
            digest.update(b"<none>" if raw is None else b"=" + raw)
        digest.update(b"\0")
    for name in sorted(env):
        if name.startswith(_ENV_PREFIXES) or name in _ENV_NAMES:
            digest.update(f"{name}={env[name]}\0".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()
