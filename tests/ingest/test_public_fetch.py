"""A URL a client named reaches public addresses only: every connection checks the address it reached, so a
redirect to a private address (or a name that resolves to one when fetched) is refused before the request is
sent; a URL under a prefix `[mcp] allow` lists may reach any address, and a redirect out of it may not."""

from __future__ import annotations

import threading
import urllib.error
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from wikic.config_file import user_config_path
from wikic.ingest import public_fetch
from wikic.ingest.inputs import SourceError, read_inputs
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
