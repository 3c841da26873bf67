"""Everything a rule may look at, computed once per lint run."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikic.errors import VaultError
from wikic.lint.finding import Finding, finding
from wikic.vault.formats.sources import SourceEntry
from wikic.vault.frontmatter import split_page
from wikic.vault.graph import Edge, LinkGraph
from wikic.vault.link_text import LinkNames
from wikic.vault.load import Vault
from wikic.vault.model import Note, Problem
from wikic.vault.parse import parse_note
from wikic.vault.paths import read_inside, read_text_inside
from wikic.vault.resolve import fold_name
from wikic.vault.schema_md import Schema

if TYPE_CHECKING:
    from wikic.text.name_use import NameUse


@dataclass
class LintContext:
    vault: Vault
    links: LinkGraph
    today: dt.date
    ledger: dict[str, SourceEntry] = field(default_factory=dict)  # raw path -> capture record
    cached: bool = False  # the run keeps its caches under `.wikic/cache/` (rules may keep theirs there too)
    kept: dict[str, str] = field(default_factory=dict)  # rule id -> the digest of the findings it kept this run
    _extra_notes: dict[str, Note | None] = field(default_factory=dict)

    @property
    def schema(self) -> Schema:
        return self.vault.schema

    @cached_property
    def pages(self) -> list[str]:
        return self.vault.pages

    @cached_property
    def subject_pages(self) -> list[str]:
        """The pages about a subject: every page but the hubs (the source pages; index.md and overview.md
        are no pages). Links from a hub say nothing about how well the wiki links a subject."""
        return self.vault.subject_pages

    @cached_property
    def subject_count(self) -> int:
        """How many subject pages there are (`subject_pages`, counted without listing them in order)."""
        listed = self.__dict__.get("subject_pages")
        if listed is not None:
            return len(listed)
        vault = self.vault
        return sum(1 for path in vault.notes if vault.is_subject(path))

    def is_subject(self, path: str) -> bool:
        """Whether `path` is one of `subject_pages`."""
        return path in self.vault.notes and self.vault.is_subject(path)

    def is_page(self, path: str) -> bool:
        return self.vault.is_page(path)

    def is_hub(self, path: str) -> bool:
        return self.vault.is_hub(path)

    def note(self, path: str) -> Note | None:
        """The parsed note at `path`; notes outside the page folders are parsed on first use."""
        note = self.vault.notes.get(path)
        if note is not None or not path.endswith(".md"):
            return note
        if path not in self._extra_notes:
            try:
                data = read_inside(self.vault.root, self.vault.root / path)
            except (OSError, VaultError):  # VaultError: a name leading out of the vault is never read
                data = None
            self._extra_notes[path] = parse_note(path, data) if data is not None else None
        return self._extra_notes[path]

    def read_outside(self) -> list[str]:
        """The files this run read that the vault's listing does not hold (a note in a dot-folder a page cites,
        one that does not exist): a change to them is seen by no stamp of the listing."""
        raw = self.__dict__.get("raw_texts")
        read = [*self._extra_notes, *(raw.read if raw is not None else ())]
        return sorted({path for path in read if path not in self.vault.files})

    def edges_from(self, path: str) -> list[Edge]:
        return self.links.by_source.get(path, [])

    # a rule's finding (`wikic.lint.finding.finding`), as `ctx.finding(...)`
    finding = staticmethod(finding)

    def problems(self, rule: str) -> Iterator[Finding]:
        """Problems the parser or the walk found that belong to `rule`."""
        for path, problem in self.vault.problems:
            if problem.rule == rule:
                yield self._problem(path, problem)
        for path, note in self.vault.notes.items():
            for problem in note.problems:
                if problem.rule == rule:
                    yield self._problem(path, problem)

    def problems_at(self, rule: str, path: str) -> Iterator[Finding]:
        """`problems`, those of one file."""
        for at, problem in self.vault.problems:
            if at == path and problem.rule == rule:
                yield self._problem(path, problem)
        note = self.vault.notes.get(path)
        for problem in note.problems if note is not None else ():
            if problem.rule == rule:
                yield self._problem(path, problem)

    def _problem(self, path: str, problem: Problem) -> Finding:
        return self.finding(
            problem.rule, path, problem.line, problem.message, column=problem.column if problem.line else None
        )

    @cached_property
    def names(self) -> dict[str, list[str]]:
        """fold_name(title or alias) -> subject pages carrying it: for "did you mean" and duplicate detection (a
        source page carries its source's title, which may well be a subject's)."""
        out: dict[str, list[str]] = {}
        for path in self.subject_pages:
            for name in page_names(self.vault.notes[path]):
                out.setdefault(name, []).append(path)
        return out

    @cached_property
    def raw_texts(self) -> RawTexts:
        """The text of raw sources, each read once a run (the name rules read what a page cites)."""
        return RawTexts(self.vault.root)

    @cached_property
    def link_names(self) -> LinkNames:
        """How a repair writes a link to a page (wikic's one rule: the bare name when no other note has it)."""
        return LinkNames(self.vault.files)


def page_names(note: Note) -> list[str]:
    """The names a page carries (`LintContext.names`): its title and aliases, folded, in their order."""
    fm = note.frontmatter or {}
    labels: list[Any] = [fm.get("title")]
    aliases = fm.get("aliases")
    if isinstance(aliases, list):
        labels.extend(aliases)
    elif isinstance(aliases, str):
        labels.append(aliases)
    return [fold_name(label.strip()) for label in labels if isinstance(label, str) and label.strip()]


class RawTexts:
    """Raw sources' text, read on first use through the vault's one reader (None: unreadable, or not text), and
    how each uses its words as names."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._texts: dict[str, str | None] = {}
        self._uses: dict[str, NameUse | None] = {}

    def text(self, raw_path: str) -> str | None:
        if raw_path not in self._texts:
            try:
                self._texts[raw_path] = read_text_inside(self._root, self._root / raw_path)
            except (OSError, UnicodeDecodeError, VaultError):
                self._texts[raw_path] = None
        return self._texts[raw_path]

    @property
    def read(self) -> list[str]:
        """The raw paths asked for so far."""
        return list(self._texts)

    def names(self, raw_path: str) -> NameUse | None:
        """How the source uses its words as names (`wikic/text/name_use.py`)."""
        from wikic.text.name_use import NameUse  # here: most lint runs never ask, and it imports the stemmer

        if raw_path not in self._uses:
            text = self.text(raw_path)
            # titled as it titles itself, with the other names its frontmatter gives it (`unsourced-alias`)
            self._uses[raw_path] = NameUse.of_source(text, *split_page(text), raw_path) if text is not None else None
        return self._uses[raw_path]
