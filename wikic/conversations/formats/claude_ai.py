"""Claude.ai account exports: `conversations.json` (alone or inside the export's zip), an array of
conversations `{"uuid", "name", "created_at", "chat_messages": [...]}`; each message has `sender` ("human"
or "assistant"), `created_at`, and its words in `content` blocks (`text`, `tool_use`, `tool_result`,
`thinking`) or, in older exports, in `text`.
"""

from __future__ import annotations

from typing import Any

from wikic.conversations.jsonio import field
from wikic.conversations.turns import TurnBuilder, first_words, parse_time
from wikic.vault.formats.transcript import Conversation

TOOL = "claude-ai"


def sniff(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("chat_messages"), list)


def conversation(value: dict[str, Any]) -> Conversation | None:
    builder = TurnBuilder()
    for message in value.get("chat_messages") or []:
        if not isinstance(message, dict):
            continue
        speaker = {"human": "user", "user": "user", "assistant": "assistant"}.get(str(message.get("sender")))
        if speaker is None:
            continue
        when = parse_time(message.get("created_at"))
        said = False
        for block in field(message, "content", list, []):
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str) and block["text"].strip():
                builder.say(speaker, block["text"], when)
                said = True
            elif block.get("type") == "tool_use":
                builder.tool(str(block.get("name") or "tool"), "assistant", when)
                said = True
        if not said and isinstance(message.get("text"), str):
            builder.say(speaker, message["text"], when)
    turns = builder.finish()
    if not turns:
        return None
    ident = value.get("uuid") if isinstance(value.get("uuid"), str) and value["uuid"] else None
    name = field(value, "name", str, "")
    first_user = next((t.text for t in turns if t.speaker == "user"), "")
    ident = ident or f"untitled-{value.get('created_at')}"
    return Conversation(ident, TOOL, name.strip() or first_words(first_user) or ident, tuple(turns),
                        started=parse_time(value.get("created_at")))
