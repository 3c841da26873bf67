"""What an assistant asks the wiki to remember: `remember` writes a dated note into `raw/notes/` (in the
transcript format: one turn of the user, at the time it was asked) and compiles it through the normal
pipeline, so the memory is proposed by the model, anchored to the note's line and placed on its subject's
page like any memory of a conversation. Without a configured model the note is captured all the same, and
`wikic ingest` compiles it later. It is an ingest of one source, so it lives here; the memories it writes are
read by `wikic/memory/`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic.context import VaultContext
from wikic.errors import ConfigError, UsageError
from wikic.text.controls import without_controls
from wikic.vault.formats.memory_items import KINDS
from wikic.vault.formats.remember_note import Asked
from wikic.vault.formats.transcript import Conversation, Turn, render
from wikic.vault.layout import require_vault

NOTES_KIND = "notes"
MAX_CONTENT = 2000


@dataclass
class Remembered:
    raw_path: str
    new: bool  # False: the same note was captured before
    compiled: bool
    pages: list[str] = field(default_factory=list)  # the pages the note was written on
    pending: list[str] = field(default_factory=list)  # subjects waiting for more sources (SCHEMA.md thresholds)
    error: str | None = None  # why it was not compiled now (it will be by a later `wikic ingest`)


def note_text(kind: str, content: str, importance: float, subject: str, when: dt.datetime) -> str:
    """The note `remember` captures: a transcript of one turn, saying what to remember and how, with the
    kind, subject and importance asked for in its frontmatter (see `wikic/vault/formats/remember_note.py`)."""
    request = Asked(kind, subject, importance)
    title = f"{when.strftime('%Y-%m-%d')} remember: {' '.join(content.split())[:60]}"
    return render(
        Conversation(
            f"remember-{when.strftime('%Y%m%dT%H%M%S')}",
            "chat-log",
            title,
            (Turn("user", request.turn(content.strip()), when),),
            extra={key: str(value) for key, value in request.fields().items()},
        )
    )


def remember(context: VaultContext, kind: str, content: str, *, importance: float = 0.5, subject: str = "user",
             llm: Any = None, now: dt.datetime | None = None) -> Remembered:
    """Capture `content` as a memory of `kind` about `subject`, and compile it when a model is configured
    (`llm`: a model of the caller's own instead)."""
    return _remember(context, kind, content, importance, subject, llm, now)


def _remember(context: VaultContext, kind: str, content: str, importance: float, subject: str, llm: Any,
              now: dt.datetime | None) -> Remembered:
    from wikic.ingest.capture import capture
    from wikic.ingest.pipeline import IngestOptions, ingest

    root = Path(context.root).resolve()
    require_vault(root)
    if kind not in KINDS:
        raise UsageError(f"unknown memory kind {kind!r}", hint=f"use one of: {', '.join(KINDS)}")
    # what a tool call may carry and no note may: NUL and other control characters, terminal colour codes,
    # lone surrogates (UTF-8 cannot hold them)
    content = without_controls(content)
    subject = " ".join(without_controls(subject).split()) or "user"
    if not content.strip():
        raise UsageError("nothing to remember: the content is empty")
    if len(content) > MAX_CONTENT:
        raise UsageError(f"a memory is at most {MAX_CONTENT} characters", hint="remember one thing at a time")
    importance = min(1.0, max(0.0, importance))
    now = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
    text = note_text(kind, content, importance, subject, now)
    (captured,) = capture(root, ["-"], kind=NOTES_KIND, settings=context.settings.ingest, stdin=text.encode("utf-8"))
    result = Remembered(captured.raw_path, captured.new, False)
    try:
        report = ingest(context, IngestOptions(inputs=[str(root / captured.raw_path)], today=now.date()), llm=llm)
    except ConfigError as exc:  # no model configured: the note waits in raw/notes/ for `wikic ingest`
        result.error = exc.message
        return result
    source = next((s for s in report.sources if s.raw_path in (captured.raw_path, captured.text_path)), None)
    if source is None or source.status not in ("compiled", "unchanged"):
        result.error = (source.error if source is not None else None) or "not compiled"
        return result
    result.compiled = True
    result.pages = [*source.created, *source.updated]
    result.pending = list(source.pending)
    return result
