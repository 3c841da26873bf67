"""Bringing conversations in: exports named on the command line, exports dropped into raw/, and the
capture queue, each turned into transcript parts (`ledger.PartWriter`) that then compile like any source.

Everything here runs under the conversations lock (one process brings conversations in at a time) and
records what it wrote in `.wikic/conversations.json`; an export read before (same sha256) is not read
again. A large account export streams: one conversation in memory at a time, the ledger saved every
`SAVE_EVERY` conversations (a killed run leaves whole transcripts, and the next run finds them).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import IO, Any

from wikic.conversations import detect as detection
from wikic.conversations.detect import LINE_FORMATS, Found
from wikic.conversations.formats import chat_log, chatgpt, claude_ai, gemini_cli, slack
from wikic.conversations.jsonio import iter_array, read_jsonl
from wikic.conversations.ledger import PartWriter
from wikic.conversations.queue import queued
from wikic.conversations.sources import ZipTree, open_tree
from wikic.conversations.store import export_sha256, keep_bytes, keep_export
from wikic.conversations.transcript import Conversation
from wikic.errors import ExportError
from wikic.progress import ProgressCallback, ProgressEvent
from wikic.vault.layout import RAW_DIR, is_export
from wikic.vault.state import ConversationLedger, SetAside, conversations_lock, source_ledger

SAVE_EVERY = 50
STREAMED = {chatgpt.TOOL: chatgpt, claude_ai.TOOL: claude_ai}


@dataclass
class ExportReport:
    origin: str  # the file or folder as given (or the queue)
    tool: str
    export: str = ""  # where it is kept in the vault
    conversations: int = 0  # conversations read in it
    written: list[str] = field(default_factory=list)  # transcript parts written from it
    unchanged: int = 0  # conversations with nothing new
    already_read: bool = False  # the same export was read before: not read again
    errors: list[str] = field(default_factory=list)  # queued captures that could not be read (kept in the queue)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Intake:
    transcripts: list[str] = field(default_factory=list)  # raw paths to compile
    reports: list[ExportReport] = field(default_factory=list)


def find_exports(inputs: Sequence[str]) -> list[Found]:
    """The inputs that are conversation exports (by content). ExportError for one of an unknown shape."""
    found = []
    for item in inputs:
        if item == "-" or "://" in item:
            continue
        path = Path(item).expanduser()
        hit = detection.detect(path) if path.exists() else None
        if hit is not None:
            found.append(hit)
    return found


def find_dropped(root: Path) -> list[Found]:
    """Conversation exports someone put into raw/ by hand (not captured, not read before)."""
    ledger = ConversationLedger.load(root)
    read = {str(e.get("path")) for e in ledger.exports.values() if isinstance(e, dict) and e.get("done")}
    captured = set(source_ledger(root))
    aside = SetAside.load(root)  # refused by an earlier ingest (a zip bomb...): not opened again until it changes
    found = []
    for folder, dirs, files in os.walk(root / RAW_DIR):
        rel_dir = Path(folder).relative_to(root).as_posix()
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not is_export(f"{rel_dir}/{d}"))
        for name in sorted(files):
            rel = f"{rel_dir}/{name}"
            if name.startswith(".") or rel in captured or rel in read or os.path.islink(os.path.join(folder, name)):
                continue
            if aside.holds(rel):
                continue
            try:
                hit = detection.detect(root / rel)
            except ExportError:
                continue  # left to ingest as an ordinary file, which reports what it can
            if hit is not None and hit.format != chat_log.TOOL:  # a text file in raw/ is a source as it is
                found.append(hit)
    return found


def bring_in(root: Path, found: Sequence[Found], *, progress: ProgressCallback | None = None,
             today: datetime | None = None) -> Intake:
    """Transcripts for every conversation of `found`; the exports are kept verbatim in the vault."""
    intake = Intake()
    with conversations_lock(root):
        ledger = ConversationLedger.load(root)
        writer = PartWriter(root, ledger, today)
        try:
            for item in found:
                intake.reports.append(_bring_in_one(root, item, ledger, writer, intake, progress))
        finally:
            if writer.changed:
                ledger.save()
    return intake


def _bring_in_one(root: Path, item: Found, ledger: ConversationLedger, writer: PartWriter, intake: Intake,
                  progress: ProgressCallback | None) -> ExportReport:
    report = ExportReport(str(item.path), item.format)
    sha = export_sha256(item.path)
    known = ledger.exports.get(sha)
    if isinstance(known, dict) and known.get("done"):
        report.export, report.already_read = str(known.get("path")), True
        report.conversations = report.unchanged = int(known.get("conversations") or 0)
        intake.transcripts += [p for p in known.get("transcripts") or [] if (root / p).is_file()]
        return report
    line_data = None
    if item.format in LINE_FORMATS and not item.document:
        line_data = item.path.read_bytes()
        read_jsonl(line_data, str(item.path))  # a damaged line stops it here, before anything is kept
    report.export = keep_export(root, item.path, sha)
    record = {"path": report.export, "tool": item.format, "done": False, "conversations": 0, "transcripts": []}
    ledger.exports[sha] = record
    writer.changed = True
    if line_data is not None:
        added = take_lines(writer, LINE_FORMATS[item.format], line_data, 0, str(item.path),
                           lambda _: (report.export, sha), fallback_id=item.path.stem)
        _count(report, record, added and added.path)
    else:
        for done, conversation in enumerate(_conversations(item), start=1):
            added = writer.add_document(conversation, report.export, sha)
            _count(report, record, added.path)
            if progress is not None:
                progress(ProgressEvent("conversations", done, 0, "conversations"))
            if done % SAVE_EVERY == 0:
                ledger.save()
    record["done"] = True
    intake.transcripts += report.written
    return report


def _count(report: ExportReport, record: dict[str, Any], path: str | None) -> None:
    report.conversations += 1
    record["conversations"] = report.conversations
    if path:
        report.written.append(path)
        record["transcripts"].append(path)
    else:
        report.unchanged += 1


def _conversations(item: Found) -> Iterator[Conversation]:
    label = str(item.path)
    if item.format == slack.TOOL:
        yield from slack.conversations(open_tree(item.path))
        return
    if item.format == chat_log.TOOL:
        yield chat_log.conversation(item.path.read_bytes().decode("utf-8-sig").replace("\r\n", "\n"))
        return
    if item.document:
        value = json.loads(item.path.read_bytes().decode("utf-8-sig"))
        found = (gemini_cli.from_document(value, fallback_id=item.path.stem) if item.format == gemini_cli.TOOL
                 else STREAMED[item.format].conversation(value))
        if found is not None:
            yield found
        return
    module = STREAMED[item.format]
    if item.member is not None:
        tree = ZipTree(item.path)
        try:
            with tree.open(item.member) as fh:
                yield from _stream(module, fh, f"{label}:{item.member}")
        finally:
            tree.close()
    else:
        with open(item.path, "rb") as fh:
            yield from _stream(module, fh, label)


def _stream(module: ModuleType, fh: IO[bytes], label: str) -> Iterator[Conversation]:
    for element in iter_array(fh, label):
        found = module.conversation(element) if module.sniff(element) else None
        if found is not None:
            yield found


def take_lines(writer: PartWriter, module: ModuleType, data: bytes, start: int, label: str,
               keep: Any, *, fallback_id: str) -> Any:
    """The new turns of an append-only session file, `data` being its bytes from offset `start`: lines
    before what the ledger says was read are skipped. `keep(new_bytes)` keeps what is read as an export
    and returns (its path, its sha256)."""
    probe = module.conversation(read_jsonl(data, label).entries, fallback_id=fallback_id)
    entry = writer.entry(module.TOOL, probe.id)
    consumed = int(entry.get("bytes") or 0) if entry else 0
    if start + len(data) <= consumed:
        return None
    skip = max(0, consumed - start)
    tail = read_jsonl(data[skip:], label)
    found = module.conversation(tail.entries, fallback_id=probe.id)
    found = replace(found, id=probe.id, title=probe.title, started=probe.started or found.started,
                    extra={**probe.extra, **found.extra})
    new_bytes = data[skip:skip + tail.consumed]
    if not found.turns and entry is None:
        return None
    export, sha = keep(new_bytes) if found.turns else ("", "")
    return writer.add_lines(found, export, sha, start + skip + tail.consumed)


def drain_queue(root: Path, *, progress: ProgressCallback | None = None, today: datetime | None = None) -> Intake:
    """Turn what `wikic capture` queued into transcript parts; each queue file is removed once its lines
    are recorded. A file that cannot be read stays in the queue, reported, and holds back the later
    captures of its session (their turns come after its own)."""
    intake = Intake()
    files = queued(root)
    if not files:
        return intake
    report = ExportReport("capture queue", "sessions")
    with conversations_lock(root):
        ledger = ConversationLedger.load(root)
        writer = PartWriter(root, ledger, today)
        blocked: set[str] = set()
        try:
            for done, path in enumerate(queued(root), start=1):
                key = path.name.rsplit("-", 1)[0]
                if key in blocked:
                    continue
                try:
                    added = _drain_one(root, writer, ledger, key, path)
                except ExportError as exc:
                    report.errors.append(exc.message)
                    blocked.add(key)
                    continue
                if added is not None and added.path:
                    report.written.append(added.path)
                report.conversations += 1
                ledger.save()  # before the queue file goes: a crash between the two reads it again, harmlessly
                writer.changed = False
                path.unlink(missing_ok=True)
                if progress is not None:
                    progress(ProgressEvent("conversations", done, len(files), "captures"))
        finally:
            if writer.changed:
                ledger.save()
    intake.transcripts += report.written
    intake.reports.append(report)
    return intake


def _drain_one(root: Path, writer: PartWriter, ledger: ConversationLedger, key: str, path: Path) -> Any:
    raw = path.read_bytes()
    head, _, data = raw.partition(b"\n")
    try:
        header = json.loads(head)
    except ValueError:
        raise ExportError(f"{path}: not a capture (its first line is not JSON)") from None
    start = header.get("start") if isinstance(header.get("start"), int) else 0
    source = str(header.get("transcript_path") or path.name)
    label = f"{source} (captured bytes {start}-{start + len(data)})"
    tool = header.get("tool") if header.get("tool") in LINE_FORMATS else None
    known = ledger.sessions.get(key)
    if tool is None and known:
        tool = known.split(":", 1)[0]
    if tool is None:
        tool = detection.line_format(read_jsonl(data, label).entries)
    if tool is None:
        raise ExportError(
            f"{label}: not a Claude Code, Codex or Gemini CLI session",
            hint="capture reads those assistants' session files; ingest other files with `wikic ingest FILE`",
        )
    fallback = known.split(":", 1)[1] if known else (header.get("session_id") or Path(source).stem)
    added = take_lines(writer, LINE_FORMATS[tool], data, start, label,
                       lambda new: (keep_bytes(root, new, ".jsonl"), _sha(new)), fallback_id=str(fallback))
    if added is not None:
        ledger.sessions[key] = added.key
        writer.changed = True
    return added


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()

