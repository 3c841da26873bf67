"""The user's own config, outside every vault: the endpoints they trust with the API key from the environment
(`wikic trust`), and the token of the MCP server's HTTP transport.

Both live beside `config.toml` in `$XDG_CONFIG_HOME/wikic/` (by default `~/.config/wikic/`, read by
`wikic.config_file`, validated by `wikic.settings.load_user_settings`). A vault is often a clone or a synced
folder, so what it may decide for its user is settled here and never in a vault; these are the only files
wikic writes outside one, and only when the user asks (`wikic trust`) or serves over HTTP.
"""

from __future__ import annotations

import json
import os
import secrets
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from wikic.config_file import key_lines, user_config_path
from wikic.errors import ConfigError, UsageError
from wikic.redact import without_credentials
from wikic.settings import endpoint_origin, http_url, load_user_settings
from wikic.vault.write import temp_beside, write_bytes_atomic

TRUSTED = "trusted_endpoints"  # the top-level key of config.toml
TOKEN_FILE = "mcp-token"  # beside config.toml, private (0600)
TOKEN_VARIABLE = "WIKIC_MCP_TOKEN"
_MIN_TOKEN = 16  # characters: a shorter token is guessable


@dataclass(frozen=True)
class Trust:
    """What `trust_endpoint` or `distrust_endpoint` did: the endpoint (its origin), the file, whether it
    changed (False: it was already trusted, or was not)."""

    origin: str
    path: Path
    changed: bool


def trusted_endpoints(env: Mapping[str, str] | None = None) -> list[str]:
    """The endpoints the user trusts with the API key, as listed in their config."""
    return load_user_settings(env).trusted_endpoints


def trust_endpoint(url: str, env: Mapping[str, str] | None = None) -> Trust:
    """Add the endpoint of `url` (its `scheme://host[:port]`: the key goes to the server, whatever the path) to
    `trusted_endpoints` in the user's config, the rest of the file kept as written."""
    origin = _origin(url)
    listed = trusted_endpoints(env)
    if origin in listed:
        return Trust(origin, user_config_path(env), False)
    return Trust(origin, _write_list(user_config_path(env), TRUSTED, [*listed, origin]), True)


def distrust_endpoint(url: str, env: Mapping[str, str] | None = None) -> Trust:
    """Take the endpoint of `url` off `trusted_endpoints` in the user's config."""
    origin = _origin(url)
    listed = trusted_endpoints(env)
    if origin not in listed:
        return Trust(origin, user_config_path(env), False)
    return Trust(origin, _write_list(user_config_path(env), TRUSTED, [u for u in listed if u != origin]), True)


def _origin(url: str) -> str:
    try:
        return endpoint_origin(http_url(url.strip(), "https://llm.example.com/v1"))
    except ValueError as exc:
        raise UsageError(f"cannot trust {without_credentials(url)!r}: it {exc}") from None


def _write_list(path: Path, key: str, values: list[str]) -> Path:
    """Set the top-level `key = [...]` of the TOML file at `path` to `values`: the key's lines are replaced (or
    the key is added at the top, where top-level keys belong), every other line stays as written."""
    text = path.read_bytes().decode("utf-8-sig") if path.exists() else ""  # read and checked by the caller
    lines = text.splitlines(keepends=True)
    rendered = [f"{key} = [\n", *(f"  {json.dumps(v, ensure_ascii=False)},\n" for v in values), "]\n"]
    start = key_lines(text).get((key,))
    if start is None:
        lines = rendered + (["\n"] if lines else []) + lines
    else:
        end = _value_end(lines, start - 1, key)
        lines = lines[: start - 1] + rendered + lines[end:]
    write_bytes_atomic(path, "".join(lines).encode("utf-8"), root=None)
    return path


def _value_end(lines: list[str], first: int, key: str) -> int:
    """The index after the last line of `key`'s value, which starts on line `first` and may span lines (an
    array written over several): the fewest lines from `first` that hold the key and its whole value."""
    import tomllib

    for end in range(first + 1, len(lines) + 1):
        try:
            if key in tomllib.loads("".join(lines[first:end])):
                return end
        except tomllib.TOMLDecodeError:
            continue
    return len(lines)


# -- the MCP server's token -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class McpToken:
    """The bearer token an HTTP client of `wikic mcp --http` must send, and where it came from."""

    value: str = field(repr=False)
    source: str  # "WIKIC_MCP_TOKEN" or the path of the token file
    created: bool  # made by this call


def mcp_token(env: Mapping[str, str] | None = None) -> McpToken:
    """`WIKIC_MCP_TOKEN` when set; else the token kept in `~/.config/wikic/mcp-token`, made (random, 256 bits,
    0600) on first use. A token file others may read is refused: any local user could call the server."""
    env = os.environ if env is None else env
    given = (env.get(TOKEN_VARIABLE) or "").strip()
    if given:
        if len(given) < _MIN_TOKEN or not all("!" <= c <= "~" for c in given):
            raise ConfigError(
                f"{TOKEN_VARIABLE} must be at least {_MIN_TOKEN} printable ASCII characters without spaces "
                "(the token is not shown)",
                hint=f"unset it to use the token wikic keeps in {user_config_path(env).parent / TOKEN_FILE}",
            )
        return McpToken(given, TOKEN_VARIABLE, False)
    path = user_config_path(env).parent / TOKEN_FILE
    created = False
    if not path.exists():
        created = _create_private(path, secrets.token_urlsafe(32) + "\n")
    try:
        if stat.S_IMODE(path.stat().st_mode) & 0o077:
            raise ConfigError(
                f"{path}: others may read the MCP server's token",
                hint=f"make it yours alone (chmod 600 {path}), or delete it and a new one is made",
            )
        value = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the MCP server's token ({exc})") from None
    if len(value) < _MIN_TOKEN or not all("!" <= c <= "~" for c in value):
        raise ConfigError(f"{path}: not a token wikic made", hint="delete it, and a new one is made")
    return McpToken(value, str(path), created)


def _create_private(path: Path, text: str) -> bool:
    """Create `path` (0600) holding `text`, never over a file: two servers starting at once make one token
    between them. Whether this call made it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = temp_beside(path, private=True)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        return True
    finally:
        os.unlink(tmp)
