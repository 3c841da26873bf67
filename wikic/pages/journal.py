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

A journal found is replayed only when it is one this vault's writer could have left: pages where wikic
writes notes (`layout.is_note_path`: never raw/, SCHEMA.md, wikic.toml or a dot-folder such as
`.obsidian/`), entries of the right shapes. A synced or cloned `.wikic/` can bring any other, so such a
journal is set aside whole (`journal.refused-<time>.json`), nothing of it written, and the run stops with
an error that says so; the next run goes on without it. Nothing a journal names is read or written
through a symbolic link that leads out of the vault.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from wikic.pages.index_file import Entry, with_entries, without_entries
from wikic.pages.log_file import appended
from wikic.vault import state
from wikic.vault.formats.compiled import compiled_from_json, read_compiled, write_compiled
from wikic.vault.formats.mentions import mentions_from_json, write_mentions
from wikic.vault.layout import INDEX_FILE, LOG_FILE, OVERVIEW_FILE, STATE_DIR, in_vault_tree, is_note_path
from wikic.vault.paths import confined, read_text_inside
from wikic.vault.write import remove_file, remove_stale_temp_files, write_atomic


def _lf(text: str) -> str:
    # a page is compared as `_read` sees it: with universal newlines (CRLF and CR read as LF)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _sha(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(_lf(text).encode("utf-8", "surrogatepass")).hexdigest()


def _read(root: Path, path: str) -> str | None:
    return read_text_inside(root, root / path, errors="replace")


@dataclass
class Journal:
    run: str = field(default_factory=lambda: secrets.token_hex(6))
    # path -> {"before": sha | None, "text": ...}; a text of None removes the page
    pages: dict[str, dict[str, Any]] = field(default_factory=dict)
    unlisted: dict[str, str] = field(default_factory=dict)  # page removed -> its index.md entry's link
    # Entry fields, and "was": the summaries the entry had before (its line is rewritten while it says one)
    index: list[dict[str, Any]] = field(default_factory=list)
    compiled: dict[str, dict[str, Any]] = field(default_factory=dict)  # raw path -> compiled.json entry
    mentions: dict[str, Any] | None = None  # the whole mentions ledger after the run
    log_rows: list[str] = field(default_factory=list)
    log_lines: int = 0  # lines of log.md when the plan was made: rows are looked for after them
    palace: list[str] = field(default_factory=list)  # paths the palace must re-read
    compose: list[str] = field(default_factory=list)  # pages to write as prose once this run's writes are done
    # a ledger under .wikic/ written whole (an accepted proposal's): name -> {"before": sha | None, "text": ...};
    # a text of None removes the file (a capture-queue entry brought in)
    ledgers: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add_page(self, path: str, before: str | None, text: str | None) -> None:
        """Write `text` to `path` (None: remove the file), unless the file no longer holds `before` (None: no
        file) when applied."""
        self.pages[path] = {"before": _sha(before), "text": text}

    def remove_page(self, path: str, before: str, link: str) -> None:
        """Remove the page at `path` and its index.md entry (`link`), unless the file no longer holds `before`
        (a person changed it since: it stays, and so does its entry)."""
        self.add_page(path, before, None)
        self.unlisted[path] = link

    def add_index(self, entries: list[Entry], was: dict[str, list[str]] | None = None) -> None:
        """List `entries` in index.md; an entry `was` names (link -> its summaries before) is rewritten."""
        for e in entries:
            item: dict[str, Any] = {"page_type": e.page_type, "link": e.link, "summary": e.summary}
            if was is not None and e.link in was:
                item["was"] = list(was[e.link])
            self.index.append(item)

    def add_ledger(self, name: str, before: str | None, text: str | None) -> None:
        """Write the ledger `name` (`.wikic/`-relative) whole, unless it no longer holds `before` when applied.
        A name that is no ledger of wikic's is never written."""
        self.ledgers[name] = {"before": _sha(before), "text": text}

    def add_log(self, root: Path, rows: list[str]) -> None:
        """Rows to append to log.md; the rows already there are counted so a replay writes each row once."""
        self.log_rows = list(rows)
        self.log_lines = (_read(root, LOG_FILE) or "").count("\n")

    # -- storage -----------------------------------------------------------------------------------------
    def save(self, root: Path) -> None:
        state.save_journal(root, asdict(self))

    @classmethod
    def load(cls, root: Path) -> Journal | None:
        """The journal a killed run left, or None. An unreadable one was never completely written (it is
        written atomically), so it is no journal. One this vault's writer could not have left is set aside
        and refused (VaultError): nothing of it is written."""
        data = state.load_journal(root)
        if data is None:
            return None
        try:
            journal = cls(**data)
        except TypeError:
            return None
        why = _foreign(data)
        if why is not None:
            state.refuse_journal(root, why)
        return journal

    # -- applying (under the vault lock) ----------------------------------------------------------------
    def commit(self, root: Path, page_types: list[str]) -> list[str]:
        """Save, apply and finish the plan (under the vault lock); returns the pages left alone because
        they changed since the plan was made."""
        self._confined(root)  # refused before the journal is saved: the next writer would meet the same link
        self.save(root)  # from here on, a killed run is finished by the next writer
        left = self.apply(root, page_types)
        self.finish(root)
        return left

    def apply(self, root: Path, page_types: list[str]) -> list[str]:
        """Make every planned write true; returns the pages left alone because a person changed them.
        VaultError before anything is written when a file it writes leads outside the vault."""
        self._confined(root)
        left: list[str] = []
        for path, planned in self.pages.items():
            current = _read(root, path)
            if planned["text"] is None:
                if current is not None and _sha(current) != planned["before"]:
                    left.append(path)
                elif current is not None:
                    remove_file(root / path, root=root)
                continue
            if current == _lf(planned["text"]):
                continue
            if _sha(current) != planned["before"]:
                left.append(path)
                continue
            write_atomic(root / path, planned["text"], root=root)
        if self.index or self.unlisted or OVERVIEW_FILE in self.pages:  # index.md leads to the run's overview
            index_path = root / INDEX_FILE
            current = _read(root, INDEX_FILE) or None
            entries = [Entry(e["page_type"], e["link"], e["summary"]) for e in self.index]
            was = {e["link"]: e["was"] for e in self.index if isinstance(e.get("was"), list)}
            new = with_entries(current, entries, page_types, was=was, overview=(root / OVERVIEW_FILE).is_file())
            gone = [link for path, link in self.unlisted.items() if _read(root, path) is None]
            new = without_entries(new, gone, page_types) if gone else new
            if new != current:
                write_atomic(index_path, new, root=root)
        if self.compiled:
            write_compiled(root, {**read_compiled(root), **compiled_from_json(self.compiled)})
        if self.mentions is not None:
            write_mentions(root, mentions_from_json(self.mentions))
        for name, planned in self.ledgers.items():
            if not state.is_ledger(name):
                left.append(f"{STATE_DIR}/{name}")
                continue
            target = state.state_path(root, name)
            current = _read(root, f"{STATE_DIR}/{name}")
            if current == (None if planned["text"] is None else _lf(planned["text"])):
                continue
            if _sha(current) != planned["before"]:
                left.append(f"{STATE_DIR}/{name}")
            elif planned["text"] is None:
                remove_file(target, root=root)
            else:
                write_atomic(target, planned["text"], root=root)
        if self.log_rows:
            log_path = root / LOG_FILE
            current = _read(root, LOG_FILE)
            after = set((current or "").split("\n")[self.log_lines :])
            missing = [r for r in self.log_rows if r not in after]
            if missing:
                write_atomic(log_path, appended(current, missing), root=root)
        return left

    def _confined(self, root: Path) -> None:
        """VaultError when a file `apply` reads and writes (the ledgers under .wikic/ aside) leads outside the
        vault through a symbolic link: another file's text is never merged into the vault's."""
        hubs = [INDEX_FILE] if self.index or OVERVIEW_FILE in self.pages else []
        for path in [*self.pages, *hubs, *([LOG_FILE] if self.log_rows else [])]:
            confined(root, root / path)

    def finish(self, root: Path) -> None:
        """Hand the palace and composing their to-dos, then drop the journal: everything else is written."""
        if self.palace:
            state.add_palace_todo(root, self.run, self.palace)
        if self.compose:
            state.add_compose_todo(root, self.run, self.compose)
        state.drop_journal(root)


