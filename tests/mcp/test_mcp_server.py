"""`wikic mcp` driven by the official MCP client: over stdio (`python -m wikic mcp`) and over HTTP."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import processes
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from querykit import QueryWiki

TESTS = Path(__file__).resolve().parents[1]
READ_ONLY = {"search", "read_page", "list_pages", "lint", "status", "wake_up", "recall", "facts", "overview"}
ALL_TOOLS = READ_ONLY | {"query", "ingest", "file_note", "remember", "confirm_lesson", "invalidate"}


def server_env(home: Path) -> dict[str, str]:
    """What the server process gets on top of the SDK's safe default environment."""
    return {"WIKIC_EMBEDDING_PROVIDER": "static", "OMP_NUM_THREADS": "1", "HOME": str(home),
            "PYTHONPATH": str(TESTS.parent)}


def text_of(result: Any) -> str:
    return "\n".join(part.text for part in result.content if getattr(part, "text", None) is not None)


async def call(session: ClientSession, name: str, args: dict[str, Any], timings: dict[str, float]) -> tuple[bool, str]:
    start = time.monotonic()
    result = await session.call_tool(name, args)
    timings[name] = min(timings.get(name, 1e9), time.monotonic() - start)
    return bool(result.is_error), text_of(result)


def test_tool_annotations_go_over_the_wire_under_their_camel_case_names() -> None:
    from wikic.mcp_server import ASKS_MODEL, CAPTURES, COUNTS, READ_ONLY

    def wire(annotations: Any) -> dict[str, Any]:
        return annotations.model_dump(by_alias=True, exclude_none=True, mode="json")

    assert wire(READ_ONLY) == {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
                               "openWorldHint": False}
    assert wire(ASKS_MODEL) == {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False,
                                "openWorldHint": True}
    assert wire(CAPTURES) == {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True,
                              "openWorldHint": False}
    assert wire(COUNTS) == {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False,
                            "openWorldHint": False}


