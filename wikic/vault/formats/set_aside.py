"""The set-aside ledger's rows (`.wikic/set-aside.json`): the files in raw/ that ingest refused (empty, binary, a
zip bomb, a named pipe...), typed, read from and written to the file's JSON in this one place.

    "files": {"raw/articles/x.bin": {"size": 12, "mtime_ns": 1764000000000000000, "sha256": "...",
                                     "reason": "raw/articles/x.bin: not text", "since": "2026-01-02"}}

`sha256` is null for what is never read (a named pipe, a device). A file set aside is reported once, then left
alone until it changes. Ingest alone records and forgets them (`wikic/ingest/pending.set_aside`, under
`state.set_aside_lock`); what is set aside now (`SetAside`) is read there, by the conversations' intake (an
export refused is not opened again) and by `wikic status`. An entry that is no JSON object is left out as the
file is read; a key this version does not know, or one of another type, is kept as it was read and written back
unchanged.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from wikic.vault.formats.fields import is_int, is_str, split_known
from wikic.vault.formats.sources import read_sources
from wikic.vault.state import SET_ASIDE, read_ledger, write_ledger

LEDGER_KEY = "files"  # the map the file holds, beside its version


@dataclass(frozen=True, slots=True)
class SetAsideEntry:
    """A raw file ingest refused: what tells it apart from a changed file (its size, modification time and
    sha256), why it was refused and the day (None: the entry does not say)."""

    size: int | None = None
    mtime_ns: int | None = None
    sha256: str | None = None  # None: never read (not a regular file)
    reason: str | None = None
    since: str | None = None
    others: Mapping[str, Any] = field(default_factory=dict)  # keys not read above, as the file has them

    @classmethod
    def from_json(cls, value: Any) -> SetAsideEntry | None:
        if not isinstance(value, dict):
            return None
        known, others = split_known(value, _FIELDS)
        if known.get("sha256", "") is None:
            del known["sha256"]  # null as the file has it: never read
        return cls(**known, others=others)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.others)
        for key in _FIELDS:
            value = getattr(self, key)
            if value is not None or key == "sha256":  # a file never read says so: "sha256": null
                out[key] = value
        return out


_FIELDS = {"size": is_int, "mtime_ns": is_int, "sha256": lambda v: v is None or isinstance(v, str),
           "reason": is_str, "since": is_str}


def read_set_aside(root: Path) -> dict[str, SetAsideEntry]:
    """The set-aside ledger of the vault at `root` ({} when it is missing or unreadable)."""
    typed = ((rel, SetAsideEntry.from_json(entry)) for rel, entry in read_ledger(root, SET_ASIDE, LEDGER_KEY).items())
    return {rel: entry for rel, entry in typed if entry is not None}


def write_set_aside(root: Path, entries: Mapping[str, SetAsideEntry]) -> None:
    write_ledger(root, SET_ASIDE, LEDGER_KEY, {rel: entry.to_json() for rel, entry in entries.items()})


class SetAside:
    """What is set aside in the vault at `root`: raw path -> entry, as read (a file touched but not changed is
    given its new modification time as it is looked at, so the next look needs no reading)."""

    def __init__(self, root: Path, entries: dict[str, SetAsideEntry] | None = None) -> None:
        self.root, self.entries = root, entries if entries is not None else {}

    @classmethod
    def load(cls, root: Path) -> SetAside:
        return cls(root, read_set_aside(root))

    def holds(self, rel: str) -> bool:
        """The raw file `rel` was set aside and has not changed since: the same size and modification time,
        or the same size and bytes (a file touched, or copied back, is the same file). A file that changed
        is read again; one that is gone is no longer set aside."""
        entry = self.entries.get(rel)
        if entry is None:
            return False
        try:
            st = os.stat(self.root / rel)
        except OSError:
            return False
        if st.st_size != entry.size:
            return False
        if st.st_mtime_ns == entry.mtime_ns:
            return True
        if not entry.sha256 or not (self.root / rel).is_file():
            return False  # never read (not a regular file), or no longer a regular file: judged again
        if file_sha256(self.root / rel) != entry.sha256:
            return False
        self.entries[rel] = replace(entry, mtime_ns=st.st_mtime_ns)
        return True

    def current(self) -> dict[str, SetAsideEntry]:
        """The entries that still hold: the file is there, unchanged, and was not captured since (a file set
        aside can still be ingested by name, `--encoding` given, say)."""
        captured = read_sources(self.root)
        held = [rel for rel in sorted(self.entries) if rel not in captured and self.holds(rel)]
        return {rel: self.entries[rel] for rel in held}

    def listed(self) -> list[dict[str, str]]:
        """The files set aside now: path, reason and since, in path order."""
        return [{"path": rel, "reason": entry.reason or "", "since": entry.since or ""}
                for rel, entry in self.current().items()]


def sha256_of(path: Path) -> str:
    """The sha256 of a file's bytes, read in blocks (OSError when it cannot be read)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def file_sha256(path: Path) -> str | None:
    """The sha256 of a regular file's bytes; None when it cannot be read."""
    try:
        return sha256_of(path)
    except OSError:
        return None
