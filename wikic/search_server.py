"""`wikic serve`: the palace kept loaded (its store process, the embedding model, the title and BM25 tables),
answering the searches `wikic search` sends over the vault's Unix socket (`served.py` is the asking side
and says what is asked).

One search at a time, in the order they come. Each is the search the asking process would have made
(`query.assist.search_with_settings`, which catches up with what other processes wrote to the palace, as
the MCP server's searches do), answered only when the asker's configuration is the one the server started
with. When wikic.toml or the user's config changed since, the server stops (its settings are out of date:
the asker searches itself, and the next `wikic serve` reads the new ones); a request from another
environment, one asking for model help, or one that fails is answered with a refusal, and the asker
searches itself, where the same failure is reported as it always is.

The socket is readable and writable by its user alone; it is removed when the server stops (after `idle`
seconds without a search, on Ctrl-C or SIGTERM, or when its configuration changed). A socket left by a
server that was killed is found dead by the next one, which takes its place.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikic.config_file import config_fingerprint
from wikic.context import VaultContext
from wikic.errors import UsageError, WikicError
from wikic.palace.served import (
    PROTOCOL,
    read_line,
    served_socket,
    server_answers,
    socket_address,
)
from wikic.vault.layout import require_vault
from wikic.vault.paths import make_folder
from wikic.vault.state import SEARCH_SOCKET, state_path

IDLE_S = 900.0  # a server no search asked for this long stops
_POLL_S = 0.5  # how often the waiting server looks whether it was asked to stop
_REQUEST_S = 10.0  # a client that has not sent its whole request by then is dropped


@dataclass
class Served:
    """What a server did: the searches it answered, and why it stopped."""

    answered: int = 0
    stopped: str = ""  # "idle", "stopped" (asked to), "configuration changed"


def serve(
    context: VaultContext,
    *,
    idle: float = IDLE_S,
    stop: threading.Event | None = None,
    ready: Callable[[Path], None] | None = None,
    note: Callable[[str], None] = lambda line: None,
) -> Served:
    """Answer searches of the vault until `idle` seconds pass without one (0: never), `stop` is set, or a
    search finds wikic.toml or the user's config changed. `ready` is called with the socket's path once
    searches are answered; `note` with a line on what went wrong with one search (the asker searched itself).
    UsageError when another server answers for the vault already, or no Unix socket can be made."""
    if not hasattr(socket, "AF_UNIX"):
        raise UsageError("wikic serve needs Unix sockets, which this system lacks",
                         hint="searches run in their own process here")
    root = Path(context.root).resolve()
    require_vault(root)
    settings = context.settings  # a broken wikic.toml is reported before anything starts
    started_with = dict(os.environ)  # what its settings were made from, asked again when a search differs
    fingerprint = config_fingerprint(root, started_with)
    path = state_path(root, SEARCH_SOCKET)
    make_folder(root, path.parent)
    _take_place(root, path)
    done = Served()
    stop = stop or threading.Event()
    with socket_address(path) as address, socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        old_mask = os.umask(0o177)  # the socket is made readable and writable by its user alone
        try:
            listener.bind(address)
        finally:
            os.umask(old_mask)
        made = os.lstat(path)
        try:
            # listening before the palace is loaded: a second server started meanwhile finds this one, and a
            # search sent meanwhile waits for it rather than loading the palace itself too
            listener.listen(16)
            _warm(context.palace())
            listener.settimeout(_POLL_S)
            if ready is not None:
                ready(path)
            last = time.monotonic()
            while not stop.is_set():
                if idle and time.monotonic() - last >= idle:
                    done.stopped = "idle"
                    break
                try:
                    conn, _ = listener.accept()
                except TimeoutError:
                    continue
                with conn:
                    answered = _answer(conn, context, settings, (fingerprint, started_with), note)
                last = time.monotonic()
                if answered is None:
                    done.stopped = "configuration changed"
                    break
                done.answered += answered
            else:
                done.stopped = "stopped"
        finally:
            _remove_own(path, made)
    return done


def _take_place(root: Path, path: Path) -> None:
    """Refuse when a server answers at `path`, the vault's socket; remove a socket no server answers at any
    more."""
    if served_socket(root) is None:
        if os.path.lexists(path):
            raise UsageError(f"{path} is in the way: it is no socket of this user's",
                             hint="move it away, then start wikic serve again")
        return
    if server_answers(root):
        raise UsageError("a search server already answers for this vault",
                         hint="searches use it; stop it (Ctrl-C where it runs) to start another")
    os.unlink(path)  # its server was killed


def _warm(palace: Any) -> None:
    """What the first search would wait for, made now: the store process, the model, the tables."""
    from wikic.palace.hybrid import search

    palace.store.start()
    search(palace, "wikic", 1)


def _answer(conn: socket.socket, context: VaultContext, settings: Any, config: tuple[str, dict[str, str]],
            note: Callable[[str], None]) -> int | None:
    """Answer one request: 1 when it was searched, 0 when refused, None when the vault's or the user's config
    changed since the server started (`config`: its fingerprint then, and the environment; the server stops)."""
    from wikic.query.assist import Assist, search_with_settings

    conn.settimeout(_REQUEST_S)
    try:
        request = json.loads(read_line(conn))
        if not isinstance(request, dict) or request.get("protocol") != PROTOCOL:
            raise ValueError("not a search request")
    except (OSError, ValueError, RecursionError):
        return 0
    fingerprint, started_with = config
    if request.get("config") != fingerprint:
        if config_fingerprint(context.root, started_with) != fingerprint:  # the vault's or the user's config was edited
            _reply(conn, {"refused": "configuration changed"}, note)
            return None
        _reply(conn, {"refused": "another configuration"}, note)  # an asker with another environment
        return 0
    try:
        query, k = request["query"], request["k"]
        if not isinstance(query, str) or not isinstance(k, int) or isinstance(k, bool):
            raise ValueError("a query and k are needed")
        wing, tag, path, rerank, rewrite = (request.get(name) for name in ("wing", "tag", "path", "rerank",
                                                                          "rewrite"))
        if Assist.of(settings.search, rerank=rerank, rewrite=rewrite).active:
            _reply(conn, {"refused": "model help is asked for"}, note)  # the asker calls the model itself
            return 0
        found = search_with_settings(context.palace(), query, k, settings, rerank=rerank, rewrite=rewrite,
                                     wing=wing, tag=tag, path=path)
    except (WikicError, ValueError, KeyError, TypeError) as exc:
        _reply(conn, {"refused": str(exc)}, note)  # the asker searches itself and reports it as it always does
        return 0
    except Exception as exc:  # noqa: BLE001 - the asker searches itself, where it surfaces as it always does
        note(f"a search failed: {type(exc).__name__}: {exc}")
        _reply(conn, {"refused": "the search failed"}, note)
        return 0
    _reply(conn, {"results": [hit.to_dict() for hit in found.hits]}, note)
    return 1


def _reply(conn: socket.socket, message: dict[str, Any], note: Callable[[str], None]) -> None:
    try:
        conn.sendall(json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n")
    except OSError as exc:  # the asker went away: it searches itself
        note(f"a reply was not delivered: {exc.strerror or exc}")


def _remove_own(path: Path, made: os.stat_result) -> None:
    """Remove the socket at `path` if it is still the one this server made."""
    try:
        now = os.lstat(path)
        if (now.st_ino, now.st_dev) == (made.st_ino, made.st_dev):
            os.unlink(path)
    except OSError:
        pass
