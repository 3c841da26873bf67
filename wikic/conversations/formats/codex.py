"""OpenAI Codex CLI sessions (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): one JSON entry per line,
each `{"timestamp", "type", "payload"}`.

`session_meta` names the session (`payload.id`, `payload.cwd`). What was said is in `event_msg` entries
(`user_message`, `agent_message`); the `response_item` messages repeat it with the context Codex injects
(instructions, environment), so only their tool calls are read from them.
"""

from __future__ import annotations

from typing import Any

from wikic.conversations.turns import TurnBuilder, first_words, parse_time
from wikic.vault.formats.transcript import Conversation

TOOL = "codex"
_KINDS = ("session_meta", "event_msg", "response_item", "turn_context", "compacted")
_TOOL_CALLS = ("function_call", "custom_tool_call", "local_shell_call", "web_search_call")


def sniff(entry: dict[str, Any]) -> bool:
    return entry.get("type") in _KINDS and isinstance(entry.get("payload"), dict)


def conversation(entries: list[tuple[int, dict[str, Any]]], *, fallback_id: str) -> Conversation:
    builder = TurnBuilder()
    session = cwd = None
    started = None
    for _, entry in entries:
        payload = entry.get("payload")
        if not isinstance(payload, dict):
            continue
        kind, inner = entry.get("type"), payload.get("type")
        when = parse_time(entry.get("timestamp"))
        if kind == "session_meta":
            session = session or (payload.get("id") if isinstance(payload.get("id"), str) else None)
            cwd = cwd or (payload.get("cwd") if isinstance(payload.get("cwd"), str) else None)
            started = started or parse_time(payload.get("timestamp")) or when
        elif (
            kind == "event_msg"
            and inner in ("user_message", "agent_message")
            and isinstance(payload.get("message"), str)
        ):
            builder.say("user" if inner == "user_message" else "assistant", payload["message"], when)
        elif kind == "response_item" and inner in _TOOL_CALLS:
            builder.tool(str(payload.get("name") or inner.removesuffix("_call")), "assistant", when)
    turns = builder.finish()
    first_user = next((t.text for t in turns if t.speaker == "user"), "")
    ident = session or fallback_id
    return Conversation(ident, TOOL, first_words(first_user) or ident, tuple(turns), started=started,
                        extra={"cwd": cwd} if cwd else {})
