"""`wikic mcp` driven by the official MCP client: over stdio (`python -m wikic mcp`) and over HTTP."""

from __future__ import annotations

import inspect
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
from typer.testing import CliRunner

from wikic.cli import app

TESTS = Path(__file__).resolve().parents[1]
READ_ONLY = {"search", "read_page", "list_pages", "lint", "status", "eval", "wake_up", "recall", "facts",
             "overview", "proposals", "proposal"}
ALL_TOOLS = READ_ONLY | {"query", "ingest", "file_note", "remember", "confirm_lesson", "invalidate", "accept", "reject"}


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


def _text_arguments(fn: Any, bad: str) -> dict[str, Any]:
    """Every text argument of a tool (a list of paths included) set to `bad`, the others left to their defaults."""
    out: dict[str, Any] = {}
    for name, param in inspect.signature(fn).parameters.items():
        kind = str(param.annotation)
        if "list" in kind:
            out[name] = [bad]
        elif "str" in kind:
            out[name] = bad
    return out


@pytest.mark.parametrize("bad", ["raw/articles/a\x00.md", "raw/articles/a\ud800.md"], ids=["NUL", "lone surrogate"])
def test_every_tool_refuses_a_nul_or_a_lone_surrogate_in_any_text_argument_and_does_nothing(
    make_vault, monkeypatch: pytest.MonkeyPatch, bad: str
) -> None:
    """Neither is in any path or text a client means: the file system refuses a NUL (ValueError), and a lone
    surrogate cannot be written as UTF-8 (UnicodeEncodeError), not even in the reply that would name it."""
    from mcp.server.mcpserver.exceptions import ToolError

    from wikic.mcp_server import WikiTools, _tool_errors
    from wikic.mcp_tools import TOOLS

    monkeypatch.setenv("WIKIC_EMBEDDING_PROVIDER", "static")
    root = make_vault({})
    before = sorted((p.relative_to(root), p.stat().st_mtime_ns) for p in root.rglob("*"))
    tools = WikiTools(root)
    try:
        for name, _, _ in TOOLS:
            arguments = _text_arguments(getattr(tools, name), bad)
            if not arguments:
                continue  # overview and status take no text
            with pytest.raises(ToolError) as refused:
                _tool_errors(getattr(tools, name))(**arguments)
            said = str(refused.value)
            assert said.split(":")[0] in arguments and said.endswith("; nothing was done"), (name, said)
            assert "NUL character" in said or "lone surrogate" in said, (name, said)
            said.encode("utf-8")  # the reply itself can be sent
    finally:
        tools.close()
    assert sorted((p.relative_to(root), p.stat().st_mtime_ns) for p in root.rglob("*")) == before


def test_a_huge_query_is_refused_at_once_without_being_echoed(make_vault, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bound is the library's (`text.question`): the search, recall and query tools, and `wikic search`,
    refuse a query of megabytes in milliseconds rather than embed and tokenise it."""
    from mcp.server.mcpserver.exceptions import ToolError

    from wikic.mcp_server import WikiTools, _tool_errors

    monkeypatch.setenv("WIKIC_EMBEDDING_PROVIDER", "static")
    root = make_vault({})
    huge = "ask about widgets " * 290_000  # 4.9 MB
    tools = WikiTools(root)
    try:
        for name, args in (("search", (huge,)), ("recall", (huge,)), ("query", (huge,))):
            with pytest.raises(ToolError) as refused:
                _tool_errors(getattr(tools, name))(*args)
            said = str(refused.value)
            assert "is 5,219,999 characters long (at most 4,000)" in said and "widgets" not in said, (name, said)
        assert "widgets" not in tools.search("x" * 120 + " widgets")  # a long query is named, not repeated
    finally:
        tools.close()
    result = CliRunner().invoke(app, ["search", "w " * 2100, "--vault", str(root)])
    assert result.exit_code == 2 and "the query is 4,199 characters long (at most 4,000)" in result.stderr


def test_the_bearer_token_guards_every_http_request() -> None:
    """The middleware in front of the SDK's HTTP app: no header, another scheme or another token get 401 and
    never reach it; the right token does."""
    import httpx

    from wikic.mcp_server import BearerToken

    reached: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["path"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    async def run() -> list[int]:
        transport = httpx.ASGITransport(app=BearerToken(app, "s3cret-token-of-32-characters-ok"))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            statuses = []
            for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic s3cret"},
                            {"Authorization": "bearer s3cret-token-of-32-characters-ok "},
                            {"Authorization": "Bearer s3cret-token-of-32-characters-ok"}):
                response = await client.post("/mcp", headers=headers, json={})
                statuses.append(response.status_code)
                if response.status_code == 401:
                    assert response.headers["www-authenticate"].startswith("Bearer")
            return statuses

    assert anyio.run(run) == [401, 401, 401, 401, 200]
    assert reached == ["/mcp"]


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
                    assert tool.description and tool.annotations, name
                    assert bool(tool.annotations.read_only_hint) == (name in READ_ONLY), name
                query, file_note = tools["query"].annotations, tools["file_note"].annotations
                assert query and file_note
                assert query.open_world_hint is True
                assert file_note.destructive_hint is False

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
def test_http_server_on_loopback_answers_only_the_bearer_of_its_token(mcp_wiki: QueryWiki, tmp_path: Path) -> None:
    """Any user or process of the machine reaches 127.0.0.1: without `Authorization: Bearer <token>` a request
    gets 401 and reaches no tool. The token is made on first use, kept private in the user's config."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

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

        token_file = tmp_path / ".config" / "wikic" / "mcp-token"
        assert token_file.stat().st_mode & 0o777 == 0o600
        token = token_file.read_text(encoding="utf-8").strip()
        url = f"http://127.0.0.1:{port}/mcp"

        async def run() -> None:
            client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
            async with client, streamable_http_client(url, http_client=client) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                names = {t.name for t in (await session.list_tools()).tools}
                assert names == ALL_TOOLS
                result = await session.call_tool("search", {"query": "GPT-4 release", "k": 2})
                assert not result.is_error and "entities/gpt-4.md" in text_of(result)
            note = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "file_note", "arguments": {"title": "x", "text": "planted"}}}
            async with httpx2.AsyncClient() as plain:
                for headers in ({}, {"Authorization": "Bearer " + token[:-1]}, {"Authorization": token}):
                    refused = await plain.post(url, json=note, headers={**headers, "Accept": "application/json"})
                    assert refused.status_code == 401, refused.text

        anyio.run(run)
        assert not list((mcp_wiki.root / "raw" / "articles").glob("x*.md"))  # nothing planted
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    err = proc.stderr.read().decode() if proc.stderr else ""
    assert f"Serving {mcp_wiki.root} on http://127.0.0.1:{port}/mcp" in err
    assert ("Clients must send the header Authorization: Bearer TOKEN, TOKEN being the one in "
            f"{tmp_path / '.config' / 'wikic' / 'mcp-token'} (made now)") in err, err
    assert "INFO" not in err, err  # neither uvicorn's access log nor the SDK's chatter
