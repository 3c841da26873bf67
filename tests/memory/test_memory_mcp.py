"""The memory tools of `wikic mcp`, driven by the MCP SDK's own client over stdio."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from memkit import SESSIONS, Scripted, Session, at, ingest_sessions, make_vault, memory
from standin_openai import StandinServer

TESTS = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow  # a server process

ONE_REFERENCE = "# Wiki Schema\n## Domain\nWork\n## Page Thresholds\n- entity_min_references: 1\n"
LESSON = "Mocking the database hid the broken migration last week."
RETRO = Session("l", "Retro", [("user", LESSON, at(20))],
                [memory("lesson", "Mocking the database hid the broken migration.", LESSON, 0.7, "billing service")])
SAID = "Keep answers under ten lines."
PORTUGUESE = "Always answer Ana in Portuguese."


def text_of(result: Any) -> str:
    return "\n".join(part.text for part in result.content if getattr(part, "text", None) is not None)


def test_memory_tools_over_stdio(tmp_path: Path) -> None:
    root = make_vault(tmp_path, schema=ONE_REFERENCE)
    ingest_sessions(root, [*SESSIONS, RETRO])
    note = Session("n", "note", [("user", f"Remember this instruction about user (importance 0.8): {SAID}", None)],
                   [memory("instruction", SAID, SAID, 0.8, "user")])
    # a model that takes the note's first word for its subject and guesses the kind: what it says is kept
    # only as the text; the kind and subject are the caller's
    ask_ana = f"Remember this instruction about Ana (importance 0.5): {PORTUGUESE}"
    ana = Session("a", "ana", [("user", ask_ana, None)], [memory("persona", PORTUGUESE, ask_ana, 0.3, "Remember")])
    script = Scripted([note, ana])
    with StandinServer() as model:
        model.route = lambda body: script(body["messages"])
        (root / "wikic.toml").write_text(f'[llm]\nbase_url = "{model.base_url}"\nmodel = "standin"\nmax_retries = 0\n'
                                         'strategy = "single"\n\n[embedding]\nprovider = "static"\n', encoding="utf-8")
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "wikic", "mcp", "--vault", str(root)],
            env={
                "OMP_NUM_THREADS": "1",
                "HOME": str(tmp_path),
                "PYTHONPATH": str(TESTS.parent),
                "HF_HUB_OFFLINE": "1",
                "ANONYMIZED_TELEMETRY": "False",
            },
            cwd=str(tmp_path),
        )

        async def session_run() -> None:
            with (tmp_path / "server.log").open("w") as errlog:
                async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                    await session.initialize()
                    tools = {t.name: t for t in (await session.list_tools()).tools}
                    wake_up, recall = tools["wake_up"].annotations, tools["recall"].annotations
                    confirm = tools["confirm_lesson"].annotations
                    assert wake_up and recall and confirm
                    assert wake_up.read_only_hint and recall.read_only_hint
                    assert not confirm.idempotent_hint

                    brief = text_of(await session.call_tool("wake_up", {"budget": 400}))
                    assert "- 2026-11-02 · Use uv for every Python project, never pip." in brief
                    assert "The billing service goes with PostgreSQL." in brief

                    found = text_of(
                        await session.call_tool("recall", {"query": "PostgreSQL", "subject": "billing service"})
                    )
                    assert found.startswith(
                        "2 memories (best first):\n- [episodic] 2026-11-09 · The billing service goes with PostgreSQL. "
                        "[[billing-service]]"
                    )
                    none = await session.call_tool("recall", {"query": "sourdough", "kind": "lesson"})
                    assert not none.is_error and text_of(none).startswith("No memory matches")
                    bad = await session.call_tool("recall", {"kind": "opinion"})
                    assert bad.is_error and "unknown memory kind" in text_of(bad)

                    done = ""
                    for _ in (1, 2):
                        done = text_of(
                            await session.call_tool(
                                "confirm_lesson", {"lesson": "Mocking the database hid the broken migration."}
                            )
                        )
                        assert done.startswith("Confirmed on entities/billing-service.md")
                    assert "(verified)" in done
                    assert "verified" in text_of(await session.call_tool("recall", {"kind": "lesson"}))

                    saved = text_of(
                        await session.call_tool("remember", {"kind": "instruction", "content": SAID, "importance": 0.8})
                    )
                    assert saved.startswith("Remembered (raw/notes/") and "entities/me.md" in saved, saved
                    assert SAID in text_of(await session.call_tool("wake_up", {}))

                    saved = text_of(await session.call_tool(
                        "remember", {"kind": "instruction", "content": PORTUGUESE, "subject": "Ana"}))
                    assert "entities/ana.md" in saved and "remember" not in saved.split("→")[1], saved
                    found = text_of(await session.call_tool("recall", {"kind": "instruction", "subject": "Ana"}))
                    assert found.startswith("1 memory (best first):\n- [instruction] ") and PORTUGUESE in found, found
                    assert "[[ana]]" in found
                    nothing = text_of(await session.call_tool("recall", {"kind": "persona", "subject": "Remember"}))
                    assert nothing.startswith("No memory matches"), nothing

        anyio.run(session_run)


def test_remember_without_a_model_over_stdio(tmp_path: Path) -> None:
    root = make_vault(tmp_path, schema=ONE_REFERENCE)
    (root / "wikic.toml").write_text("", encoding="utf-8")
    params = StdioServerParameters(command=sys.executable, args=["-m", "wikic", "mcp", "--vault", str(root)],
                                   env={"OMP_NUM_THREADS": "1", "HOME": str(tmp_path), "PYTHONPATH": str(TESTS.parent),
                                        "WIKIC_EMBEDDING_PROVIDER": "static"}, cwd=str(tmp_path))

    async def session_run() -> None:
        async with (
            stdio_client(params, errlog=(tmp_path / "server.log").open("w")) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool("remember", {"kind": "persona", "content": "I work from Lisbon."})
            text = text_of(result)
            assert not result.is_error and text.startswith("Captured as raw/notes/") and "next `wikic ingest`" in text

    anyio.run(session_run)
    assert len(list((root / "raw" / "notes").glob("*.md"))) == 1
