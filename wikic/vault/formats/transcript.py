"""The transcript format: how one conversation is written as a raw source in `raw/transcripts/`.

Every conversation wikic captures (an assistant session, a ChatGPT conversation, a Slack channel's day...)
is written in this one format, whatever tool it came from, so that the compiler, the anchors and the
briefing read one shape:

    ---
    title: "Use uv for every Python project"
    conversation: 7f3c2a10-5d1e-4c8e-9a0b-2b7d9c1e0f42
    tool: claude-code
    started: 2026-11-30T14:02:11Z
    part: 2
    export: raw/transcripts/exports/7f3c2a10-5d1e-4c8e-9a0b-2b7d9c1e0f42.jsonl
    ---

    **user** · 2026-11-30 14:02
    From now on use uv, never pip.

    **assistant** · 2026-11-30 14:02
    Understood.
    (tools: Bash ×3, Read)

A turn starts with its header line (`**speaker** · YYYY-MM-DD HH:MM`, the time in UTC, or
`**speaker**` alone when the export has no time) and runs to the next header. Turns are only ever
appended, and a grown conversation is written as a further part, never by rewriting an earlier one (raw/
is immutable), so a line number once anchored keeps pointing at the same turn.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from wikic.vault.layout import RAW_DIR

HEADER_SEP = " · "
# the line `conversations/turns.py` writes for a run of tool activity (tool names are `[\w.:/-]` runs)
_TOOLS = re.compile(r"^\(tools: [\w.:/-]+(?: ×\d+)?(?:, [\w.:/-]+(?: ×\d+)?)*\)$")
_HEADER = re.compile(r"^\*\*(?P<speaker>[^*\n]{1,80})\*\*(?: · (?P<when>\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2})?))?\s*$")
TOOLS = ("claude-code", "codex", "gemini-cli", "chatgpt", "claude-ai", "slack", "chat-log")
TRANSCRIPTS_PREFIX = f"{RAW_DIR}/transcripts/"  # where conversations are written (`store.TRANSCRIPTS_DIR`)


@dataclass(frozen=True)
class Turn:
    speaker: str  # "user", "assistant", or a person's name (Slack, chat logs)
    text: str  # what was said, tool noise already collapsed to a line
    when: datetime | None = None  # UTC


@dataclass(frozen=True)
class Conversation:
    id: str  # the tool's own conversation or session id, stable across exports
    tool: str  # one of TOOLS
    title: str
    turns: tuple[Turn, ...]
    started: datetime | None = None
    extra: dict[str, str] = field(default_factory=dict)  # further frontmatter (cwd, channel...), sorted on write


@dataclass(frozen=True)
class TurnHeader:
    speaker: str
    when: datetime | None
    line: int  # 1-based line of the header in the file


# What an export's text may hold and a transcript does not: control characters (a NUL makes the file read as
# binary; line separators other than "\n" split lines where anchors do not) and lone surrogates (JSON can
# carry them, UTF-8 cannot).
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x85\u2028\u2029]|[\ud800-\udfff]")


def clean(text: str) -> str:
    """`text` as a transcript holds it: control characters and line separators other than newline and tab
    become spaces, lone surrogates U+FFFD."""
    return _UNSAFE.sub(lambda m: "\ufffd" if "\ud800" <= m.group() <= "\udfff" else " ", text)


def cleaned(conversation: Conversation) -> Conversation:
    """`conversation` with every text it carries (id, title, speakers, turns, extra) `clean`."""
    return Conversation(
        clean(conversation.id), conversation.tool, clean(conversation.title),
        tuple(Turn(clean(t.speaker), clean(t.text), t.when) for t in conversation.turns),
        conversation.started, {clean(k): clean(v) for k, v in conversation.extra.items()},
    )


def _minute(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%d %H:%M")


def header(turn: Turn) -> str:
    speaker = " ".join(turn.speaker.replace("*", "").split()) or "unknown"
    return f"**{speaker}**" + (f"{HEADER_SEP}{_minute(turn.when)}" if turn.when else "")


def _body_lines(text: str) -> list[str]:
    """A turn's text, with any line that would read as a turn header escaped so it cannot start a turn."""
    lines = text.strip("\n").splitlines() or [""]
    return ["\\" + line if _HEADER.match(line) else line for line in lines]


def _scalar(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid YAML double-quoted scalar


def render(conversation: Conversation, *, part: int = 1, export: str | None = None,
           turns: Sequence[Turn] | None = None) -> str:
    """The transcript file for `conversation` (or for `turns` of it, a later part). Deterministic."""
    started = conversation.started or next((t.when for t in conversation.turns if t.when), None)
    meta = [("title", _scalar(conversation.title or conversation.id)), ("conversation", _scalar(conversation.id)),
            ("tool", conversation.tool)]
    if started:
        meta.append(("started", started.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")))
    if part > 1:
        meta.append(("part", str(part)))
    if export:
        meta.append(("export", _scalar(export)))
    meta.extend((key, _scalar(value)) for key, value in sorted(conversation.extra.items()))
    out = ["---", *(f"{key}: {value}" for key, value in meta), "---", ""]
    for turn in conversation.turns if turns is None else turns:
        out.extend([header(turn), *_body_lines(turn.text), ""])
    return "\n".join(out)


def headers(text: str) -> list[TurnHeader]:
    """Every turn header of a transcript, in order."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _HEADER.match(line)
        if match:
            when = match.group("when")
            stamp = None
            if when:
                fmt = "%Y-%m-%d %H:%M" if " " in when else "%Y-%m-%d"
                stamp = datetime.strptime(when, fmt).replace(tzinfo=UTC)
            found.append(TurnHeader(match.group("speaker"), stamp, number))
    return found


def is_transcript(path: str, text: str) -> bool:
    """A conversation: a source in raw/transcripts/, or one whose text has timed turn headers."""
    return path.startswith(TRANSCRIPTS_PREFIX) or any(h.when is not None for h in headers(text))


def header_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) character offsets of every line wikic wrote and nobody said: the turn headers and the
    lines of tool activity (`(tools: Bash ×3, Read)`); lines split at "\n" as anchors count them."""
    spans, start = [], 0
    for line in text.split("\n"):
        if (line.startswith("**") and _HEADER.match(line)) or (line.startswith("(tools: ") and _TOOLS.match(line)):
            spans.append((start, start + len(line)))
        start += len(line) + 1
    return spans


def turn_at(text: str, line: int, found: Iterable[TurnHeader] | None = None) -> TurnHeader | None:
    """The turn a 1-based line belongs to (its nearest header at or above it), or None before the first."""
    best = None
    for item in headers(text) if found is None else found:
        if item.line > line:
            break
        best = item
    return best
