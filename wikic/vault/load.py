"""Read a vault from disk: every file's path, and every page parsed, with a cache for unchanged files.

Nothing here writes into the vault except the cache under `.wikic/`, and only when asked.
"""

from __future__ import annotations

import os
import posixpath
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from wikic.vault import parse_cache
from wikic.vault.layout import HUB_TYPES, INDEX_FILE, LOG_FILE, OVERVIEW_FILE, RAW_DIR, SCHEMA_FILE
from wikic.vault.model import Note, Problem
from wikic.vault.parse_cache import CachedNote
from wikic.vault.resolve import Resolver
from wikic.vault.schema_md import Schema


class FileInfo(NamedTuple):  # a tuple: made for every file of the vault on every run, cheaply
    path: str  # vault-relative, '/'-separated
    size: int
    mtime_ns: int


@dataclass
class Vault:
    root: Path
    schema: Schema
    files: dict[str, FileInfo]  # every file in the vault except tool state, dot-folders and unsafe links
    notes: dict[str, Note]  # every parsed .md note: wiki pages, index.md and the notes around them (see `linted_note`)
    problems: list[tuple[str, Problem]] = field(default_factory=list)  # (path, problem) found while walking
    resolver: Resolver | None = None  # built from `files` when asked to resolve while parsing
    resolved: dict[str, Resolved] = field(default_factory=dict)  # path -> its links' resolutions, where done
    # path -> what the caller's `per_note` made of the note, for the notes parsed in this load (not the cached)
    per_note: dict[str, Any] = field(default_factory=dict)

    def page_type(self, path: str) -> str | None:
        """The page type of a wiki page (by its top folder), or None when `path` is not a wiki page."""
        if not path.endswith(".md"):
            return None
        if not self.schema.present:
            return "note"
        top, sep, _ = path.partition("/")
        if not sep:
            return None
        folders = self.__dict__.get("_folder_types")
        if folders is None:  # asked ~10 times per link on a big vault: build the map once
            folders = self.__dict__["_folder_types"] = self.schema.folder_types()
        return folders.get(top)

    def is_page(self, path: str) -> bool:
        return self.page_type(path) is not None

    def is_hub(self, path: str) -> bool:
        """index.md, overview.md and the pages of a hub type (sources/): written by code to lead into the
        wiki. Only a wikic vault has hubs."""
        if not self.schema.present:
            return False
        return path in (INDEX_FILE, OVERVIEW_FILE) or self.page_type(path) in HUB_TYPES

    def is_plain_note(self, path: str) -> bool:
        """A note of a wikic vault outside the page folders (a person's own note, inbox/): linted for its
        links like a note of any Obsidian vault, never held to the schema."""
        return (self.schema.present and path in self.notes and path not in (INDEX_FILE, OVERVIEW_FILE)
                and not self.is_page(path))

    @property
    def pages(self) -> list[str]:
        return sorted(p for p in self.notes if self.is_page(p))

    @property
    def subject_pages(self) -> list[str]:
        """The wiki pages about a subject: every page but the hubs (in a plain vault, every note)."""
        return [p for p in self.pages if self.is_subject(p)]

    def is_subject(self, path: str) -> bool:
        """Whether the page at `path` is about a subject: a page, not a hub (`is_page` and not `is_hub`)."""
        kind = self.page_type(path)
        return kind is not None and not (self.schema.present and (path in (INDEX_FILE, OVERVIEW_FILE)
                                                                  or kind in HUB_TYPES))

    def listed(self, page_type: str | None = None, tag: str | None = None) -> list[tuple[str, str, str]]:
        """The pages of `page_type` that carry `tag` (None: any), in path order: each page's path, its title
        (its file name when it has none) and its summary ("" when it has none)."""
        wanted_tag = tag.lstrip("#").lower() if tag else None
        out: list[tuple[str, str, str]] = []
        for path in self.pages:
            fm = self.notes[path].frontmatter or {}
            if page_type and self.page_type(path) != page_type:
                continue
            tags = fm.get("tags")
            if wanted_tag and wanted_tag not in ([str(t).lstrip("#").lower() for t in tags] if isinstance(tags, list)
                                                 else []):
                continue
            title, summary = fm.get("title"), fm.get("summary")
            out.append((path, title if isinstance(title, str) else posixpath.basename(path)[:-3],
                        summary if isinstance(summary, str) else ""))
        return out


