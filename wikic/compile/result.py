"""What compiling one source did: the pages it created and updated, and what it left out, kept or refused."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Removed:
    """A page a compile removes: named by a word that is no subject (`repair.py`)."""

    path: str
    title: str
    reason: str  # why the name is no subject (`wikic/text/name_use.py`)


@dataclass
class SourceResult:
    """One source's compile, as its report shows it."""

    raw_path: str
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)  # names waiting below a threshold
    dropped_facts: int = 0  # claims whose quote was not found in the source
    dropped_items: list[str] = field(default_factory=list)
    kept_edits: list[str] = field(default_factory=list)  # "path: block" left alone (a person edited it)
    linked: list[str] = field(default_factory=list)  # in `updated` for a See also to a new page only
    memories: int = 0  # memories written on pages as new items
    memories_merged: int = 0  # memories that matched an item already there (its anchor added)
    rejected: list[str] = field(default_factory=list)  # a proposed pairing or interval refused, with the reason
    superseded: int = 0  # claims that moved to a page's history (a later value holds now)
    contested: list[str] = field(default_factory=list)  # pages whose current claims contradict each other
    aliases_refused: list[tuple[str, str]] = field(default_factory=list)  # (name, alias another page holds)
    removed: list[Removed] = field(default_factory=list)  # pages named by a word now refused, nothing left on

    @property
    def compiled_pages(self) -> list[str]:
        """The pages this source wrote what it says into (each cites it)."""
        return [p for p in [*self.created, *self.updated] if p not in self.linked]
