"""Fixtures for the ingest tests: a vault folder, a local web server for URL capture, a tiny PDF writer."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from standin_openai import StandinServer

LLM_ENV = ("WIKIC_LLM_BASE_URL", "WIKIC_LLM_MODEL", "WIKIC_LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY")


@pytest.fixture(autouse=True)
def _no_llm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in LLM_ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "SCHEMA.md").write_text("# Wiki Schema\n")
    return root


@pytest.fixture
def inbox(tmp_path: Path) -> Path:
    """Where test sources live before capture (outside the vault)."""
    folder = tmp_path / "inbox"
    folder.mkdir()
    return folder


@pytest.fixture
def standin() -> Iterator[StandinServer]:
    with StandinServer() as server:
        yield server


@dataclass
class WebSite:
    """path -> (status, content type, body); `delay` seconds before every answer."""

    pages: dict[str, tuple[int, str, bytes]] = field(default_factory=dict)
    delay: float = 0.0
    base_url: str = ""
    hits: list[str] = field(default_factory=list)


@pytest.fixture
def website() -> Iterator[WebSite]:
    site = WebSite()
    stopping = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            site.hits.append(self.path)
            if site.delay and stopping.wait(site.delay):
                return
            status, ctype, body = site.pages.get(self.path, (404, "text/plain", b"not found"))
            try:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.block_on_close = False
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    site.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    yield site
    stopping.set()
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)
    time.sleep(0)
