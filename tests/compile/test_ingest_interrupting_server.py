"""A server that gives a streaming reply up when another request arrives (llama-cpp-python's server does, by
default): with `[llm] concurrency` above one, the replies it cut are asked again one at a time, every source
compiles, and the endpoint is remembered as one that serves one request at a time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scripted import SOURCES, route
from standin_openai import StandinServer, reply
from testkit import init_wiki, llm_toml
from typer.testing import CliRunner

from wikic.cli import app
from wikic.vault.state import ENDPOINTS


def _vault(tmp_path: Path, server: StandinServer, concurrency: int) -> Path:
    root = init_wiki(tmp_path / "wiki", toml=llm_toml(server.base_url, concurrency=concurrency, strategy="single"))
    for name, text in SOURCES.items():
        (root / "raw/articles" / name).write_text(text, encoding="utf-8")
    return root


def _slow(body: dict[str, Any]) -> Any:
    # pieces a little apart, so that the replies of parallel calls overlap
    return reply(route(body), chunk_delay=0.01)


def _ingest(root: Path) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["ingest", "--vault", str(root), "--no-palace", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_replies_cut_by_a_newer_request_are_asked_again_one_at_a_time(tmp_path: Path) -> None:
    with StandinServer(interrupt_requests=True) as server:
        server.route = _slow
        root = _vault(tmp_path, server, concurrency=3)
        data = _ingest(root)
        assert server.interrupted >= 1  # the calls did overlap, and the server cut one
        assert data["totals"]["compiled"] == len(SOURCES) and data["totals"]["failed"] == 0, data["totals"]
        stored = json.loads((root / ".wikic" / ENDPOINTS).read_text(encoding="utf-8"))
        quirks = stored["endpoints"][server.base_url]["models"]["standin-model"]
        assert quirks["requests"] == "one at a time"

        # the next run starts one at a time: nothing is cut
        cut = server.interrupted
        more, again = SOURCES["openai-and-gpt-4.md"], SOURCES["retrieval-and-generation.md"]
        (root / "raw/articles/more.md").write_text(more + "\nMore notes.\n", encoding="utf-8")
        (root / "raw/articles/again.md").write_text(again + "\nAgain.\n", encoding="utf-8")
        data = _ingest(root)
        assert data["totals"]["compiled"] == 2 and server.interrupted == cut


def test_a_cut_reply_with_no_other_call_in_flight_is_a_failure_not_a_retry(tmp_path: Path) -> None:
    # one call at a time: nothing else could have cut it, so the connection really dropped
    with StandinServer(interrupt_requests=True) as server:
        server.enqueue(reply(route({"messages": [{"content": SOURCES["openai-and-gpt-4.md"]}]}), finish_reason=""))
        server.route = route
        root = _vault(tmp_path, server, concurrency=1)
        for name in list(SOURCES)[1:]:
            (root / "raw/articles" / name).unlink()
        result = CliRunner().invoke(app, ["ingest", "--vault", str(root), "--no-palace", "--json"])
        assert result.exit_code == 1
        source = json.loads(result.stdout)["sources"][0]
        assert source["status"] == "failed" and "stream" in source["error"]
        assert len(server.chat_requests()) == 1
        endpoints = root / ".wikic" / ENDPOINTS
        assert not endpoints.exists() or "one at a time" not in endpoints.read_text(encoding="utf-8")