@pytest.mark.slow  # a server process
def test_stdio_server_tools(mcp_wiki: QueryWiki, tmp_path: Path) -> None:
    wiki = mcp_wiki
    params = StdioServerParameters(command=sys.executable, args=["-m", "wikic", "mcp", "--vault", str(wiki.root)],
                                   env=server_env(tmp_path), cwd=str(tmp_path))
    timings: dict[str, float] = {}

    async def session_run() -> None:
        with (tmp_path / "server.log").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                tools = {t.name: t for t in (await session.list_tools()).tools}
                assert set(tools) == ALL_TOOLS
                for name, tool in tools.items():
                    assert tool.description
                    assert bool(tool.annotations.read_only_hint) == (name in READ_ONLY), name
                assert tools["query"].annotations.open_world_hint is True
                assert tools["file_note"].annotations.destructive_hint is False

                error, text = await call(session, "search", {"query": "Who is the CEO of OpenAI?", "k": 3}, timings)
                assert not error and "entities/openai.md" in text and "read_page" in text
                error, text = await call(session, "search", {"query": "sourdough proofing times"}, timings)
                assert not error and text.startswith("No page or source matches")  # guidance, not an error
                error, text = await call(session, "read_page", {"page": "sam-altman"}, timings)
                assert not error and text.startswith("entities/sam-altman.md\n\n---\ntitle: Sam Altman")
                error, text = await call(session, "read_page", {"page": "sam-altmann"}, timings)
                assert not error and "Did you mean: entities/sam-altman.md?" in text
                error, text = await call(session, "list_pages", {"type": "entity"}, timings)
                assert not error and "3 page(s)" in text and "- entities/gpt-4.md — GPT-4" in text
                error, text = await call(session, "list_pages", {"type": "comparison"}, timings)
                assert not error and text.startswith("No page with type comparison")

                error, text = await call(
                    session, "query", {"question": "Who is the CEO of OpenAI?", "save": True}, timings
                )
                assert not error, text
                assert text.startswith("Sam Altman is the CEO of OpenAI [[openai]]")
                assert "Cited: [[openai]] (entities/openai.md)" in text
                assert "Filed as queries/who-is-the-ceo-of-openai.md" in text
                error, text = await call(session, "query", {"question": "How long should sourdough proof?"}, timings)
                assert not error and text.startswith("Nothing in the wiki matches")
                # the query page just filed is found by the same long-lived server
                error, text = await call(session, "search", {"query": "CEO of OpenAI", "wing": "queries"}, timings)
                assert "queries/who-is-the-ceo-of-openai.md" in text

                error, text = await call(session, "lint", {}, timings)
                assert not error and "0 error(s)" in text
                error, text = await call(session, "lint", {"rules": ["no-such-rule"]}, timings)
                assert error and "unknown rule" in text and "hint:" in text
                error, text = await call(session, "overview", {}, timings)
                assert not error and text.startswith("overview.md\n\n# Overview\n")
                error, text = await call(session, "status", {}, timings)
                assert not error and "Pages: 7 (3 entity, 0 concept, 0 comparison, 1 query, 3 source)" in text

                error, text = await call(session, "facts", {"subject": "OpenAI"}, timings)
                assert not error and text.startswith("OpenAI (entities/openai.md) as of "), text
                claim = re.search(r"\^(c[0-9a-f]{8})", text)
                assert claim is not None and "^[raw/articles/" in text
                error, text = await call(session, "invalidate", {"claim": claim.group(1), "reason": "moved"}, timings)
                assert not error and f"Ended {claim.group(1)} on entities/openai.md" in text, text
                error, text = await call(session, "invalidate", {"claim": claim.group(1), "reason": "moved"}, timings)
                assert error and f"{claim.group(1)} on entities/openai.md already ended on " in text, text
                assert "nothing changed" in text and "wikic facts" in text
                error, text = await call(session, "invalidate", {"claim": "c00000000", "reason": "x"}, timings)
                assert error and "no page has the claim c00000000" in text

                error, text = await call(
                    session, "file_note", {"title": "Meeting notes", "text": "Claude is made by Anthropic."}, timings
                )
                assert not error and "Captured as raw/articles/meeting-notes.md" in text
                error, text = await call(
                    session, "search", {"query": "Claude is made by Anthropic", "wing": "raw"}, timings
                )
                assert "raw/articles/meeting-notes.md" in text  # searchable before any ingest
                error, text = await call(session, "ingest", {"sources": ["raw/articles/meeting-notes.md"]}, timings)
                assert not error and "raw/articles/meeting-notes.md: compiled" in text, text
                error, text = await call(session, "search", {"query": "Who is the CEO of OpenAI?", "k": 3}, timings)
                assert "entities/openai.md" in text  # the server's palace still works after ingest wrote

    anyio.run(session_run)
    # the client shows the server's stderr to the user: libraries' INFO chatter (httpx's "HTTP Request: ...",
    # the SDK's "Processing request ...") must not reach it
    log = (tmp_path / "server.log").read_text(encoding="utf-8")
    assert "INFO" not in log and "HTTP Request" not in log, log
    assert (wiki.root / "raw/articles/meeting-notes.md").read_text(encoding="utf-8").startswith("# Meeting notes")
    assert (wiki.root / "queries/who-is-the-ceo-of-openai.md").is_file()
    print("MCP round trips (s):", {k: round(v, 3) for k, v in sorted(timings.items())})


@pytest.mark.slow  # a server process, over HTTP
def test_http_server_on_loopback(mcp_wiki: QueryWiki, tmp_path: Path) -> None:
    from mcp.client.streamable_http import streamable_http_client

    port = processes.free_port()
    env = {**server_env(tmp_path), "PATH": "/usr/bin:/bin"}
    proc = subprocess.Popen([sys.executable, "-m", "wikic", "mcp", "--http", str(port), "--vault", str(mcp_wiki.root)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=str(tmp_path))
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"server did not start: {proc.stderr.read().decode() if proc.stderr else ''}")
                time.sleep(0.1)

        async def run() -> None:
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                names = {t.name for t in (await session.list_tools()).tools}
                assert names == ALL_TOOLS
                result = await session.call_tool("search", {"query": "GPT-4 release", "k": 2})
                assert not result.is_error and "entities/gpt-4.md" in text_of(result)

        anyio.run(run)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    err = proc.stderr.read().decode() if proc.stderr else ""
    assert f"Serving {mcp_wiki.root} on http://127.0.0.1:{port}/mcp" in err
    assert "INFO" not in err, err  # neither uvicorn's access log nor the SDK's chatter
