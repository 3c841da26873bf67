"""Which conversation format a file or folder holds, read from its content (never from its name: a
renamed export is still recognised, and a file named conversations.json that is something else is not).

`detect` returns a `Found` (the format, and for a zip the member holding the conversations), None for
anything that is not a conversation (it is ingested as an ordinary source, as before), or raises
ExportError naming the file when it looks like a conversation export of a shape wikic does not know.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikic.conversations.formats import chat_log, chatgpt, claude_ai, claude_code, codex, gemini_cli, slack
from wikic.conversations.jsonio import TooDeep, iter_array, parse
from wikic.conversations.sources import FolderTree, ZipTree, is_zip
from wikic.errors import ExportError

# Formats whose file is JSON Lines, in the order a mixed head is judged (Gemini's and Codex's entry types
# are their own; Claude Code's `user`/`assistant` entries are checked last).
LINE_FORMATS = {gemini_cli.TOOL: gemini_cli, codex.TOOL: codex, claude_code.TOOL: claude_code}
MAX_DOCUMENT = 64 << 20  # a single-conversation JSON document larger than this is not read whole
MAX_CHAT_LOG = 25 << 20
_HEAD_LINES, _HEAD_BYTES = 200, 8 << 20
# Keys that make a JSON document too deep to read a damaged conversation rather than an ordinary source.
_DOCUMENT_KEYS = (b'"sessionId"', b'"messages"', b'"mapping"', b'"chat_messages"')
_CONVERSATIONAL = frozenset(
    {
        "role", "sender", "author", "speaker", "messages", "chat_messages", "mapping", "conversation",
        "conversation_id", "session_id", "sessionId", "turns", "transcript",
    }
)


@dataclass(frozen=True)
class Found:
    path: Path
    format: str  # a transcript tool name: claude-code, codex, gemini-cli, chatgpt, claude-ai, slack, chat-log
    member: str | None = None  # inside a zip: the conversations file
    document: bool = False  # gemini-cli: one JSON document rather than JSON Lines


def detect(path: Path) -> Found | None:
    if path.is_dir():
        return Found(path, slack.TOOL) if slack.sniff(FolderTree(path)) else None
    if not path.is_file():
        return None
    if is_zip(path):
        return _detect_zip(path)
    with open(path, "rb") as fh:
        head = fh.read(64 << 10)
    text = head.decode("utf-8-sig", errors="replace").lstrip()
    if text.startswith("["):
        found = _detect_array(path)  # else maybe a chat log whose lines start with a [time]
    elif text.startswith("{"):
        found = _detect_lines(path) or _detect_document(path)
    else:
        found = None
    return found or _detect_text(path, head)


def _detect_zip(path: Path) -> Found:
    tree = ZipTree(path)
    try:
        names = tree.names()
        members = sorted(
            (n for n in names if n.rsplit("/", 1)[-1] == "conversations.json"), key=lambda n: (n.count("/"), n)
        )
        for member in members:
            with tree.open(member) as fh:
                kind = _array_kind(fh, f"{path}:{member}")
            if kind:
                return Found(path, kind, member)
        if slack.sniff(tree):
            return Found(path, slack.TOOL)
    finally:
        tree.close()
    raise ExportError(f"{path}: a zip file that is not a conversation export wikic knows",
                      hint="wikic reads ChatGPT and Claude.ai exports (conversations.json inside) and Slack exports; "
                           "unpack other archives and ingest their files")


def _detect_array(path: Path) -> Found | None:
    with open(path, "rb") as fh:
        kind = _array_kind(fh, str(path))
    return Found(path, kind) if kind else None


def _array_kind(stream: Any, label: str) -> str | None:
    """chatgpt or claude-ai from the array's first element; ExportError for an unknown conversation shape."""
    try:
        first = next(iter_array(stream, label), None)
    except ExportError as exc:
        stream.seek(0)
        head = stream.read(64 << 10)
        if b'"mapping"' in head or b'"chat_messages"' in head:
            # an export cut short (a download that stopped) or damaged in its first conversation: say where,
            # rather than ingest it as text
            raise ExportError(exc.message, hint="download the export again; nothing of it was read") from None
        return None  # not JSON after all: an ordinary source (ingest reports what it is)
    if chatgpt.sniff(first):
        return chatgpt.TOOL
    if claude_ai.sniff(first):
        return claude_ai.TOOL
    if isinstance(first, dict) and _CONVERSATIONAL & set(first):
        raise ExportError(f"{label}: looks like a conversation export, but not one wikic knows (its conversations have "
                          f"the keys {', '.join(sorted(first)[:8])})",
                          hint="wikic reads ChatGPT, Claude.ai, Claude Code, Codex, Gemini CLI and Slack exports")
    return None


