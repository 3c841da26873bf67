"""The vault as the hubs see it: as it will be once a run's planned writes are made.

A run (an ingest, a saved answer, `lint --fix`) plans its pages in memory and hands them to the journal in
one piece; the hubs it writes in the same journal must describe the vault with those pages in it. So the
vault is read as it is on disk (through the parse cache) and the planned texts are laid over it: parsed,
listed among the files, their links resolved with the rest.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from wikic.pages.log_file import LogRow, read_rows
from wikic.vault.formats.compiled import CompiledEntry, read_compiled
from wikic.vault.formats.mentions import Mention, read_mentions
from wikic.vault.formats.sources import SourceEntry, read_sources
from wikic.vault.frontmatter import unwrap_link
from wikic.vault.layout import LOG_FILE, RAW_DIR
from wikic.vault.lead import page_lead, safe_line, shorten
from wikic.vault.link_text import LinkNames
from wikic.vault.load import FileInfo, Vault, load_vault
from wikic.vault.parse import parse_note
from wikic.vault.paths import read_text_inside
from wikic.vault.resolve import Resolver
from wikic.vault.schema_md import Schema

SOURCE_TYPE = "source"
TITLE = 120
_RAW = RAW_DIR + "/"


def listed_sources(frontmatter: Mapping[str, Any]) -> list[str]:
    """The raw files a page's frontmatter lists in `sources`."""
    listed = frontmatter.get("sources")
    if not isinstance(listed, list):
        return []
    return [unwrap_link(s) for s in listed if isinstance(s, str) and unwrap_link(s).startswith(_RAW)]


@dataclass
class HubView:
    root: Path
    schema: Schema
    vault: Vault
    planned: dict[str, str]
    compiled: dict[str, CompiledEntry]  # raw path -> compiled ledger entry, as after the run
    mentions: dict[str, Mention]  # the names waiting below a threshold, as after the run
    rows: list[LogRow]  # log.md's rows, the run's own included
    _texts: dict[str, str | None] = field(default_factory=dict)
    # page -> (its text, what the source pages read of that text): read once, whatever number of sources it cites
    read: dict[str, tuple[str, Any]] = field(default_factory=dict)

    @cached_property
    def resolver(self) -> Resolver:
        """Obsidian's resolution among every file (those only planned included): built on first use, once
        the files the hubs add are listed (`reserve`)."""
        return Resolver(self.vault.files)

    def reserve(self, path: str) -> None:
        """List `path` among the vault's files before its text is known (a hub about to be written), so
        links to it resolve."""
        self.vault.files.setdefault(path, FileInfo(path, 0, 0))
        for name in ("link_names", "resolver"):
            self.__dict__.pop(name, None)

    def put(self, path: str, text: str) -> None:
        """Lay a hub's planned text over the vault (its own links are not read: no hub's links count)."""
        self.planned[path] = text
        data = text.encode("utf-8", "surrogatepass")
        self.vault.files[path] = FileInfo(path, len(data), 0)
        self.vault.notes[path] = parse_note(path, data)
        for name in ("source_pages", "link_names"):
            self.__dict__.pop(name, None)

    # -- pages ----------------------------------------------------------------------------------------------
    @cached_property
    def subjects(self) -> list[str]:
        """The subject pages (every page but the hubs), in path order."""
        return self.vault.subject_pages

    @cached_property
    def subject_set(self) -> frozenset[str]:
        return frozenset(self.subjects)

    def kind(self, path: str) -> str:
        return self.vault.page_type(path) or "note"

    def frontmatter(self, path: str) -> dict[str, Any]:
        note = self.vault.notes.get(path)
        return (note.frontmatter or {}) if note is not None else {}

    def title(self, path: str) -> str:
        """The page's title on one line, at most TITLE characters (a hub lists many)."""
        title = self.frontmatter(path).get("title")
        if isinstance(title, str) and title.strip():
            return shorten(" ".join(title.split()), TITLE)
        return path.rsplit("/", 1)[-1][:-3]

    def tags(self, path: str) -> list[str]:
        tags = self.frontmatter(path).get("tags")
        if not isinstance(tags, list):
            return []
        return [t.strip().lstrip("#").lower() for t in tags if isinstance(t, str) and t.strip()]

    def sources_of(self, path: str) -> list[str]:
        return listed_sources(self.frontmatter(path))

    def text(self, path: str) -> str | None:
        """The page's text as the run leaves it (None: no such page, or unreadable); VaultError when it leads
        outside the vault (a hub is rewritten from what it holds, which must be the vault's own)."""
        if path in self.planned:
            return self.planned[path]
        if path not in self._texts:
            try:
                self._texts[path] = read_text_inside(self.root, self.root / path)
            except (OSError, UnicodeDecodeError):
                self._texts[path] = None
        return self._texts[path]

    def lead(self, path: str) -> str:
        text = self.text(path)
        return page_lead(text) if text is not None else ""

    @cached_property
    def link_names(self) -> LinkNames:
        return LinkNames(self.vault.files)

    def link(self, path: str, label: str | None = None) -> str:
        """A wikilink to `path`, by wikic's one rule for link text, with the page's title as its label."""
        text = self.link_names.link_text(path)
        shown = safe_line(" ".join((label if label is not None else self.title(path)).split()))
        shown = shown.replace("|", "/").replace("[", "(").replace("]", ")")
        return f"[[{text}|{shown}]]" if shown and shown != text else f"[[{text}]]"

    # -- links between subject pages ------------------------------------------------------------------------
    @cached_property
    def outbound(self) -> dict[str, frozenset[str]]:
        """subject page -> the other subject pages it links to (citations and links to hubs aside)."""
        subjects = self.subject_set
        resolve_all = self.resolver.resolve_all
        out: dict[str, frozenset[str]] = {}
        for page in self.subjects:
            note = self.vault.notes[page]
            # each name once, and no citation: what a page cites is a raw file, never a subject page
            names = sorted({lk.target for lk in note.links if lk.target and not lk.target.startswith(_RAW)})
            found = {r.path for r in resolve_all(page, names)} if names else set()
            out[page] = frozenset(t for t in found if t in subjects and t != page)
        return out

    @cached_property
    def inbound(self) -> Counter[str]:
        """subject page -> how many other subject pages link to it."""
        return Counter(t for targets in self.outbound.values() for t in targets)

    # -- sources ------------------------------------------------------------------------------------------
    @cached_property
    def source_pages(self) -> dict[str, str]:
        """raw path -> its source page (the first, in path order, whose `sources` names it)."""
        out: dict[str, str] = {}
        for page in self.vault.pages:
            if self.kind(page) == SOURCE_TYPE:
                for raw in self.sources_of(page)[:1]:
                    out.setdefault(raw, page)
        return out

    @cached_property
    def fed(self) -> dict[str, list[str]]:
        """raw path -> the subject pages built on it (their `sources` name it; filed answers aside)."""
        out: dict[str, list[str]] = {}
        for page in self.subjects:
            if self.kind(page) == "query":
                continue
            for raw in dict.fromkeys(self.sources_of(page)):
                out.setdefault(raw, []).append(page)
        return out

    @cached_property
    def ledger(self) -> dict[str, SourceEntry]:
        """The source ledger (sources.json): raw path -> its capture record."""
        return read_sources(self.root)

    def exists(self, path: str) -> bool:
        return path in self.vault.files


