"""Plain chat logs: a person's turns quoted with `> ` and the replies after them, or `Name: text` turns
(optionally after a `[10:32]` time).

Recognised only when the whole text has that shape (it starts with a quoted turn and has no Markdown
heading, or most of its lines are turns of at least two speakers who each speak twice), so an article that
quotes someone stays an article.
"""

from __future__ import annotations

import hashlib
import re

from wikic.conversations.turns import TurnBuilder, first_words
from wikic.vault.formats.transcript import Conversation

TOOL = "chat-log"
_TURN = re.compile(
    r"^\s*(?:\[(?P<time>[^\]\n]{1,25})\]\s*)?(?P<name>[^\s:：\[\]#>*`|][^:：\n]{0,40}?)\s*[:：]\s+(?P<text>\S.*)$"
)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_URLISH = re.compile(r"https?$|www\.|[/\\=<>(){}]")


def style(text: str) -> str | None:
    """"quote" or "names" when `text` is a chat log of that style, else None."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 3:
        return None
    if lines[0].lstrip().startswith(">") and not any(_HEADING.match(line) for line in lines):
        blocks, in_quote = 0, False
        for line in lines:
            quoted = line.lstrip().startswith(">")
            blocks += quoted and not in_quote
            in_quote = quoted
        if (blocks >= 2 and not in_quote) or blocks >= 3:
            return "quote"
    speakers: dict[str, int] = {}
    turns = 0
    for line in lines:
        name = _name(line)
        if name:
            turns += 1
            speakers[name.casefold()] = speakers.get(name.casefold(), 0) + 1
    regulars = sum(1 for n in speakers.values() if n >= 2)
    if turns >= 4 and regulars >= 2 and turns / len(lines) >= 0.6 and len(speakers) <= 12:
        return "names"
    return None


def conversation(text: str, *, title: str = "") -> Conversation:
    builder = TurnBuilder()
    kind = style(text)
    speaker: str | None = None
    buffer: list[str] = []
    if kind == "quote":
        for line in text.splitlines():
            quoted = line.lstrip().startswith(">")
            now = "user" if quoted else ("assistant" if speaker is not None else None)
            body = line.lstrip()[1:].removeprefix(" ") if quoted else line
            if now != speaker:
                if speaker is not None:
                    builder.say(speaker, "\n".join(buffer))
                speaker, buffer = now, []
            buffer.append(body)
        if speaker is not None:
            builder.say(speaker, "\n".join(buffer))
    else:
        for line in text.splitlines():
            match = _TURN.match(line)
            name = _name(line)
            if match and name:
                if speaker is not None:
                    builder.say(speaker, "\n".join(buffer))
                speaker, buffer = name, [match.group("text")]
            elif speaker is not None:
                buffer.append(line)
        if speaker is not None:
            builder.say(speaker, "\n".join(buffer))
    turns = builder.finish()
    ident = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    first = turns[0].text if turns else ""
    return Conversation(ident, TOOL, title or first_words(first) or ident, tuple(turns))


def _name(line: str) -> str | None:
    match = _TURN.match(line)
    if not match:
        return None
    name = match.group("name").strip()
    if len(name.split()) > 4 or _URLISH.search(name):
        return None
    return name