def head_entries(path: Path) -> list[tuple[int, dict[str, Any]]] | None:
    """The first object lines of a JSON Lines file, or None when its first line is JSON but not an object.
    A damaged line (the first included) is passed over here: reading the file reports it, with its line."""
    with open(path, "rb") as fh:
        data = b""
        for _ in range(_HEAD_LINES):
            line = fh.readline(_HEAD_BYTES)
            if not line:
                break
            data += line
            if len(data) > _HEAD_BYTES:
                break
    entries: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(data.split(b"\n"), start=1):
        try:
            value = parse(line.decode("utf-8-sig", errors="replace")) if line.strip() else None
        except ValueError:
            continue
        if number == 1 and not isinstance(value, dict):
            return None
        if isinstance(value, dict):
            entries.append((number, value))
    return entries


def line_format(entries: list[tuple[int, dict[str, Any]]]) -> str | None:
    for tool, module in LINE_FORMATS.items():
        if any(module.sniff(entry) for _, entry in entries):
            return tool
    return None


def _detect_lines(path: Path) -> Found | None:
    entries = head_entries(path)
    if entries is None:
        return None
    if len(entries) < 2:
        return None  # one JSON object on one line: a document, judged as one
    tool = line_format(entries)
    if tool:
        return Found(path, tool)
    if any(_CONVERSATIONAL & set(entry) for _, entry in entries[:20]):
        raise ExportError(
            f"{path}: looks like a conversation log (JSON Lines), but not one wikic knows",
            hint="wikic reads Claude Code, Codex and Gemini CLI sessions; convert others to text with `> ` turns",
        )
    return None


def _detect_document(path: Path) -> Found | None:
    if path.stat().st_size > MAX_DOCUMENT:
        return None
    data = path.read_bytes()
    try:
        value = parse(data.decode("utf-8-sig", errors="replace"))  # a bad byte is one character, as in every export
    except TooDeep as exc:
        if any(key in data[: 64 << 10] for key in _DOCUMENT_KEYS):
            raise ExportError(f"{path}: looks like a conversation, but its JSON is {exc}",
                              hint="the file is damaged; nothing of it was read") from None
        return None  # an ordinary source
    except ValueError:  # not JSON
        return None
    if gemini_cli.sniff_document(value):
        return Found(path, gemini_cli.TOOL, document=True)
    if chatgpt.sniff(value):
        return Found(path, chatgpt.TOOL, document=True)
    if claude_ai.sniff(value):
        return Found(path, claude_ai.TOOL, document=True)
    if (
        isinstance(value, dict)
        and _CONVERSATIONAL & set(value)
        and isinstance(value.get("messages") or value.get("turns"), list)
    ):
        raise ExportError(f"{path}: looks like a conversation (a JSON document with messages), but not one wikic knows",
                          hint="wikic reads ChatGPT, Claude.ai, Gemini CLI, Claude Code, Codex and Slack exports")
    return None


def _detect_text(path: Path, head: bytes) -> Found | None:
    if path.stat().st_size > MAX_CHAT_LOG or b"\x00" in head:
        return None
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    if text.lstrip().startswith("---"):
        return None  # frontmatter: a note or a transcript already, not a chat log
    return Found(path, chat_log.TOOL) if chat_log.style(text.replace("\r\n", "\n")) else None