def build_view(
    root: Path,
    schema: Schema,
    *,
    planned: Mapping[str, str] | None = None,
    compiled: Mapping[str, CompiledEntry] | None = None,
    mentions: Mapping[str, Mention] | None = None,
    new_rows: Iterable[str] = (),
    vault: Vault | None = None,
    removed: Iterable[str] = (),
) -> HubView:
    """The vault at `root` once `planned` (path -> text) is written, the pages `removed` are gone, the compiled
    ledger holds `compiled` (raw path -> entry, over what it holds now), the mentions ledger is `mentions`
    (None: as it is) and log.md has `new_rows` appended. `vault`: the vault as it is on disk, when the caller
    has read it already (it is taken over: the planned texts are laid over it)."""
    root = Path(root)
    planned = dict(planned or {})
    vault = vault if vault is not None else load_vault(root, use_cache=True, schema=schema)
    for path in removed:
        vault.files.pop(path, None)
        vault.notes.pop(path, None)
    for path, text in planned.items():
        data = text.encode("utf-8", "surrogatepass")
        vault.files[path] = FileInfo(path, len(data), 0)
        if path.endswith(".md") and not path.startswith(RAW_DIR + "/") and path != LOG_FILE:
            vault.notes[path] = parse_note(path, data)
    entries = read_compiled(root)
    entries.update(compiled or {})
    waiting = dict(mentions) if mentions is not None else read_mentions(root)
    try:
        log_text = read_text_inside(root, root / LOG_FILE) or ""
    except (OSError, UnicodeDecodeError):
        log_text = ""
    rows = read_rows(log_text) + read_rows("\n".join(new_rows))
    return HubView(root, schema, vault, planned, entries, waiting, rows)
