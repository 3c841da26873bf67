"""`wikic search` asking a running `wikic serve` (`wikic/search_server.py`) instead of opening the palace itself.

A search process spends most of its time before the search: importing numpy and chromadb, starting the
palace's store process, loading the embedding model, reading the title and BM25 tables (2 to 4 seconds on a
vault of 10,000 to 30,000 pages). `wikic serve` keeps all of that loaded; a search then asks it over a Unix
socket in `.wikic/` and only renders the answer. This side is the standard library alone.

The server answers only what it would answer as the asking process would: the same wikic, the same
configuration (`config_fingerprint`: wikic.toml, the user's own config and the `WIKIC_*` and `OPENAI_*`
environment), and no model help (`--rerank`, `--rewrite` or `[search]` asking for it). In every other case,
and whenever the server cannot be reached or says anything unexpected, the search runs in the asking process
as before: the server makes a search faster, never different.

The socket is found only as a socket of this user's, not through a link: a cloned vault cannot send a
search to another program's socket.
"""

from __future__ import annotations

import json
import os
import socket
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from wikic.config_file import config_fingerprint
from wikic.vault.state import SEARCH_SOCKET, state_file

PROTOCOL = 1
_CONNECT_S = 1.0  # a server that does not take the connection by then is not used
_REPLY_S = 60.0  # what a search of the biggest vault takes, with room: a server past it is not waited on
MAX_LINE = 8 * 1024 * 1024  # bytes of a request or reply line; a longer one is refused
_MAX_ADDRESS = 100  # bytes of a Unix socket's path (the kernel's limit is 107 on Linux, 103 on macOS)
# the fields of a search hit (`hybrid.SearchHit`), with their types: a reply is used only when each hit has them
HIT_FIELDS = {"path": str, "score": float, "heading": str, "snippet": str, "line_start": int, "line_end": int,
              "wing": str, "title": str}


@contextmanager
def socket_address(path: Path) -> Iterator[str]:
    """An address for the Unix socket at `path`: the path itself, or, where it is longer than a socket
    address may be, the same file reached through an open descriptor of its folder (Linux's /proc/self/fd).
    OSError when neither fits."""
    text = os.fspath(path)
    if len(text.encode("utf-8", "surrogateescape")) <= _MAX_ADDRESS:
        yield text
        return
    folder = os.open(path.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        short = f"/proc/self/fd/{folder}/{path.name}"
        if len(short) > _MAX_ADDRESS or not os.path.isdir(f"/proc/self/fd/{folder}"):
            raise OSError(f"the vault's path is too long for a Unix socket: {text}")
        yield short
    finally:
        os.close(folder)


def read_line(conn: socket.socket) -> bytes:
    """One line from `conn` (without its newline), at most MAX_LINE bytes; ValueError past that or when the
    peer closes before its end."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            raise ValueError("the line ended early")
        end = chunk.find(b"\n")
        if end >= 0:
            chunks.append(chunk[:end])
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_LINE:
            raise ValueError("the line is too long")


def served_socket(root: Path) -> Path | None:
    """The vault's search socket when one is there: a socket (not a link to one) of this user's."""
    path = state_file(root, SEARCH_SOCKET)
    if path is None:
        return None
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISSOCK(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
        return None
    return path


@contextmanager
def _connected(where: Path) -> Iterator[socket.socket]:
    """A connection to the socket at `where`; OSError when none is taken within `_CONNECT_S`."""
    with socket_address(where) as address, socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(_CONNECT_S)
        conn.connect(address)
        yield conn


def server_answers(root: Path) -> bool:
    """Whether a `wikic serve` answers for the vault now (its socket takes a connection)."""
    where = served_socket(root)
    if where is None or not hasattr(socket, "AF_UNIX"):
        return False
    try:
        with _connected(where):
            return True
    except OSError:
        return False


def keep_warm(root: Path) -> bool:
    """Start `wikic serve` for the vault in the background (a session of its own, no terminal) when the user's
    own config asks for it (`[search] serve = true`) and none answers yet: the searches after this one are
    answered by it. Whether one was started."""
    from wikic.settings import load_user_settings

    wanted = load_user_settings().search
    if not wanted.serve or not hasattr(socket, "AF_UNIX") or server_answers(root):
        return False
    import subprocess
    import sys

    subprocess.Popen([sys.executable, "-m", "wikic", "serve", "--vault", os.fspath(root), "--idle",
                      str(wanted.serve_idle)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, start_new_session=True)
    return True


def served_search(
    root: Path,
    query: str,
    k: int,
    *,
    wing: str | None = None,
    tag: str | None = None,
    path: str | None = None,
    rerank: bool | None = None,
    rewrite: bool | None = None,
) -> list[dict[str, Any]] | None:
    """The hits (each `SearchHit.to_dict()`) a running `wikic serve` gives for this search, or None: no server,
    one that cannot answer it as this process would, or one that fails; the caller then searches itself."""
    where = served_socket(root)
    if where is None or not hasattr(socket, "AF_UNIX"):
        return None
    request = {"protocol": PROTOCOL, "config": config_fingerprint(root), "query": query, "k": k, "wing": wing,
               "tag": tag, "path": path, "rerank": rerank, "rewrite": rewrite}
    try:
        with _connected(where) as conn:
            conn.settimeout(_REPLY_S)
            conn.sendall(json.dumps(request, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n")
            reply = json.loads(read_line(conn))
    except (OSError, ValueError, RecursionError):
        return None
    hits = reply.get("results") if isinstance(reply, dict) else None
    if not isinstance(hits, list) or not all(_is_hit(hit) for hit in hits):
        return None
    return hits


def _is_hit(hit: Any) -> bool:
    return isinstance(hit, dict) and hit.keys() == HIT_FIELDS.keys() and all(
        isinstance(hit[name], kind) and not isinstance(hit[name], bool) for name, kind in HIT_FIELDS.items())
