"""Gemini CLI sessions (`~/.gemini/tmp/<project hash>/chats/session-*.json`, or `.jsonl`).

As one JSON document: `{"sessionId", "projectHash", "startTime", "messages": [{"id", "timestamp", "type":
"user" | "gemini" | "info" | "error", "content", "toolCalls": [{"name"}]}]}`. As JSON Lines: a
`session_metadata` entry first, then `user` and `gemini` entries with `content` (a string or `[{"text"}]`);
`message_update` entries carry token counts only. `info` and `error` messages are the CLI's, not the
conversation.
"""

from __future__ import annotations

from typing import Any

from wikic.conversations.jsonio import field
from wikic.conversations.turns import TurnBuilder, first_words, parse_time
from wikic.vault.formats.transcript import Conversation

TOOL = "gemini-cli"


def sniff(entry: dict[str, Any]) -> bool:
    """A JSON Lines entry only Gemini CLI writes."""
    return entry.get("type") == "session_metadata"


def sniff_document(value: Any) -> bool:
    messages = value.get("messages") if isinstance(value, dict) else None
    return (isinstance(messages, list) and ("sessionId" in value or "projectHash" in value)
            and any(isinstance(m, dict) and m.get("type") == "gemini" for m in messages))


def conversation(entries: list[tuple[int, dict[str, Any]]], *, fallback_id: str) -> Conversation:
    meta = next((e for _, e in entries if e.get("type") == "session_metadata"), {})
    return _build([e for _, e in entries], meta, fallback_id)


def from_document(value: dict[str, Any], *, fallback_id: str) -> Conversation:
    return _build([m for m in value.get("messages", []) if isinstance(m, dict)], value, fallback_id)


def _build(messages: list[dict[str, Any]], meta: dict[str, Any], fallback_id: str) -> Conversation:
    builder = TurnBuilder()
    for message in messages:
        kind = message.get("type")
        if kind not in ("user", "gemini"):
            continue
        speaker = "user" if kind == "user" else "assistant"
        when = parse_time(message.get("timestamp"))
        builder.say(speaker, _content(message.get("content")), when)
        for call in message.get("toolCalls") or []:
            if isinstance(call, dict):
                builder.tool(str(call.get("name") or "tool"), "assistant", when)
    turns = builder.finish()
    ident = field(meta, "sessionId", str, fallback_id)
    first_user = next((t.text for t in turns if t.speaker == "user"), "")
    extra = {"project": meta["projectHash"]} if isinstance(meta.get("projectHash"), str) else {}
    return Conversation(ident, TOOL, first_words(first_user) or ident, tuple(turns),
                        started=parse_time(meta.get("startTime")), extra=extra)


def _content(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return field(value, "text", str, "")
    if isinstance(value, list):
        return "\n".join(text for text in map(_content, value) if text)  # each part read once, at any depth
    return ""
