"""A URL a client named reaches public addresses only: every connection checks the address it reached, so a
redirect to a private address (or a name that resolves to one when fetched) is refused before the request is
sent; a URL under a prefix `[mcp] allow` lists may reach any address, and a redirect out of it may not. Any
URL's download, a person's own too, ends within `[ingest] fetch_timeout`, however slowly the server answers."""

from __future__ import annotations

import threading
import time
import urllib.error
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from wikic.config_file import user_config_path
from wikic.ingest import public_fetch
from wikic.ingest.inputs import SourceError, read_inputs
from wikic.settings import IngestSettings
from wikic.vault.init import init_vault


class _Server(ThreadingHTTPServer):
    requests: list[str]


@pytest.fixture
def local() -> Iterator[_Server]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            server.requests.append(self.path)
            if self.path.startswith("/allowed/hop"):
                self.send_response(302)
                self.send_header("Location", "/secret")
                self.end_headers()
                return
            body = b"# A note\n\nThe metadata service answered.\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/markdown")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = _Server(("127.0.0.1", 0), Handler)
    server.requests = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _url(server: _Server, path: str) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}{path}"


def test_a_private_address_is_refused_before_the_request_is_sent(local: _Server) -> None:
    with pytest.raises(urllib.error.URLError) as caught:
        public_fetch.opener([]).open(_url(local, "/secret"), timeout=5)
    assert isinstance(caught.value.reason, public_fetch.PrivateAddress)
    assert local.requests == []


def test_a_url_under_an_allowed_prefix_is_fetched_but_its_redirect_out_of_it_is_not(
    local: _Server, tmp_path: Path
) -> None:
    root = tmp_path / "wiki"
    init_vault(root)
    allowed = _url(local, "/allowed/")
    opener = public_fetch.opener([allowed])
    (ok,) = read_inputs(root, [_url(local, "/allowed/page")], opener=opener)
    assert "metadata service" in ok.text
    with pytest.raises(SourceError) as caught:
        read_inputs(root, [_url(local, "/allowed/hop")], opener=opener)
    assert "refusing to fetch" in caught.value.message and "local or private address" in caught.value.message
    assert local.requests == ["/allowed/page", "/allowed/hop"]  # /secret was never asked for


def test_a_persons_own_url_is_fetched_as_urllib_does(local: _Server, tmp_path: Path) -> None:
    root = tmp_path / "wiki"
    init_vault(root)
    (fetched,) = read_inputs(root, [_url(local, "/allowed/hop")])
    assert "metadata service" in fetched.text and local.requests == ["/allowed/hop", "/secret"]


def test_the_mcp_ingest_tool_fetches_through_the_public_only_opener(local: _Server, tmp_path: Path) -> None:
    from mcp.server.mcpserver.exceptions import ToolError

    from wikic.mcp_server import WikiTools, _tool_errors

    root = tmp_path / "wiki"
    init_vault(root)
    config = user_config_path()  # the person's own config: a vault may not allow itself a local URL
    config.parent.mkdir(parents=True)
    config.write_text(f'[mcp]\nallow = ["{_url(local, "/allowed/")}"]\n', encoding="utf-8")
    with pytest.raises(ToolError, match="refusing to fetch"):
        _tool_errors(WikiTools(root).ingest)([_url(local, "/allowed/hop")])
    assert local.requests == ["/allowed/hop"] and not list((root / "raw" / "articles").iterdir())


# -- a download is bounded as a whole -------------------------------------------------------------------------


@pytest.fixture
def trickle() -> Iterator[_Server]:
    """A server that answers a byte at a time, a tenth of a second apart: `/body` its body (100 bytes, 10 s),
    `/headers` its headers; each read gets data long before a per-read timeout."""
    stop = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            server.requests.append(self.path)
            if self.path == "/short":  # a chunked answer whose last chunk never comes
                self.wfile.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                                 b"14\r\n# A note cut short.\n\r\n")
                return
            head = b"HTTP/1.0 200 OK\r\nContent-Type: text/markdown\r\nX-Padding: " + b"p" * 100 + b"\r\n\r\n"
            slow = head if self.path == "/headers" else b"# A note\n\n" + b"x" * 90
            try:
                if self.path != "/headers":
                    self.wfile.write(head)
                for byte in slow:
                    if stop.wait(0.1):
                        return
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass

    server = _Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.block_on_close = False
    server.requests = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    stop.set()
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("path", ["/body", "/headers"])
@pytest.mark.parametrize("whose", ["own", "client"])
def test_a_server_answering_a_byte_at_a_time_is_given_up_when_the_fetch_timeout_has_passed(
    trickle: _Server, tmp_path: Path, path: str, whose: str
) -> None:
    root = tmp_path / "wiki"
    init_vault(root)
    opener = public_fetch.opener([_url(trickle, "/")]) if whose == "client" else None
    started = time.monotonic()
    with pytest.raises(SourceError) as caught:
        read_inputs(root, [_url(trickle, path)], settings=IngestSettings(fetch_timeout=1), opener=opener)
    assert caught.value.message == f"{_url(trickle, path)}: cannot fetch (no complete answer within 1 s)"
    assert time.monotonic() - started < 8  # well before the 10 s the answer would take


def test_an_answer_that_breaks_off_is_a_clear_error(trickle: _Server, tmp_path: Path) -> None:
    root = tmp_path / "wiki"
    init_vault(root)
    with pytest.raises(SourceError) as caught:
        read_inputs(root, [_url(trickle, "/short")])
    assert caught.value.message.startswith(f"{_url(trickle, '/short')}: cannot fetch (IncompleteRead(")
