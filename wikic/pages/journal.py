"""A redo journal for the files one ingest run, one `query --save` or one `lint --fix` writes, so a run
killed part-way is finished by the next.

A run plans every change in memory, then, under the vault lock (`Journal.commit`):
1. writes the whole plan to `.wikic/journal.json` (atomically: it is there whole or not at all);
2. applies it: the pages, index.md, `.wikic/compiled.json`, `.wikic/mentions.json`, then log.md;
3. leaves the paths the palace must re-read in `.wikic/palace-todo/<run>.json` and removes the journal.
After the vault lock, the palace is updated and the to-do removed (`wikic/palace/todo.py`).

Applying is idempotent: a page that already holds its new text is skipped (and one a person changed since
the plan was made is left alone), an index entry already listed is not added again, a log row already
written after the run's starting point is not written again, and the ledgers take the recorded entries.
So a run killed anywhere leaves either no journal (nothing of its compile was written: the next run
compiles its sources again, from the reply cache) or a journal that the next ingest applies before it
does anything else; either way log.md, index.md, the pages and the ledgers agree once it has run.

Filing an answer (`wikic/query/writeback.py`) goes through the same journal: its query page, index.md
(recorded as a page, since a refreshed answer rewrites its entry's summary), the cited pages' "Asked
about" blocks and its log row; so do `lint --fix`'s repairs (pages and index.md). Every writer finishes
any journal it finds, whoever left it, before it reads the vault.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from wikic.pages.index_file import Entry, with_entries
from wikic.pages.log_file import appended
from wikic.vault import state
from wikic.vault.layout import INDEX_FILE, LOG_FILE, OVERVIEW_FILE
from wikic.vault.write import remove_stale_temp_files, write_atomic


def _lf(text: str) -> str:
    # a page is compared as `_read` sees it: with universal newlines (CRLF and CR read as LF)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _sha(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(_lf(text).encode("utf-8", "surrogatepass")).hexdigest()


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None


@dataclass
class Journal:
    run: str = field(default_factory=lambda: secrets.token_hex(6))
    pages: dict[str, dict[str, Any]] = field(default_factory=dict)  # path -> {"before": sha | None, "text": ...}
    # Entry fields, and "was": the summaries the entry had before (its line is rewritten while it says one)
    index: list[dict[str, Any]] = field(default_factory=list)
    compiled: dict[str, dict[str, Any]] = field(default_factory=dict)  # raw path -> compiled.json entry
    mentions: dict[str, Any] | None = None  # the whole mentions ledger after the run
    log_rows: list[str] = field(default_factory=list)
    log_lines: int = 0  # lines of log.md when the plan was made: rows are looked for after them
    palace: list[str] = field(default_factory=list)  # paths the palace must re-read
    compose: list[str] = field(default_factory=list)  # pages to write as prose once this run's writes are done

    def add_page(self, path: str, before: str | None, text: str) -> None:
        """Write `text` to `path`, unless the file no longer holds `before` (None: no file) when applied."""
        self.pages[path] = {"before": _sha(before), "text": text}

    def add_index(self, entries: list[Entry], was: dict[str, list[str]] | None = None) -> None:
        """List `entries` in index.md; an entry `was` names (link -> its summaries before) is rewritten."""
        for e in entries:
            item: dict[str, Any] = {"page_type": e.page_type, "link": e.link, "summary": e.summary}
            if was is not None and e.link in was:
                item["was"] = list(was[e.link])
            self.index.append(item)

    def add_log(self, root: Path, rows: list[str]) -> None:
        """Rows to append to log.md; the rows already there are counted so a replay writes each row once."""
        self.log_rows = list(rows)
        log_path = root / LOG_FILE
        self.log_lines = log_path.read_text(encoding="utf-8", errors="replace").count("\n") if log_path.exists() else 0

    # -- storage -----------------------------------------------------------------------------------------
    def save(self, root: Path) -> None:
        state.save_journal(root, asdict(self))

    @classmethod
    def load(cls, root: Path) -> Journal | None:
        """The journal a killed run left, or None. An unreadable one was never completely written (it is
        written atomically), so it is no journal."""
        data = state.load_journal(root)
        try:
            return cls(**data) if data is not None else None
        except TypeError:
            return None

    # -- applying (under the vault lock) ----------------------------------------------------------------
    def commit(self, root: Path, page_types: list[str]) -> list[str]:
        """Save, apply and finish the plan (under the vault lock); returns the pages left alone because
        they changed since the plan was made."""
        self.save(root)  # from here on, a killed run is finished by the next writer
        left = self.apply(root, page_types)
        self.finish(root)
        return left

    def apply(self, root: Path, page_types: list[str]) -> list[str]:
        """Make every planned write true; returns the pages left alone because a person changed them."""
        left: list[str] = []
        for path, planned in self.pages.items():
            current = _read(root / path)
            if current == _lf(planned["text"]):
                continue
            if _sha(current) != planned["before"]:
                left.append(path)
                continue
            write_atomic(root / path, planned["text"], root=root)
        if self.index or OVERVIEW_FILE in self.pages:  # index.md leads to the overview the run writes
            index_path = root / INDEX_FILE
            current = _read(index_path) or None
            entries = [Entry(e["page_type"], e["link"], e["summary"]) for e in self.index]
            was = {e["link"]: e["was"] for e in self.index if isinstance(e.get("was"), list)}
            new = with_entries(current, entries, page_types, was=was, overview=(root / OVERVIEW_FILE).is_file())
            if new != current:
                write_atomic(index_path, new, root=root)
        if self.compiled:
            compiled = state.Compiled.load(root)
            compiled.entries.update(self.compiled)
            compiled.save()
        if self.mentions is not None:
            state.Mentions(root, self.mentions).save()
        if self.log_rows:
            log_path = root / LOG_FILE
            current = _read(log_path)
            after = set((current or "").split("\n")[self.log_lines :])
            missing = [r for r in self.log_rows if r not in after]
            if missing:
                write_atomic(log_path, appended(current, missing), root=root)
        return left

    def finish(self, root: Path) -> None:
        """Hand the palace and composing their to-dos, then drop the journal: everything else is written."""
        if self.palace:
            state.add_palace_todo(root, self.run, self.palace)
        if self.compose:
            state.add_compose_todo(root, self.run, self.compose)
        state.drop_journal(root)


def pending(root: Path) -> bool:
    """Whether a killed run left work behind (a journal, or palace updates not done)."""
    return state.journal_exists(root) or bool(state.palace_todos(root))


def recover(root: Path, page_types: list[str]) -> list[str]:
    """Apply and finish a journal a killed run left, and remove the temporary files it left (call under the
    vault lock). Returns the sources whose run it completed."""
    remove_stale_temp_files(root)
    journal = Journal.load(root)
    if journal is None:
        state.drop_journal(root)  # unreadable: never complete, so nothing of it was applied
        return []
    journal.apply(root, page_types)
    journal.finish(root)
    return sorted(journal.compiled)
