"""Slack workspace exports: a folder (or its zip) with `users.json` (who is who), `channels.json`, and a
folder per channel holding a JSON file per day (`general/2026-11-30.json`), each an array of messages
`{"type": "message", "user", "text", "ts", "subtype"?}`.

Each channel's day is one conversation (`#general 2026-11-30`), its speakers named from `users.json`, and
`<@U123>` mentions written as `@name`. Joins, leaves and topic changes are not the conversation.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from wikic.conversations.jsonio import field, loads, parse
from wikic.conversations.sources import Tree
from wikic.conversations.turns import TurnBuilder, parse_time
from wikic.vault.formats.transcript import Conversation

TOOL = "slack"
DAY_FILE = re.compile(r"^(?:.*/)?(?P<channel>[^/]+)/(?P<day>\d{4}-\d{2}-\d{2})\.json$")
_MENTION = re.compile(r"<@(?P<id>[A-Z0-9]+)(?:\|(?P<name>[^>]+))?>")
_CHANNEL = re.compile(r"<#[A-Z0-9]+\|(?P<name>[^>]+)>")
_LINK = re.compile(r"<(?P<url>(?:https?|mailto):[^|>]+)(?:\|(?P<label>[^>]+))?>")
_SILENT = frozenset({"channel_join", "channel_leave", "channel_topic", "channel_purpose", "channel_name",
                     "channel_archive", "channel_unarchive", "group_join", "group_leave", "bot_add", "bot_remove",
                     "pinned_item", "unpinned_item"})


def sniff(tree: Tree) -> bool:
    names = tree.names()
    return any(n.rsplit("/", 1)[-1] in ("users.json", "channels.json") for n in names) and any(
        DAY_FILE.match(n) for n in names)


def conversations(tree: Tree) -> Iterator[Conversation]:
    names = tree.names()
    users = _users(tree, names)
    channel_ids = _channel_ids(tree, names)
    for name in sorted(names):
        match = DAY_FILE.match(name)
        if not match:
            continue
        channel, day = match.group("channel"), match.group("day")
        messages = loads(_text(tree, name), f"{tree.label}/{name}", hint="the export is damaged there")
        found = conversation(
            channel, day, messages if isinstance(messages, list) else [], users, channel_ids.get(channel)
        )
        if found is not None:
            yield found


def _text(tree: Tree, name: str) -> str:
    """A day file's text; ExportError when it is not UTF-8 (JSON files always are)."""
    from wikic.errors import ExportError

    try:
        return tree.read(name).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ExportError(f"{tree.label}/{name}: not UTF-8 text (byte {exc.start})",
                          hint="the export is damaged there") from None


def conversation(
    channel: str, day: str, messages: list[Any], users: dict[str, str], channel_id: str | None
) -> Conversation | None:
    builder = TurnBuilder()
    items = [m for m in messages if isinstance(m, dict) and m.get("type", "message") == "message"]
    items.sort(key=lambda m: float(m["ts"]) if _number(m.get("ts")) else 0.0)
    for message in items:
        if message.get("subtype") in _SILENT:
            continue
        text = field(message, "text", str, "")
        builder.say(_speaker(message, users), _plain(text, users), parse_time(message.get("ts")))
    turns = builder.finish()
    if not turns:
        return None
    return Conversation(
        f"{channel_id or channel}/{day}", TOOL, f"#{channel} {day}", tuple(turns), extra={"channel": channel}
    )


def _speaker(message: dict[str, Any], users: dict[str, str]) -> str:
    profile = field(message, "user_profile", dict, {})
    user = message.get("user")
    for candidate in (users.get(user) if isinstance(user, str) else None, profile.get("display_name"),
                      profile.get("real_name"), message.get("username"), user):
        if isinstance(candidate, str) and candidate.strip():
            return candidate.strip()
    return "unknown"


def _plain(text: str, users: dict[str, str]) -> str:
    text = _MENTION.sub(lambda m: "@" + (users.get(m.group("id")) or m.group("name") or m.group("id")), text)
    text = _CHANNEL.sub(lambda m: "#" + m.group("name"), text)
    text = _LINK.sub(lambda m: f"{m.group('label')} ({m.group('url')})" if m.group("label") else m.group("url"), text)
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _listed(tree: Tree, names: list[str], files: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    """The objects of the export's list files named `files` (users.json, channels.json...), wherever they
    are in it; a damaged one is skipped (names then fall back to ids)."""
    for name in names:
        if name.rsplit("/", 1)[-1] not in files:
            continue
        try:
            items = parse(tree.read(name).decode("utf-8-sig"))
        except ValueError:  # not JSON, not UTF-8, or nested too deep
            continue
        yield from (item for item in items if isinstance(item, dict)) if isinstance(items, list) else ()


def _users(tree: Tree, names: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for person in _listed(tree, names, ("users.json",)):
        profile = field(person, "profile", dict, {})
        for candidate in (
            profile.get("display_name"),
            person.get("real_name"),
            profile.get("real_name"),
            person.get("name"),
        ):
            if isinstance(person.get("id"), str) and isinstance(candidate, str) and candidate.strip():
                out[person["id"]] = candidate.strip()
                break
    return out


def _channel_ids(tree: Tree, names: list[str]) -> dict[str, str]:
    return {c["name"]: c["id"] for c in _listed(tree, names, ("channels.json", "groups.json", "mpims.json", "dms.json"))
            if isinstance(c.get("name"), str) and isinstance(c.get("id"), str)}


def _number(value: object) -> bool:
    try:
        float(value)  # type: ignore[arg-type]
        return True
    except (TypeError, ValueError):
        return False