def _foreign(data: dict[str, Any]) -> str | None:
    """Why the journal `data` is none this vault's writer could have left (a write no wikic run makes, an
    entry of another shape), or None when it could be."""
    pages = data.get("pages", {})
    if not isinstance(pages, dict):
        return "its pages are not a journal's"
    for path, planned in pages.items():
        if not is_note_path(path):
            return f"it would write {path}, which no wikic run writes"
        if not (isinstance(planned, dict) and isinstance(planned.get("text"), (str, type(None)))
                and isinstance(planned.get("before"), (str, type(None)))):
            return f"its entry for {path} is not a page's"
    unlisted = data.get("unlisted", {})
    if not (isinstance(unlisted, dict) and all(p in pages and isinstance(link, str) for p, link in unlisted.items())):
        return "its removed entries are not the index's"
    index = data.get("index", [])
    if not (_list_of(index, dict) and all(_list_of([e.get(k) for k in ("page_type", "link", "summary")], str)
                                          and _list_of(e.get("was", []), str) for e in index)):
        return "its index entries are not index.md's"
    compiled, mentions = data.get("compiled", {}), data.get("mentions")
    if not (isinstance(compiled, dict) and _list_of(list(compiled.values()), dict)
            and (mentions is None or isinstance(mentions, dict))):
        return "its ledgers are not compiled.json's and mentions.json's"
    ledgers = data.get("ledgers", {})
    if not (isinstance(ledgers, dict) and all(
            state.is_ledger(name) and isinstance(planned, dict)
            and isinstance(planned.get("text"), (str, type(None)))
            and isinstance(planned.get("before"), (str, type(None)))
            for name, planned in ledgers.items())):
        return "its ledgers are not wikic's"
    if not (_list_of(data.get("log_rows", []), str) and type(data.get("log_lines", 0)) is int):
        return "its log rows are not log.md's"
    if not (_list_of(palace := data.get("palace", []), str) and all(in_vault_tree(p) for p in palace)):
        return "it names files for the palace outside the vault's tree"
    if not (_list_of(compose := data.get("compose", []), str) and all(is_note_path(p) for p in compose)):
        return "it names pages to compose where wikic writes none"
    if not isinstance(data.get("run", ""), str):
        return "its run is not a journal's"
    return None


def _list_of(items: Any, kind: type) -> bool:
    return isinstance(items, list) and all(isinstance(i, kind) for i in items)


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
