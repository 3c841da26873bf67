"""Claude Code sessions (`~/.claude/projects/<project>/<session>.jsonl`): one JSON entry per line.

Entries of type `user` and `assistant` carry `message.content` (a string, or blocks: `text`, `tool_use`,
`tool_result`, `thinking`), `sessionId`, `cwd` and `timestamp`. Tool results come back as `user` entries:
they belong to the assistant's run of tool activity, not to the person. Sub-agent (`isSidechain`) and
meta entries (`isMeta`: the caveats Claude Code adds around local commands) are not the conversation.
"""

from __future__ import annotations

from typing import Any

from wikic.conversations.noise import strip_noise
from wikic.conversations.turns import TurnBuilder, first_words, parse_time
from wikic.vault.formats.transcript import Conversation

TOOL = "claude-code"


def sniff(entry: dict[str, Any]) -> bool:
    return entry.get("type") in ("user", "assistant") and isinstance(entry.get("message"), dict) and (
        "sessionId" in entry or "uuid" in entry)


def conversation(entries: list[tuple[int, dict[str, Any]]], *, fallback_id: str) -> Conversation:
    builder = TurnBuilder()
    session = cwd = None
    for _, entry in entries:
        kind = entry.get("type")
        message = entry.get("message")
        if (
            kind not in ("user", "assistant")
            or not isinstance(message, dict)
            or entry.get("isSidechain")
            or entry.get("isMeta")
        ):
            continue
        session = session or _text(entry.get("sessionId"))
        cwd = cwd or _text(entry.get("cwd"))
        when = parse_time(entry.get("timestamp"))
        speaker = "user" if kind == "user" else "assistant"
        content = message.get("content")
        if isinstance(content, str):
            builder.say(speaker, strip_noise(content), when)
            continue
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                builder.say(speaker, strip_noise(block["text"]), when)
            elif block.get("type") in ("tool_use", "server_tool_use"):
                builder.tool(str(block.get("name") or "tool"), "assistant", when)
            # tool_result: the end of a tool call already counted; thinking, images: not what was said
    turns = builder.finish()
    first_user = next((t.text for t in turns if t.speaker == "user"), "")
    return Conversation(session or fallback_id, TOOL, first_words(first_user) or (session or fallback_id), tuple(turns),
                        extra={"cwd": cwd} if cwd else {})


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
