"""How wikic writes a link to a page: by its bare name when no other note in the vault has that name, by
its path otherwise (both without `.md`). Such a link reaches its page from any folder (Obsidian resolves a
path from the vault root, and a bare name that only one note has wherever it is written), so a line keeps
its meaning wherever it is copied and never reads as an ambiguous link. A file that is no note keeps its
whole path: Obsidian needs a non-note's extension.

Ingest (page links, See also, index.md entries), query write-back (answers, "Asked about", index.md) and
`lint --fix` (retargeted links, index.md entries) all write links by this one rule.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Iterable

from wikic.vault.resolve import NOTE_EXT, fold_name


def _stem(path: str) -> str:
    return posixpath.basename(path)[: -len(NOTE_EXT)]


class LinkNames:
    """The note names of a vault, counted (case-folded, as Obsidian compares them)."""

    def __init__(self, files: Iterable[str] = ()) -> None:
        self._count: Counter[str] = Counter(fold_name(_stem(p)) for p in files if p.endswith(NOTE_EXT))

    def add(self, path: str) -> None:
        """Count a note about to be written: the name it takes is no longer free."""
        if path.endswith(NOTE_EXT):
            self._count[fold_name(_stem(path))] += 1

    def taken(self, name: str) -> bool:
        """Whether some note of the vault already has the name `name` (without `.md`)."""
        return self._count.get(fold_name(name), 0) > 0

    def link_text(self, path: str) -> str:
        """The shortest text of a link that reaches `path` (vault-relative) and nothing else."""
        if not path.endswith(NOTE_EXT):
            return path
        stem = _stem(path)
        return stem if self._count.get(fold_name(stem), 0) <= 1 else path[: -len(NOTE_EXT)]

    def copy(self) -> LinkNames:
        copied = LinkNames()
        copied._count = Counter(self._count)
        return copied
