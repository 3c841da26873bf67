"""The compiled ledger as ingest keeps it: what each source compiled to (`vault/formats/compiled.py`: its rows
and its file), so an unchanged source costs nothing the next time.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from wikic.vault.formats.compiled import CompiledEntry, read_compiled, write_compiled


class Compiled:
    """raw path -> what it compiled to (`CompiledEntry`)."""

    def __init__(self, root: Path, entries: dict[str, CompiledEntry] | None = None) -> None:
        self.root, self.entries = root, entries if entries is not None else {}

    @classmethod
    def load(cls, root: Path) -> Compiled:
        return cls(root, read_compiled(root))

    def is_current(self, raw_path: str, sha256: str) -> bool:
        entry = self.entries.get(raw_path)
        return entry is not None and entry.sha256 == sha256

    def record(self, raw_path: str, sha256: str, pages: list[str], date: str, *, strategy: str | None = None,
               dropped: Mapping[str, int] | None = None, repaired: int | None = None, sentences: int | None = None,
               nothing_extracted: bool | None = None, superseded: int | None = None, refused: int | None = None,
               rebuilt: bool | None = None, names_refused: Mapping[str, int] | None = None,
               aliases_refused: Mapping[str, int] | None = None) -> None:
        """The rest of what it takes is what `wikic status` counts about the compilation (claims dropped by
        reason, quotes repaired, whether nothing was extracted from a source that names things, the strategy
        used, the names and aliases refused by reason), or that the entry was rebuilt from the pages."""
        self.entries[raw_path] = CompiledEntry(
            sha256, tuple(sorted(set(pages))), date, strategy, _copy(dropped), repaired, sentences, nothing_extracted,
            superseded, refused, rebuilt, _copy(names_refused), _copy(aliases_refused),
        )

    def save(self) -> None:
        write_compiled(self.root, self.entries)


def _copy(by_reason: Mapping[str, int] | None) -> dict[str, int] | None:
    return dict(by_reason) if by_reason is not None else None
