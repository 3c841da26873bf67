"""Every memory item on the wiki's pages, read through a derived index (`.wikic/cache/memories.json`).

The index holds, per page, its size and mtime, its title and its memory items; a page whose size or mtime
changed is read again, a page that is gone is dropped, so the index is always what the pages say and can be
deleted at any time. A warm read of a 10,000-page vault is one listing of the folders and one JSON file.

Asked for (`waiting=True`: the briefing, recall), the memories whose subject has no page yet come too: a
subject waits in the mentions ledger below SCHEMA.md's `entity_min_references` with what each source said of
it, memories included. The user's own page waits like any subject, and what they told the assistant in their
first session ("From now on use uv, never pip.") belongs in the next session's briefing all the same. Such a
memory is anchored like any other; it is shown with a link to the source that said it, which is a note of
the vault, until its page exists. The index keeps them while the ledger's size and mtime are the same.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import posixpath
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from wikic.context import VaultContext
from wikic.memory.identity import Identity, read_identity
from wikic.vault.formats.markers import BEGIN, begin_prefix, end_line
from wikic.vault.formats.memory_items import BLOCK_PREFIX, MemoryItem, kind_of_block, parse_items
from wikic.vault.formats.mentions import read_mentions, waiting_memories
from wikic.vault.frontmatter import split_page
from wikic.vault.link_text import LinkNames
from wikic.vault.load import walk
from wikic.vault.state import MEMORY_INDEX, MENTIONS, read_cache_json, state_path, write_cache

_VERSION = 2
_BLOCK = begin_prefix(BLOCK_PREFIX).rstrip()  # "<!-- wikic:begin memory:"


@dataclass(frozen=True)
class PageMemory:
    """One memory item and the page it is on."""

    path: str
    title: str
    link: str  # the text of a [[link]] that reaches the page
    index: int  # its place among the page's items (pages are read top to bottom)
    item: MemoryItem
    waiting: bool = False  # its subject (`title`) has no page yet: `path` is the raw source that said it


@dataclass(frozen=True)
class Memories:
    items: list[PageMemory]
    identity: Identity
    user_page: str | None  # the user's own page, when it exists
    user_link: str | None  # the text of a [[link]] to it

    def about_user(self, m: PageMemory) -> bool:
        """`m` is on the user's own page, or waits for it."""
        return m.path == self.user_page if not m.waiting else self.identity.is_user(m.title)


def load_memories(context: VaultContext, *, waiting: bool = False) -> Memories:
    """Every memory item of the vault, in page order, with who the user is and their page; and (`waiting`)
    after them the memories whose subject has no page yet, by subject and source."""
    root = Path(context.root)
    files, _ = walk(root)
    folders = context.schema.folder_types()
    pages = {p: info for p, info in files.items() if p.endswith(".md") and "/" in p and p.split("/", 1)[0] in folders}
    cached = _read_index(root)
    known: dict[str, Any] = cached.get("pages", {})
    fresh: dict[str, Any] = {}
    changed = len(known) != len(pages)
    for path, info in pages.items():
        entry = known.get(path)
        # a page without memories is kept as [size, mtime]; one with them as a dict (title, items)
        size, mtime = (entry.get("size"), entry.get("mtime")) if isinstance(entry, dict) else (entry or (None, None))
        if size != info.size or mtime != info.mtime_ns:
            entry = _read_page(root, path, info.size, info.mtime_ns)
            changed = True
        fresh[path] = entry
    # the link text of a page depends on every note's name: kept while the vault's notes are the same
    notes = hashlib.sha1(
        "\n".join(sorted(p for p in files if p.endswith(".md"))).encode("utf-8", "surrogatepass")
    ).hexdigest()
    remembered = {p: e for p, e in fresh.items() if isinstance(e, dict)}
    ledger = _ledger_stamp(root)
    kept = cached.get("waiting")
    if cached.get("ledger") == ledger and _well_formed(kept):
        pending: list[dict[str, Any]] = kept
    else:
        pending = _waiting(root)
        changed = True
    linked = set(remembered) | {str(w["raw"]) for w in pending if w["raw"] in files}
    link_texts = cached.get("links") if cached.get("notes") == notes else None
    if not isinstance(link_texts, dict) or set(link_texts) != linked:
        names = LinkNames(files)
        link_texts = {p: names.link_text(p) for p in linked}
        changed = True
    if changed:
        index = {"version": _VERSION, "pages": fresh, "notes": notes, "links": link_texts, "ledger": ledger,
                 "waiting": pending}
        write_cache(root, MEMORY_INDEX, json.dumps(index, ensure_ascii=False, separators=(",", ":")))
    identity = read_identity(root)
    user_names = {n.casefold() for n in (identity.title, *identity.aliases) if n}
    items: list[PageMemory] = []
    user_page = None
    for path in sorted(remembered):
        entry = remembered[path]
        title = entry.get("title") or posixpath.basename(path)[:-3]
        if user_page is None and title.casefold() in user_names:
            user_page = path
        for n, raw in enumerate(entry.get("items") or []):
            item = _item(raw)
            if item is not None:
                items.append(PageMemory(path, title, link_texts[path], n, item))
    if waiting:
        for w in pending:
            item = _item(w.get("item"))
            if item is not None and w["raw"] in link_texts:  # a source since removed from raw/ is no note
                items.append(PageMemory(w["raw"], w["subject"], link_texts[w["raw"]], w["n"], item, waiting=True))
    return Memories(items, identity, user_page, link_texts.get(user_page) if user_page else None)


