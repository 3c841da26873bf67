"""A vault's notes read on demand, for a reader of a few of them in a big vault: each from the parse cache while
its file is unchanged (its row found without decoding the others), else parsed."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

from wikic.vault import parse_cache
from wikic.vault.load import FileInfo, linted_note
from wikic.vault.model import Note, Problem
from wikic.vault.schema_md import Schema


class NotRead(Exception):
    """More of the vault was asked for than its notes one by one: every note at once."""


class NotesOnDemand(Mapping[str, Note]):
    """The vault's notes by path (those `load_vault` gives), each read when first asked for: from the parse cache
    while its file is unchanged, else parsed (always, for a path of `fresh`). Its paths are all there is to list
    of them: whoever asks for every note is told `NotRead`."""

    def __init__(self, root: Path, files: dict[str, FileInfo], schema: Schema, fresh: Iterable[str] = ()) -> None:
        self._root = root
        self._files = files
        self._schema = schema
        self._fresh = frozenset(fresh)
        self._rows: parse_cache.RowsByPath | bool | None = None  # False: no cache of this version
        self._read: dict[str, Note] = {}

    def __getitem__(self, path: str) -> Note:
        note = self._read.get(path)
        if note is None:
            if path not in self:
                raise KeyError(path)
            note = self._read[path] = self._load(path)
        return note

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and path in self._files and linted_note(path, self._schema)

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    @cached_property
    def _paths(self) -> list[str]:
        """Every note's path, in order: listed only for a reader of them all (most ask for a few by path)."""
        return sorted(p for p in self._files if linted_note(p, self._schema))

    def values(self) -> Any:
        raise NotRead("every note")

    def items(self) -> Any:
        raise NotRead("every note")

    def _load(self, path: str) -> Note:
        from wikic.vault.parse import parse_note

        info = self._files[path]
        line = None if path in self._fresh else self._row(path)
        if line is not None:
            try:
                entry = parse_cache.decode([line])[0]
            except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
                entry = None
            if entry is not None and (entry.size, entry.mtime_ns) == (info.size, info.mtime_ns):
                return entry.note
        try:
            with open(self._root / path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            from wikic.vault.model import empty_note

            return empty_note(path, [Problem("unsafe-path", None, f"cannot read: {exc.strerror}")])
        return parse_note(path, data)

    def _row(self, path: str) -> bytes | None:
        if self._rows is None:
            self._rows = parse_cache.rows_by_path(self._root) or False
        return self._rows.get(path) if isinstance(self._rows, parse_cache.RowsByPath) else None
