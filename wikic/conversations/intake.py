"""Bringing conversations in: exports named on the command line, exports dropped into raw/, and the
capture queue, each turned into transcript parts (`ledger.PartWriter`) that then compile like any source.

Everything here runs under the conversations lock (one process brings conversations in at a time) and
records what it wrote in `.wikic/conversations.json`; an export read before (same sha256) is not read
again. A large account export streams: one conversation in memory at a time, the ledger saved every
`SAVE_EVERY` conversations (a killed run leaves whole transcripts, and the next run finds them).

An export that cannot be read (a damaged line, JSON nested too deep, a shape wikic does not know) fails
alone: its report carries the error, naming the file and line, and the rest of the batch goes on (the
transcripts it gave before the damage included). A queue entry that is no capture at all is moved aside
to `.wikic/capture/quarantine/` (`queue.quarantine`), so it never stops a later drain.
"""

from __future__ import annotations

import hashlib
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
from wikic.conversations.jsonio import iter_array, loads, read_jsonl
from wikic.conversations.ledger import ConversationLedger, PartWriter
from wikic.conversations.queue import quarantine, queued
from wikic.conversations.raw_files import export_sha256, keep_bytes, keep_export
from wikic.conversations.sources import ZipTree, open_tree
from wikic.errors import ExportError
from wikic.progress import ProgressCallback, ProgressEvent
from wikic.vault.formats.conversations import ExportEntry, read_conversations
from wikic.vault.formats.set_aside import SetAside
from wikic.vault.formats.sources import read_sources
from wikic.vault.formats.transcript import Conversation
from wikic.vault.layout import RAW_DIR, is_export
from wikic.vault.state import conversations_lock
from wikic.vault.tree import walk_tree

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
    error: str | None = None  # why the export could not be read (whole, or past a point): it failed
    errors: list[str] = field(default_factory=list)  # queued captures that could not be read (kept in the queue)
    quarantined: list[str] = field(default_factory=list)  # queue entries that are no capture, moved aside (why)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Intake:
    transcripts: list[str] = field(default_factory=list)  # raw paths to compile
    reports: list[ExportReport] = field(default_factory=list)


def find_exports(inputs: Sequence[str]) -> tuple[list[Found], list[ExportReport]]:
    """The inputs that are conversation exports (by content), and a failed report for each input that is
    one but cannot be read (a shape wikic does not know, an export cut short, JSON nested too deep)."""
    found, refused = [], []
    for item in inputs:
        if item == "-" or "://" in item:
            continue
        path = Path(item).expanduser()
        try:
            hit = detection.detect(path) if path.exists() else None
        except ExportError as exc:
            refused.append(ExportReport(str(path), "export", error=_reason(exc)))
            continue
        except OSError as exc:  # a file without read permission: reading it as a source would say the same
            refused.append(ExportReport(str(path), "export", error=f"{path}: cannot be read ({exc.strerror or exc})"))
            continue
        if hit is not None:
            found.append(hit)
    return found, refused


def _reason(exc: ExportError) -> str:
    return exc.message + (f" ({exc.hint})" if exc.hint else "")


def find_dropped(root: Path) -> list[Found]:
    """Conversation exports someone put into raw/ by hand (not captured, not read before)."""
    read = read_conversations(root).kept_exports(done=True)
    captured = set(read_sources(root))
    aside = SetAside.load(root)  # refused by an earlier ingest (a zip bomb...): not opened again until it changes
    found = []
    for folder, dirs, files in walk_tree(root / RAW_DIR):
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
                report = ExportReport(str(item.path), item.format)
                intake.reports.append(report)
                try:
                    intake.transcripts += _bring_in_one(root, item, ledger, writer, report, progress)
                except ExportError as exc:
                    report.error = _reason(exc)
                    intake.transcripts += report.written  # what it gave before the damage is whole: it compiles
        finally:
            if writer.changed:
                ledger.save()
    return intake