def _ledger_stamp(root: Path) -> list[int] | None:
    try:
        info = state_path(root, MENTIONS).stat()
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns]


def _well_formed(pending: Any) -> TypeGuard[list[dict[str, Any]]]:
    """The index's waiting memories are as `_waiting` writes them (a cache is rebuilt, never trusted)."""
    return isinstance(pending, list) and all(
        isinstance(w, dict) and isinstance(w.get("subject"), str) and isinstance(w.get("raw"), str)
        and isinstance(w.get("n"), int) for w in pending)


def _waiting(root: Path) -> list[dict[str, Any]]:
    """The memories of the subjects waiting in the mentions ledger: subject, raw source, place, item; by
    subject, then source. A row of another shape is left out (the ledger is wikic's)."""
    out: list[dict[str, Any]] = []
    for subject, raw, rows in waiting_memories(read_mentions(root)):
        for n, row in enumerate(rows):
            item = MemoryItem(row.kind, row.date, row.text, (row.anchor,), float(row.importance))
            out.append({"subject": subject, "raw": raw, "n": n, "item": _raw(item)})
    return out


def _read_index(root: Path) -> dict[str, Any]:
    data = read_cache_json(root, MEMORY_INDEX)
    if data is None or data.get("version") != _VERSION or not isinstance(data.get("pages"), dict):
        return {}
    return data


def _read_page(root: Path, path: str, size: int, mtime: int) -> Any:
    """The index entry of a page: [size, mtime] when it holds no memory, else its title and items too."""
    try:
        text = (root / path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return [size, mtime]
    if _BLOCK not in text:
        return [size, mtime]
    data, body = split_page(text)
    title = (data or {}).get("title")
    items = [_raw(item) for kind, block in _memory_blocks(body) for item in parse_items(block, kind)]
    if not items:
        return [size, mtime]
    return {"size": size, "mtime": mtime, "title": title if isinstance(title, str) else "", "items": items}


def _memory_blocks(body: str) -> list[tuple[str, str]]:
    """(kind, body) of every memory block of a page, in page order."""
    out = []
    for m in BEGIN.finditer(body):
        kind = kind_of_block(m.group(1))
        if kind is None:
            continue
        close = body.find(end_line(m.group(1)), m.end())
        if close >= 0:
            out.append((kind, body[m.end() + 1 : close]))
    return out


def _raw(item: MemoryItem) -> dict[str, Any]:
    return {"kind": item.kind, "date": item.date.isoformat(), "text": item.text, "anchors": list(item.anchors),
            "importance": item.importance, "confirmed": item.confirmed,
            "last": item.last.isoformat() if item.last else None}


def _item(raw: Any) -> MemoryItem | None:
    try:
        return MemoryItem(raw["kind"], dt.date.fromisoformat(raw["date"]), raw["text"], tuple(raw["anchors"]),
                          float(raw["importance"]), int(raw["confirmed"]),
                          dt.date.fromisoformat(raw["last"]) if raw.get("last") else None)
    except (KeyError, TypeError, ValueError):
        return None
