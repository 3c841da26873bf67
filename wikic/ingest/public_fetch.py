"""Fetching a URL a client of the vault named (the MCP server's `ingest` tool), public hosts only.

`client_inputs` refuses a URL whose host resolves to a local or private address before anything is read. That
check alone leaves two ways in: a public page that redirects to `http://169.254.169.254/`, and a host name that
resolves to a public address when checked and to a private one when fetched. So such a URL is fetched through
an opener whose every connection, the first and each redirect's, checks the address it actually reached
before a byte of the request is sent, and refuses one that is not global (a URL under a prefix `[mcp] allow`
lists may reach any address). It connects directly, never through a proxy: there the address reached is the
proxy's, which says nothing of the host asked for.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import urllib.request
from collections.abc import Sequence
from typing import Any


class PrivateAddress(OSError):
    """A connection reached an address that is not public."""


def opener(allowed: Sequence[str]) -> urllib.request.OpenerDirector:
    """An opener for a client's URLs: direct connections to global addresses only, except URLs (and redirect
    targets) under one of the `allowed` prefixes."""
    return urllib.request.build_opener(
        urllib.request.ProxyHandler({}), _Handler(allowed), _HTTPSHandler(allowed)
    )


def _checked_connection(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
    sock = socket.create_connection(address, *args, **kwargs)
    peer = sock.getpeername()[0]
    if not ipaddress.ip_address(str(peer).split("%", 1)[0]).is_global:
        sock.close()
        raise PrivateAddress(f"{address[0]} is a local or private address ({peer})")
    return sock


class _PublicHTTPConnection(http.client.HTTPConnection):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = _checked_connection


class _PublicHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = _checked_connection  # before the TLS handshake, too


def _trusted(url: str, allowed: Sequence[str]) -> bool:
    return any(url.startswith(prefix) for prefix in allowed)


class _Handler(urllib.request.HTTPHandler):
    def __init__(self, allowed: Sequence[str]) -> None:
        super().__init__()
        self._allowed = tuple(allowed)

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        connection = http.client.HTTPConnection if _trusted(req.full_url, self._allowed) else _PublicHTTPConnection
        return self.do_open(connection, req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, allowed: Sequence[str]) -> None:
        super().__init__()
        self._allowed = tuple(allowed)

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        connection = http.client.HTTPSConnection if _trusted(req.full_url, self._allowed) else _PublicHTTPSConnection
        return self.do_open(connection, req, context=self._context)  # type: ignore[attr-defined]
