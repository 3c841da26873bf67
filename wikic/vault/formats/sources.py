"""The source ledger's rows (`.wikic/sources.json`): what capture recorded of each raw file, typed, read from and
written to the file's JSON in this one place.

    "raw/articles/x.html": {"sha256": "...", "bytes": 1234, "kind": "articles", "media": "html", "title": "...",
                            "origin": "x.html", "text_path": "raw/articles/x.md", "text_sha256": "...",
                            "captured": "2026-01-02T00:00:00+00:00", "encoding": "gb18030"}

`encoding` is there only for a text read in another encoding than UTF-8 (its text file is the converted copy);
`text_path` is "" for an image, and the raw file itself where that is the text the model read.
Capture alone writes the ledger (`wikic/ingest/capture.py`, under `state.source_ledger_lock`); the hubs, lint,
the palace, the evaluation and ingest's pending sources read it. An entry that is no JSON object is left out as
the file is read; a key this version does not know, or one of another type, is kept as it was read and written
back unchanged. A ledger an early version wrote reads too: the map without its `sources` key, or a list of
entries each naming its `path`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic.vault.formats.fields import is_int, is_str, split_known
from wikic.vault.state import SOURCES, read_state, state_file, write_ledger

LEDGER_KEY = "sources"  # the map the file holds, beside its version


@dataclass(frozen=True, slots=True)
class SourceEntry:
    """What capture recorded of one raw file (None: the entry does not say)."""

    sha256: str | None = None  # of the raw file's bytes
    size: int | None = None  # the raw file's bytes ("bytes")
    kind: str | None = None  # articles | papers | transcripts | assets
    media: str | None = None  # markdown | text | html | pdf | image
    title: str | None = None
    origin: str | None = None  # the name of what was captured: a file's, a URL, "stdin"
    text_path: str | None = None  # the text file the model read and anchors point into
    text_sha256: str | None = None
    captured: str | None = None  # when (ISO)
    encoding: str | None = None  # what a text in another encoding than UTF-8 was read in
    ingested: str | None = None  # the day an early version recorded in place of `captured`
    others: Mapping[str, Any] = field(default_factory=dict)  # keys not read above, as the file has them

    def text_copy(self, raw: str) -> str | None:
        """The file capture extracted the text of `raw` (this entry's raw file) into, when that is another
        file (an HTML page's, a PDF's, a text converted to UTF-8); None when the raw file is its own text."""
        return self.text_path if self.text_path and self.text_path != raw else None

    @classmethod
    def from_json(cls, value: Any) -> SourceEntry | None:
        if not isinstance(value, dict):
            return None
        known, others = split_known(value, _FIELDS)
        return cls(**{_FIELDS_AS.get(key, key): v for key, v in known.items()}, others=others)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.others)
        for key in _FIELDS:
            value = getattr(self, _FIELDS_AS.get(key, key))
            if value is not None:
                out[key] = value
        return out


_FIELDS = {
    "sha256": is_str,
    "bytes": is_int,
    "kind": is_str,
    "media": is_str,
    "title": is_str,
    "origin": is_str,
    "text_path": is_str,
    "text_sha256": is_str,
    "captured": is_str,
    "encoding": is_str,
    "ingested": is_str,
}
_FIELDS_AS = {"bytes": "size"}  # the JSON keys whose field is named otherwise


def sources_from_json(data: Any) -> dict[str, SourceEntry]:
    """The ledger file's JSON typed: raw path -> entry. An entry that is no JSON object is left out; one naming
    its `path` is filed under it."""
    entries = data.get(LEDGER_KEY, data) if isinstance(data, dict) else data
    out: dict[str, SourceEntry] = {}
    if isinstance(entries, dict):
        for key, value in entries.items():
            entry = SourceEntry.from_json(value)
            if entry is not None:
                out[str(value.get("path", key))] = entry
    elif isinstance(entries, list):
        for value in entries:
            entry = SourceEntry.from_json(value)
            if entry is not None and isinstance(value.get("path"), str):
                out[value["path"]] = entry
    return out


def sources_to_json(entries: Mapping[str, SourceEntry]) -> dict[str, Any]:
    return {raw: entry.to_json() for raw, entry in entries.items()}


def read_sources(root: Path) -> dict[str, SourceEntry]:
    """The source ledger of the vault at `root` ({} when it is missing or unreadable)."""
    return sources_from_json(read_state(root, SOURCES))


def sources_stamp(root: Path) -> tuple[int, int] | None:
    """(size, mtime_ns) of the source ledger file, None when there is none: what a cache of findings judged
    from the ledger (lint's report, the stale pages) is told its change by."""
    ledger = state_file(root, SOURCES)
    try:
        st = ledger.stat() if ledger is not None else None
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns) if st is not None else None


def write_sources(root: Path, entries: Mapping[str, SourceEntry]) -> None:
    write_ledger(root, SOURCES, LEDGER_KEY, sources_to_json(entries))


def text_copies(entries: Mapping[str, SourceEntry]) -> dict[str, str]:
    """raw path -> the file capture extracted its text into, for the sources whose text is another file."""
    return {raw: copy for raw, entry in entries.items() if (copy := entry.text_copy(raw)) is not None}
