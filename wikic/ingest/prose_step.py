"""Composing the pages an ingest wrote, once its own writes are done (`compile/prose.py` does one page).

The model is asked outside the vault lock, one page at a time in parallel (`[llm] concurrency`), from the
pages as the run wrote them; the prose is written under the lock through the journal, and only onto a page
still as the run left it (a person's edit meanwhile wins, and the page keeps its claim lists). A page the
call fails on keeps its claim lists too: composing never fails a source. One `compose` row in log.md says
what the run composed; the composed pages' index.md entries and the overview take their new leads in the
same journal.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic.compile.prose import Composed, changed_pages, compose_page
from wikic.errors import VaultError
from wikic.hubs import HubPlanner
from wikic.ingest.workers import DaemonPool
from wikic.llm.cache import ReplyCache
from wikic.llm.client import LLM
from wikic.pages import journal
from wikic.pages.lock import writer
from wikic.pages.log_file import listed, notes, row, usage
from wikic.vault.formats.composed import composed_ledger
from wikic.vault.frontmatter import split_page
from wikic.vault.layout import is_note_path
from wikic.vault.paths import read_text_inside
from wikic.vault.schema_md import Schema
from wikic.vault.state import COMPOSED, json_bytes, read_cache


@dataclass
class Composing:
    """What composing a run's pages did."""

    pages: list[str] = field(default_factory=list)  # pages written as prose
    sentences: int = 0
    refused: dict[str, int] = field(default_factory=dict)  # sentences not written, by reason
    failed: dict[str, str] = field(default_factory=dict)  # page -> why it keeps its claim lists
    left: list[str] = field(default_factory=list)  # pages a person changed meanwhile: not composed
    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0  # waiting for the model's replies (the prose is written after)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def add(self, done: Composed) -> None:
        self.sentences += done.sentences
        for reason, n in done.refused.items():
            self.refused[reason] = self.refused.get(reason, 0) + n
        if done.error:
            self.failed[done.path] = done.error
        self.calls += done.usage.calls
        self.cached_calls += done.usage.cached_calls
        self.prompt_tokens += done.usage.prompt_tokens
        self.completion_tokens += done.usage.completion_tokens


def compose_run(
    root: Path,
    llm: LLM,
    cache: ReplyCache | None,
    schema: Schema,
    paths: list[str],
    *,
    today: dt.date,
    max_tokens: int,
    page_types: list[str],
    concurrency: int = 2,
    judge: bool = False,
) -> Composing:
    """Compose the pages at `paths` (those an ingest wrote) and write the prose that holds up (`judge`: the
    model judges each sentence against its claims too)."""
    out = Composing()
    texts: dict[str, str] = {}
    for path in paths:
        if not is_note_path(path):
            continue  # a to-do names no page wikic writes when a synced or cloned .wikic/ brought it
        try:
            text = read_text_inside(root, root / path)
        except (OSError, UnicodeDecodeError, VaultError):
            continue
        if text is not None:
            texts[path] = text
    drafts = changed_pages(texts, schema.layout)
    if not drafts:
        return out

    def one(path: str) -> Composed:
        page = next(d for d in drafts if d.path == path)
        data, _ = split_page(texts[path])
        aliases = [a for a in (data or {}).get("aliases") or [] if isinstance(a, str)]
        return compose_page(page, texts[path], llm, cache, max_tokens=max_tokens, aliases=aliases, judge=judge)

    started = time.monotonic()
    with DaemonPool(max(1, concurrency), name="wikic-compose") as pool:
        done = [f.result() for f in [pool.submit(one, d.path) for d in drafts]]
    out.seconds = time.monotonic() - started
    if cache is not None:
        cache.sync()
    plan = journal.Journal()
    for composed in done:
        out.add(composed)
        if composed.text != texts[composed.path]:
            plan.add_page(composed.path, texts[composed.path], composed.text)
            out.pages.append(composed.path)
    said = [c for c in done if c.error is None and (c.sentences or c.refused)]
    if not plan.pages:
        if said:  # every sentence refused: the page stands as it was, and the record says why
            with writer(root, page_types):
                _record(root, plan, said, today)
                plan.commit(root, page_types)
        return out
    tokens = out.prompt_tokens + out.completion_tokens
    refused = sum(out.refused.values())
    with writer(root, page_types):
        _record(root, plan, said, today)
        # a composed page opens with a new lead: its index.md entry and the overview say it
        composed = {path: planned["text"] for path, planned in plan.pages.items()}
        hubs = HubPlanner(root, schema, today, planned=composed)
        rows = [row(today, "compose", f"{len(out.pages)} page(s)",
                    notes(listed("composed", [hubs.link(p) for p in out.pages]),
                          f"{out.sentences} sentences, {refused} refused", usage(tokens, None)))]
        hubs.log(rows)
        written = hubs.plan(changed={path: texts[path] for path in composed})
        for path, (before, text) in written.pages.items():
            plan.add_page(path, before, text)
        plan.add_index(written.entries, written.was)
        plan.add_log(root, rows)
        out.left = plan.commit(root, page_types)
    out.pages = [p for p in out.pages if p not in out.left]
    return out


def _record(root: Path, plan: journal.Journal, said: list[Composed], today: dt.date) -> None:
    """Plan the composed ledger with each page of `said` as its composing left it (under the vault lock: the
    ledger is read as it is then, and written in the run's journal)."""
    before = read_cache(root, COMPOSED)
    pages = composed_ledger(root)
    for composed in said:
        pages[composed.path] = {"composed": today.isoformat(), "sentences": composed.sentences,
                                "refused": dict(sorted(composed.refused.items()))}
    text = json_bytes({"version": 1, "pages": dict(sorted(pages.items()))}).decode("utf-8")
    plan.add_ledger(COMPOSED, before, text)