def irregular_kind(mode: int) -> str | None:
    """What a file of mode `mode` (its `st_mode`, symlinks followed) is when it is not a regular file, or
    None for a regular one. A named pipe blocks whoever opens it until something writes into it, and a
    device or socket has no content to read: every reader of the vault skips them."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def not_a_regular_file(path: str | os.PathLike[str]) -> str | None:
    """`irregular_kind` of the file at `path`, found without opening it; None when it is a regular file or
    cannot be looked at (whoever reads it then reports why)."""
    try:
        return irregular_kind(os.stat(path).st_mode)
    except OSError:
        return None


def walk(root: Path) -> tuple[dict[str, FileInfo], list[tuple[str, Problem]]]:
    """Every regular file under `root`; dot-folders are skipped (Obsidian ignores them), symlinks are not
    followed out of the vault, and a named pipe, socket or device is left out (reported, never opened)."""
    files: dict[str, FileInfo] = {}
    problems: list[tuple[str, Problem]] = []
    real_root = os.path.realpath(root)
    stack = [("", os.fspath(root))]
    while stack:
        rel_dir, abs_dir = stack.pop()
        try:
            entries = list(os.scandir(abs_dir))
        except OSError as exc:
            problems.append((rel_dir or ".", Problem("unsafe-path", None, f"cannot read folder: {exc.strerror}")))
            continue
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            rel = f"{rel_dir}/{name}" if rel_dir else name
            try:
                if entry.is_symlink():
                    target = os.path.realpath(entry.path)
                    if os.path.commonpath([real_root, target]) != real_root:
                        problems.append(
                            (rel, Problem("unsafe-path", None, "symbolic link points outside the vault: not read"))
                        )
                        continue
                    if os.path.isdir(target):
                        continue  # a folder link inside the vault would list files twice
                if entry.is_dir(follow_symlinks=False):
                    stack.append((rel, entry.path))
                    continue
                st = entry.stat()
            except OSError as exc:
                problems.append((rel, Problem("unsafe-path", None, f"cannot read: {exc.strerror}")))
                continue
            if not stat.S_ISREG(st.st_mode):
                kind = irregular_kind(st.st_mode)
                problems.append((rel, Problem("unsafe-path", None, f"{kind}, not a file: not read")))
                continue
            files[rel] = FileInfo(rel, st.st_size, st.st_mtime_ns)
    return files, problems


def linted_note(path: str, schema: Schema) -> bool:
    """The notes whose links are linted. In a plain vault every note; in a wikic vault every note but the
    sources in raw/ and the special files log.md (history) and SCHEMA.md (the schema's prose)."""
    if not path.endswith(".md"):
        return False
    if not schema.present:
        return True
    return path not in (LOG_FILE, SCHEMA_FILE) and not path.startswith(RAW_DIR + "/")


# What the caller of `load_vault` works out from each note it has parsed, in the process that parsed it (with
# the note's bytes at hand): None, or the result to keep by path in `Vault.per_note`.
PerNote = Callable[[str, bytes, Note], Any]
_PER_NOTE: PerNote | None = None  # set while parsing when the caller asked for it


def _read_and_parse(root: str, paths: list[str]) -> tuple[list[Note], dict[str, Any]]:
    # imported here: `walk` alone (a cached lint) should not pay for the parser and YAML
    from wikic.vault.parse import parse_note

    out = []
    extra: dict[str, Any] = {}
    for path in paths:
        try:
            with open(os.path.join(root, path), "rb") as fh:
                data = fh.read()
        except OSError as exc:
            from wikic.vault.model import empty_note

            out.append(empty_note(path, [Problem("unsafe-path", None, f"cannot read: {exc.strerror}")]))
            continue
        note = parse_note(path, data)
        out.append(note)
        if _PER_NOTE is not None:
            made = _PER_NOTE(path, data, note)
            if made is not None:
                extra[path] = made
    return out, extra


Resolved = list[tuple[str | None, tuple[str, ...]]]  # each link of a note: where it lands, and the candidates

_RESOLVER: Resolver | None = None  # set while parsing for lint: links are resolved where they are parsed


def _resolve(notes: list[Note]) -> list[Resolved] | None:
    if _RESOLVER is None:
        return None
    resolve_all = _RESOLVER.resolve_all
    return [[(r.path, r.candidates) for r in resolve_all(n.path, [lk.target for lk in n.links])] for n in notes]


def _parse_here(
    root: str, stamps: list[tuple[str, int, int]], encode: bool
) -> tuple[list[CachedNote], list[Resolved] | None, dict[str, Any]]:
    """Parse in this process: each note with its cache line when `encode`, its links resolved when asked, and
    what `_PER_NOTE` made of it."""
    notes, extra = _read_and_parse(root, [path for path, _, _ in stamps])
    entries = [
        CachedNote(size, mtime, note, (parse_cache.encode(note, size, mtime) or b"") if encode else b"")
        for note, (_, size, mtime) in zip(notes, stamps, strict=True)
    ]
    return entries, _resolve(notes), extra


def _parse_encoded(
    root: str, stamps: list[tuple[str, int, int]]
) -> tuple[list[bytes | Note], list[Resolved] | None, dict[str, Any]]:
    """In a parsing process: each note as its cache row, which is also how it travels back (cheaper than
    pickling the tuples); a note JSON cannot carry comes back as itself."""
    entries, resolved, extra = _parse_here(root, stamps, encode=True)
    return [entry.line or entry.note for entry in entries], resolved, extra


def fork_is_safe() -> bool:
    """Whether forking a helper process is safe: only while this process runs one thread. A fork copies
    the locks other threads hold (a model call's connection pool, say) and never releases them; an ingest
    reads page names while its model calls run, and the MCP server lints from worker threads."""
    import threading

    return threading.active_count() == 1


def _parse_many(
    root: Path, files: dict[str, FileInfo], paths: list[str], jobs: int, encode: bool
) -> tuple[list[CachedNote], dict[str, Resolved], dict[str, Any]]:
    """Every path parsed, with its cache line when `encode` ("" when the note cannot be cached), its links
    resolved by path when `_RESOLVER` is set, and what `_PER_NOTE` made of each note, by path."""
    stamps = [(p, files[p].size, files[p].mtime_ns) for p in paths]
    if jobs <= 1 or len(paths) < 400 or not fork_is_safe():
        entries, resolved, extra = _parse_here(os.fspath(root), stamps, encode)
        return entries, dict(zip(paths, resolved, strict=True)) if resolved is not None else {}, extra
    # Parsing is pure CPU: forked processes take all but one share and this process parses that one meanwhile
    # (rather than waiting). Shares interleave so that each costs about the same.
    import multiprocessing as mp

    from wikic.vault.parse.reference import markdown

    # Built before the fork, which copies it: each process would otherwise import markdown-it (0.1 s) for the
    # first page that needs it, and a vault big enough to fork has such pages; the same for the cache's codec.
    markdown()
    parse_cache.choose_codec()
    ctx = mp.get_context("fork")
    shares = [stamps[i::jobs] for i in range(jobs)]
    with ctx.Pool(jobs - 1) as pool:
        pending = pool.starmap_async(_parse_encoded, [(os.fspath(root), share) for share in shares[1:]])
        out, mine, extra = _parse_here(os.fspath(root), shares[0], encode)
        results = pending.get()
    by_path: dict[str, Resolved] = {}
    if mine is not None:
        by_path.update(zip((p for p, _, _ in shares[0]), mine, strict=True))
    for share, (result, theirs, their_extra) in zip(shares[1:], results, strict=True):
        extra.update(their_extra)
        lines = [item for item in result if isinstance(item, bytes)]
        decoded = iter(parse_cache.decode(lines))
        for (_, size, mtime), item in zip(share, result, strict=True):
            out.append(next(decoded) if isinstance(item, bytes) else CachedNote(size, mtime, item, b""))
        if theirs is not None:
            by_path.update(zip((p for p, _, _ in share), theirs, strict=True))
    return out, by_path, extra


def load_vault(
    root: Path,
    *,
    use_cache: bool = False,
    jobs: int | None = None,
    resolve: bool = False,
    walked: tuple[dict[str, FileInfo], list[tuple[str, Problem]]] | None = None,
    schema: Schema,
    per_note: PerNote | None = None,
    refresh_cache: bool = True,
) -> Vault:
    """Walk and parse a vault. With `use_cache`, unchanged files (same size and mtime) are not re-parsed and
    the cache under `.wikic/cache/` is refreshed (not with `refresh_cache=False`: a look that writes nothing,
    as after a write whose every step is counted). With `resolve`, the links of every note parsed are also
    resolved where it is parsed (a share of the link graph's work done on the second core). `walked`: the
    vault's listing when the caller has just made it (`walk`); `schema`: its SCHEMA.md, as the caller's context
    read it.
    With `use_cache` and `resolve`, the links of the notes not parsed come from the cache of resolutions while
    the vault holds the same files (`resolved_cache.py`). `per_note`: what to run on each note parsed (its path,
    bytes and note) where it is parsed; its results, by path, are the vault's `per_note` (a result must pickle:
    it may come from another process)."""
    global _RESOLVER, _PER_NOTE
    root = Path(root)
    files, problems = walked if walked is not None else walk(root)
    wanted = sorted(p for p in files if linted_note(p, schema))
    cached = parse_cache.load(root) if use_cache else {}
    entries: dict[str, CachedNote] = {}
    todo: list[str] = []
    for path in wanted:
        info = files[path]
        hit = cached.get(path)
        if hit is not None and hit.size == info.size and hit.mtime_ns == info.mtime_ns:
            entries[path] = hit
        else:
            todo.append(path)
    resolver = Resolver(files) if resolve else None
    resolved: dict[str, Resolved] = {}
    extra: dict[str, Any] = {}
    if todo:
        if jobs is None:
            jobs = min(2, os.cpu_count() or 1)
        _RESOLVER = resolver
        _PER_NOTE = per_note
        try:
            parsed, resolved, extra = _parse_many(root, files, todo, jobs, encode=use_cache)
        finally:
            _RESOLVER = _PER_NOTE = None
        for entry in parsed:
            entries[entry.note.path] = entry
        if use_cache and refresh_cache:
            parse_cache.save(root, [entries[p].line for p in wanted if entries[p].line])
    notes = {path: entries[path].note for path in wanted}
    if use_cache and resolver is not None and len(todo) < len(wanted):
        # not on a run that parsed everything (cold): its cache would cost it time, and the next run that parses
        # less makes it while it resolves the notes that run did not parse
        from wikic.vault import resolved_cache

        resolved_cache.complete(root, files, notes, resolved, resolver)
    return Vault(root=root, schema=schema, files=files, notes=notes, problems=problems, resolver=resolver,
                 resolved=resolved, per_note=extra)
