"""From a tool's messages to transcript turns: one turn per run of one speaker, and each run of tool
activity (calls and their results) collapsed into one line, `(tools: Bash ×3, Read)`."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from wikic.vault.formats.transcript import Turn

_NAME = re.compile(r"[^\w.:/-]+")


def tools_line(counts: dict[str, int]) -> str:
    """`(tools: Bash ×3, Read)`: each tool once, in the order first used, with how often when more than once."""
    named = [name if n == 1 else f"{name} ×{n}" for name, n in counts.items()]
    return f"(tools: {', '.join(named)})"


def tool_name(value: object) -> str:
    """A tool's name as one short word-like token (names come from the export: never trust their shape)."""
    name = _NAME.sub("-", str(value or "tool")).strip("-")[:40]
    return name or "tool"


class TurnBuilder:
    """Collects what each speaker said, in order. Consecutive messages of one speaker are one turn; a tool
    call starts (or continues) a run of tool activity, which the next text ends."""

    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self._speaker: str | None = None
        self._when: datetime | None = None
        self._parts: list[str] = []
        self._tools: dict[str, int] = {}

    def say(self, speaker: str, text: str, when: datetime | None = None) -> None:
        text = text.strip()
        if not text:
            return
        self._switch(speaker, when)
        self._end_tools()
        self._parts.append(text)

    def tool(self, name: str, speaker: str = "assistant", when: datetime | None = None) -> None:
        self._switch(speaker, when)
        key = tool_name(name)
        self._tools[key] = self._tools.get(key, 0) + 1

    def finish(self) -> list[Turn]:
        self._flush()
        return self.turns

    def _switch(self, speaker: str, when: datetime | None) -> None:
        if speaker != self._speaker:
            self._flush()
            self._speaker, self._when = speaker, when
        elif self._when is None:
            self._when = when

    def _end_tools(self) -> None:
        if self._tools:
            self._parts.append(tools_line(self._tools))
            self._tools = {}

    def _flush(self) -> None:
        self._end_tools()
        if self._speaker is not None and self._parts:
            self.turns.append(Turn(self._speaker, "\n".join(self._parts), self._when))
        self._speaker, self._when, self._parts = None, None, []


def parse_time(value: object) -> datetime | None:
    """An ISO 8601 time ("2026-11-30T14:02:11.123Z") or a Unix time (seconds, as a number or a string such
    as Slack's "1700000000.000100"), in UTC; None for anything else."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        seconds = float(value)
    elif isinstance(value, str) and value.strip():
        text = value.strip()
        try:
            seconds = float(text)
        except ValueError:
            try:
                stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
                return (stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)).astimezone(UTC)
            except (ValueError, OverflowError):  # OverflowError: year 1 east of UTC, year 9999 west of it
                return None
    else:
        return None
    if seconds > 1e11:  # milliseconds
        seconds /= 1000
    try:
        return datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def first_words(text: str, limit: int = 60) -> str:
    """A title from a first message: its first line with text, cut at a word near `limit` characters."""
    for line in text.splitlines():
        line = " ".join(line.replace("(tools:", " ").split())
        if line:
            if len(line) <= limit:
                return line
            cut = line[:limit].rsplit(" ", 1)[0]
            return cut or line[:limit]
    return ""