def _bring_in_one(root: Path, item: Found, ledger: ConversationLedger, writer: PartWriter, report: ExportReport,
                  progress: ProgressCallback | None) -> list[str]:
    """Fill `report` with what `item` gave; the transcripts to compile. ExportError when it cannot be read,
    the report then holding the transcripts written before the point where it is damaged."""
    sha = export_sha256(item.path)
    known = ledger.exports.get(sha)
    if known is not None and known.done:
        report.export, report.already_read = str(known.path), True
        report.conversations = report.unchanged = known.conversations or 0
        return [p for p in known.transcripts or () if (root / p).is_file()]
    line_data = None
    if item.format in LINE_FORMATS and not item.document:
        line_data = item.path.read_bytes()
        read_jsonl(line_data, str(item.path))  # a damaged line stops it here, before anything is kept
    report.export = keep_export(root, item.path, sha)

    def record(*, done: bool = False) -> None:
        """The export's entry as far as it was read: the report holds what it gave so far."""
        ledger.exports[sha] = ExportEntry(report.export, item.format, done, report.conversations,
                                          tuple(report.written))

    record()
    writer.changed = True
    try:
        if line_data is not None:
            added = take_lines(writer, LINE_FORMATS[item.format], line_data, 0, str(item.path),
                               lambda _: (report.export, sha), fallback_id=item.path.stem)
            _count(report, added and added.path)
        else:
            for done, conversation in enumerate(_conversations(item), start=1):
                added = writer.add_document(conversation, report.export, sha)
                _count(report, added.path)
                if progress is not None:
                    progress(ProgressEvent("conversations", done, 0, "conversations"))
                if done % SAVE_EVERY == 0:
                    record()
                    ledger.save()
    finally:
        record()  # what it gave before it stopped (damaged past a point, interrupted) is saved with the rest
    record(done=True)
    return report.written


def _count(report: ExportReport, path: str | None) -> None:
    report.conversations += 1
    if path:
        report.written.append(path)
    else:
        report.unchanged += 1


def _conversations(item: Found) -> Iterator[Conversation]:
    label = str(item.path)
    if item.format == slack.TOOL:
        tree = open_tree(item.path)
        try:
            yield from slack.conversations(tree)
        finally:
            if isinstance(tree, ZipTree):
                tree.close()
        return
    if item.format == chat_log.TOOL:
        yield chat_log.conversation(_text(item.path).replace("\r\n", "\n"))
        return
    if item.document:
        value = loads(item.path.read_bytes().decode("utf-8-sig", errors="replace"), label)
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


def _text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ExportError(f"{path}: not UTF-8 text (byte {exc.start})", hint="nothing of it was read") from None


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
    consumed = (entry.reached or 0) if entry else 0
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
    are recorded. A capture whose lines cannot be read stays in the queue, reported, and holds back the
    later captures of its session (their turns come after its own). An entry that is no capture at all (a
    folder, a file without a capture's first line) is moved to the quarantine, reported, and the rest goes on."""
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
                    header, data = _read_capture(path)
                except NotACapture as exc:
                    report.quarantined.append(f"{exc.message}: {quarantine(root, path)}")
                    continue
                try:
                    added = _drain_one(root, writer, ledger, key, path, header, data)
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


class NotACapture(ExportError):
    """A queue entry that `wikic capture` did not write: it can never be read, so it is set aside."""


def _read_capture(path: Path) -> tuple[dict[str, Any], bytes]:
    """A queue file's header (its first line: where the bytes come from) and the session bytes after it."""
    if path.is_symlink() or not path.is_file():
        raise NotACapture(f"{path}: not a capture (not a file)")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise NotACapture(f"{path}: not a capture (cannot be read: {exc.strerror or exc})") from None
    head, _, data = raw.partition(b"\n")
    try:
        header = loads(head.decode("utf-8"), f"{path}:1")
    except (ExportError, UnicodeDecodeError):
        raise NotACapture(f"{path}: not a capture (its first line is not JSON)") from None
    if not isinstance(header, dict):
        raise NotACapture(f"{path}: not a capture (its first line is not a JSON object)")
    return header, data


def _drain_one(root: Path, writer: PartWriter, ledger: ConversationLedger, key: str, path: Path,
               header: dict[str, Any], data: bytes) -> Any:
    start = header["start"] if isinstance(header.get("start"), int) and header["start"] >= 0 else 0
    source = header["transcript_path"] if isinstance(header.get("transcript_path"), str) else path.name
    label = f"{source} (captured bytes {start}-{start + len(data)})"
    tool = header["tool"] if isinstance(header.get("tool"), str) and header["tool"] in LINE_FORMATS else None
    known = ledger.sessions.get(key)
    known = known if known is not None and ":" in known else None
    if tool is None and known:
        tool = known.split(":", 1)[0]
    if tool is None:
        tool = detection.line_format(read_jsonl(data, label).entries)
    if tool is None or tool not in LINE_FORMATS:
        raise ExportError(
            f"{label}: not a Claude Code, Codex or Gemini CLI session",
            hint="capture reads those assistants' session files; ingest other files with `wikic ingest FILE`",
        )
    session = header.get("session_id")
    fallback = known.split(":", 1)[1] if known else (session if isinstance(session, str) and session
                                                     else Path(source).stem)
    added = take_lines(writer, LINE_FORMATS[tool], data, start, label,
                       lambda new: (keep_bytes(root, new, ".jsonl"), _sha(new)), fallback_id=str(fallback))
    if added is not None:
        ledger.sessions[key] = added.key
        writer.changed = True
    return added


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()

