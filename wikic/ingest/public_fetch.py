"""Fetching a URL within a deadline, and a URL a client of the vault named (the MCP server's `ingest` tool)
from public hosts only.

`[ingest] fetch_timeout` bounds a whole download, not each read: a server sending a byte a second would
otherwise hold a run for ever. `TotalTimeout` is the timeout urllib is given: each connection urllib opens
for the request (redirects too) is watched by it, and shut down when it passes, which ends a read that
waits or trickles, in the headers as in the body.

`client_inputs` refuses a URL whose host resolves to a local or private address before anything is read. That
check alone leaves two ways in: a public page that redirects to `http://169.254.169.254/`, and a host name that
resolves to a public address when checked and to a private one when fetched. So such a URL is fetched through
an opener whose every connection, the first and each redirect's, checks the address it actually reached
before a byte of the request is sent, and refuses one that is not global (a URL under a prefix `[mcp] allow`
lists may reach any address). It connects directly, never through a proxy: there the address reached is the
proxy's, which says nothing of the host asked for.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import socket
import threading
import urllib.request
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any


class PrivateAddress(OSError):
    """A connection reached an address that is not public."""


class DownloadTimeout(TimeoutError):
    """A download did not end within its `TotalTimeout`."""


class TotalTimeout(float):
    """The timeout urllib is given for one download. As a number it is how long a connection or a read may
    wait, which urllib passes to every connection it opens for the request, redirects included; those
    connections hand their sockets to it (`_watched`). As a context manager it is the bound of the whole
    download: when `seconds` have passed, each socket is shut down, and leaving it raises DownloadTimeout."""

    def __new__(cls, seconds: float) -> TotalTimeout:
        return super().__new__(cls, seconds)

    def __init__(self, seconds: float) -> None:
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> TotalTimeout:
        self._timer.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._timer.cancel()
        with self._lock:
            for sock in self._sockets:
                sock.close()
            self._sockets.clear()
        if self.expired and (exc is None or isinstance(exc, Exception)):
            # whatever the shutdown made of the read (an early end, a broken TLS record), this is why
            raise DownloadTimeout(f"no complete answer within {float(self):g} s") from None

    def watch(self, sock: socket.socket) -> None:
        """Shut `sock` down when the time is up. A duplicate of it is kept: shutting that down ends what
        waits on the socket whatever wraps it (TLS), and it is closed with the download."""
        with self._lock:
            self._sockets.append(sock.dup())
            if self.expired:
                _shut(self._sockets[-1])

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # the connection may be closed already
        sock.shutdown(socket.SHUT_RDWR)


def opener(allowed: Sequence[str]) -> urllib.request.OpenerDirector:
    """An opener for a client's URLs: direct connections to global addresses only, except URLs (and redirect
    targets) under one of the `allowed` prefixes."""
    return urllib.request.build_opener(
        urllib.request.ProxyHandler({}), _Handler(allowed), _HTTPSHandler(allowed)
    )


def own_opener() -> urllib.request.OpenerDirector:
    """An opener for a person's own URLs, as urllib's (any address, the environment's proxies), whose
    connections a `TotalTimeout` watches."""
    return urllib.request.build_opener(_Handler(None), _HTTPSHandler(None))


def _watched(connect: Callable[..., socket.socket]) -> Callable[..., socket.socket]:
    """`connect`, handing the socket to the download's `TotalTimeout` when that is the timeout it is given."""

    def watched(address: tuple[str, int], timeout: Any = None, *args: Any, **kwargs: Any) -> socket.socket:
        sock = connect(address, timeout, *args, **kwargs)
        if isinstance(timeout, TotalTimeout):
            timeout.watch(sock)
        return sock

    return watched


def _checked_connection(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
    sock = socket.create_connection(address, *args, **kwargs)
    peer = sock.getpeername()[0]
    if not ipaddress.ip_address(str(peer).split("%", 1)[0]).is_global:
        sock.close()
        raise PrivateAddress(f"{address[0]} is a local or private address ({peer})")
    return sock


class _HTTPConnection(http.client.HTTPConnection):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = _watched(socket.create_connection)


class _HTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = _watched(socket.create_connection)  # before the TLS handshake, too


class _PublicHTTPConnection(http.client.HTTPConnection):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = _watched(_checked_connection)


class _PublicHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = _watched(_checked_connection)  # before the TLS handshake, too


def _trusted(url: str, allowed: tuple[str, ...] | None) -> bool:
    """Any address may be reached: a person's own URL (`allowed` None), or one under an allowed prefix."""
    return allowed is None or any(url.startswith(prefix) for prefix in allowed)


class _Handler(urllib.request.HTTPHandler):
    def __init__(self, allowed: Sequence[str] | None) -> None:
        super().__init__()
        self._allowed = None if allowed is None else tuple(allowed)

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        connection = _HTTPConnection if _trusted(req.full_url, self._allowed) else _PublicHTTPConnection
        return self.do_open(connection, req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, allowed: Sequence[str] | None) -> None:
        super().__init__()
        self._allowed = None if allowed is None else tuple(allowed)

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        connection = _HTTPSConnection if _trusted(req.full_url, self._allowed) else _PublicHTTPSConnection
        return self.do_open(connection, req, context=self._context)  # type: ignore[attr-defined]
