"""What a client of the vault (the MCP server's `ingest` tool) may hand ingest to read.

A client is a model, and a source or a web page it read may have talked it into asking for `~/.ssh/id_rsa`,
`../.env` or a service on the local network: whatever ingest reads is copied into raw/, sent to the model
and made searchable. So a client may name files of the vault (outside its dot-folders and dot-files), files
in the folders `[mcp] allow` lists, and http(s) URLs of public hosts (or under a URL `[mcp] allow` lists);
anything else is refused before it is read. A URL that passes is then fetched public hosts only, redirects and
the address a name resolves to when fetched included (`public_fetch.py`). A person at the command line is not
held to this.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from wikic.errors import UsageError
from wikic.vault.paths import within

_HINT = ("a client may ingest files of the vault, of the folders listed under [mcp] allow in your own "
         "~/.config/wikic/config.toml, and public http(s) URLs; copy the file into the vault's inbox/ or list its "
         "folder there")


def client_inputs(root: Path, sources: Sequence[str], allow: Sequence[str]) -> list[str]:
    """`sources` as ingest takes them (absolute paths, URLs), or UsageError naming every one refused.
    A relative path is the vault's: the server's own working folder is no base for paths."""
    real_root = os.path.realpath(root)
    folders = [os.path.realpath(_expand(root, a)) for a in allow if not _is_url(a)]
    prefixes = url_prefixes(allow)
    out: list[str] = []
    refused: list[str] = []
    for source in sources:
        if _is_url(source):
            reason = _url_refused(source, prefixes)
            resolved = source
        else:
            resolved, reason = _path_refused(root, real_root, source, folders)
        if reason:
            refused.append(f"{source} ({reason})")
        else:
            out.append(resolved)
    if refused:
        raise UsageError(f"refusing to ingest {'; '.join(refused)}", hint=_HINT)
    return out


def url_prefixes(allow: Sequence[str]) -> list[str]:
    """The URL prefixes among what `[mcp] allow` lists (the rest are folders)."""
    return [a for a in allow if _is_url(a)]


def _is_url(text: str) -> bool:
    return text.lower().startswith(("http://", "https://"))


def _expand(root: Path, folder: str) -> Path:
    path = Path(os.path.expanduser(folder))
    return path if path.is_absolute() else root / path


def _path_refused(root: Path, real_root: str, source: str, folders: list[str]) -> tuple[str, str | None]:
    if source.strip() in ("", "-"):
        return source, "not a file (the server's standard input is the client's channel)"
    path = _expand(root, source)
    real = os.path.realpath(path)
    if within(real_root, real):
        rel = Path(os.path.relpath(real, real_root))
        if any(part.startswith(".") for part in rel.parts):
            return source, "a hidden file or folder of the vault"
        return str(path), None
    if any(within(folder, real) for folder in folders):
        return str(path), None
    return source, "outside the vault"


def _url_refused(url: str, prefixes: list[str]) -> str | None:
    if any(url.startswith(prefix) for prefix in prefixes):
        return None
    host = urlsplit(url).hostname
    if not host:
        return "no host"
    try:
        addresses = {str(info[4][0]) for info in socket.getaddrinfo(host, None)}
    except (OSError, UnicodeError):
        return None  # ingest's own fetch reports a host that does not resolve
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        if not ip.is_global:
            return f"{host} is a local or private address"
    return None
