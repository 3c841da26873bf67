"""ChatGPT account exports: `conversations.json` (alone or inside the export's zip), an array of
conversations, each `{"id" | "conversation_id", "title", "create_time", "mapping", "current_node"}`.

`mapping` is a tree: every edit and regenerated answer is a branch. The conversation is the branch the
person last saw, found from `current_node` upwards through each node's `parent`; the other branches are
not part of it. A node's `message` may be null (the root), hidden (system and context messages), a tool
call (`recipient` other than "all"), a tool's result (`author.role` "tool"), or text in `content.parts`.
"""

from __future__ import annotations

from typing import Any

from wikic.conversations.jsonio import field
from wikic.conversations.turns import TurnBuilder, first_words, parse_time
from wikic.vault.formats.transcript import Conversation

TOOL = "chatgpt"
_SILENT = frozenset({"thoughts", "reasoning_recap", "user_editable_context", "model_editable_context", "system_error",
                     "tether_browsing_display", "tether_quote", "execution_output", "computer_output"})


def sniff(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("mapping"), dict)


def conversation(value: dict[str, Any]) -> Conversation | None:
    mapping: dict[str, Any] = value.get("mapping") or {}
    builder = TurnBuilder()
    for node in _live_branch(mapping, value.get("current_node")):
        message = node.get("message")
        if not isinstance(message, dict):
            continue  # the root, and nodes an export left empty
        author = field(message, "author", dict, {})
        role = author.get("role")
        metadata = field(message, "metadata", dict, {})
        if role not in ("user", "assistant") or metadata.get("is_visually_hidden_from_conversation"):
            continue  # system prompts, tool results (the call was counted), hidden context
        when = parse_time(message.get("create_time"))
        recipient = message.get("recipient")
        if role == "assistant" and recipient not in (None, "all"):
            builder.tool(str(recipient), "assistant", when)
            continue
        content = field(message, "content", dict, {})
        if content.get("content_type") in _SILENT:
            continue
        parts = field(content, "parts", list, [])
        text = "\n".join(p for p in parts if isinstance(p, str) and p.strip())
        if not text and isinstance(content.get("text"), str):
            text = content["text"]
        builder.say(role, text, when)
    turns = builder.finish()
    if not turns:
        return None
    ident = next((value[k] for k in ("conversation_id", "id") if isinstance(value.get(k), str) and value[k]), None)
    title = field(value, "title", str, "")
    first_user = next((t.text for t in turns if t.speaker == "user"), "")
    ident = ident or f"untitled-{parse_time(value.get('create_time')) or 'x'}"
    return Conversation(ident, TOOL, title.strip() or first_words(first_user) or ident, tuple(turns),
                        started=parse_time(value.get("create_time")))


def _live_branch(mapping: dict[str, Any], current: Any) -> list[dict[str, Any]]:
    """The nodes from the root down to `current_node` (or, when the export has none, to the newest leaf)."""
    if not isinstance(current, str) or current not in mapping:
        leaves = [k for k, n in mapping.items() if isinstance(n, dict) and not n.get("children")]
        current = max(leaves, key=lambda k: (_created(mapping[k]), k), default=None)
    branch: list[dict[str, Any]] = []
    seen: set[str] = set()
    while isinstance(current, str) and current in mapping and current not in seen:
        seen.add(current)
        node = mapping[current]
        if not isinstance(node, dict):
            break
        branch.append(node)
        current = node.get("parent")
    branch.reverse()
    return branch


def _created(node: Any) -> float:
    message = node.get("message") if isinstance(node, dict) else None
    stamp = message.get("create_time") if isinstance(message, dict) else None
    return float(stamp) if isinstance(stamp, int | float) and not isinstance(stamp, bool) else 0.0
