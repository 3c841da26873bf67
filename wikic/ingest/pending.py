"""What `wikic ingest` with no argument compiles: every file in raw/ that is not compiled yet.

That is a file dropped into raw/ by hand (captured in place, it never moves), and a captured source whose
compilation failed or never ran. A source compiled before is skipped without reading it again: raw files
are immutable, and lint's `raw-drift` reports one that changed. The text copy of an HTML, PDF or converted
source is not a source of its own, and neither is a conversation export (`raw/transcripts/exports/`, or
one someone dropped into raw/): the transcripts made from it are.

A file ingest cannot use (empty, binary, a zip bomb, a named pipe or a device, which are never opened), and a
file dropped there with the same content as a source captured before (a copy: that source is the one
compiled), is reported once and set aside (`.wikic/set-aside.json`, by size, modification time and sha256): later runs
pass over it without a word until it changes, and `wikic status` lists it. A file the system would not let
ingest read (permissions) is not set aside: that is fixed without changing the file.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, replace
from pathlib import Path

from wikic.ingest.compiled import Compiled
from wikic.ingest.inputs import Prepared, SourceError, UnreadableSource, read_inputs
from wikic.settings import IngestSettings
from wikic.vault.formats.conversations import read_conversations
from wikic.vault.formats.set_aside import SetAside, SetAsideEntry, file_sha256, write_set_aside
from wikic.vault.formats.sources import SourceEntry, read_sources, text_copies
from wikic.vault.layout import RAW_DIR, is_export
from wikic.vault.load import not_a_regular_file
from wikic.vault.paths import confined
from wikic.vault.state import set_aside_lock
from wikic.vault.tree import walk_tree

SET_ASIDE_NOTE = "set aside until it changes; `wikic status` lists it"


@dataclass(frozen=True)
class Unusable:
    path: str  # vault-relative
    error: str
    hint: str | None
    stamp: SetAsideEntry | None = None  # size, mtime_ns, sha256 when refused: set aside; None: a read error
    status: str = "failed"  # how the run reports it: "failed", or "duplicate" (another source holds its content)


def pending_inputs(root: Path, settings: IngestSettings) -> tuple[list[Prepared], list[Unusable]]:
    """(raw files to compile, raw files that cannot be read): one bad file does not hold up the others."""
    ledger = read_sources(root)
    compiled = Compiled.load(root)
    copies = set(text_copies(ledger).values())
    # conversation exports dropped into raw/ were read into transcripts: those are the sources
    copies |= read_conversations(root).kept_exports()
    aside = SetAside.load(root)
    prepared: list[Prepared] = []
    unusable: list[Unusable] = []
    recorded = {entry.sha256: raw for raw, entry in sorted(ledger.items()) if entry.sha256}
    for rel in _raw_files(root):
        if rel in copies or _compiled(root, rel, ledger.get(rel), compiled) or aside.holds(rel):
            continue
        before = _stat(root / rel)
        same = _same_content(root, rel, recorded) if rel not in ledger else None
        if same is not None:  # a copy of a source: the source is compiled, the copy would only be named for it
            unusable.append(Unusable(rel, f"{rel}: same content as {same}, skipped", None, _stamp(root / rel, before),
                                     status="duplicate"))
            continue
        try:
            prepared.extend(read_inputs(root, [str(root / rel)], settings=settings))
        except UnreadableSource as exc:
            unusable.append(Unusable(rel, exc.message, exc.hint))
        except SourceError as exc:
            unusable.append(Unusable(rel, exc.message, exc.hint, _stamp(root / rel, before)))
    return prepared, unusable


def set_aside(root: Path, unusable: list[Unusable], today: dt.date) -> None:
    """Record the files of `unusable` that were refused for what they hold, and forget the ones set aside
    before that are gone or have changed since (they were judged again)."""
    refused = {u.path: u for u in unusable if u.stamp is not None}
    if not refused and not SetAside.load(root).entries:
        return  # nothing to record, nothing to forget
    with set_aside_lock(root):
        recorded = SetAside.load(root).entries
        aside = SetAside.load(root)  # `holds` refreshes the mtime of a file touched but not changed
        kept = {rel: entry for rel, entry in aside.current().items() if rel not in refused}
        for rel, u in refused.items():
            kept[rel] = replace(u.stamp or SetAsideEntry(), reason=u.error, since=today.isoformat())
        if kept != recorded:
            write_set_aside(root, kept)


def _same_content(root: Path, rel: str, recorded: dict[str, str]) -> str | None:
    """The source already captured that holds exactly the bytes of the file `rel` dropped into raw/ (None:
    no other, or the file is no regular file, which is never opened)."""
    if not recorded or not_a_regular_file(root / rel) is not None:
        return None
    other = recorded.get(file_sha256(root / rel) or "")
    return other if other is not None and other != rel and (root / other).is_file() else None


def _stat(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _stamp(path: Path, before: os.stat_result | None) -> SetAsideEntry | None:
    """What tells the file apart from a changed one: size, modification time and (for a regular file, which
    alone is ever read) sha256; None when it changed while it was judged (it is judged again next run)."""
    if before is None:
        return None
    digest: str | None = None
    if not_a_regular_file(path) is None:
        digest = file_sha256(path)
        if digest is None:
            return None
    after = _stat(path)
    if after is None or (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns):
        return None
    return SetAsideEntry(before.st_size, before.st_mtime_ns, digest)


def _compiled(root: Path, rel: str, entry: SourceEntry | None, compiled: Compiled) -> bool:
    if entry is None:
        return False
    if entry.media == "image":
        return True  # captured; images are not sent to the model
    try:
        same_size = (root / rel).stat().st_size == entry.size
    except OSError:
        return True  # vanished since: nothing to compile (lint reports it)
    return same_size and entry.sha256 is not None and compiled.is_current(entry.text_path or rel, entry.sha256)


def _raw_files(root: Path) -> list[str]:
    out: list[str] = []
    confined(root, root / RAW_DIR)  # a raw/ linked out of the vault holds no source of this vault
    for folder, dirs, files in walk_tree(root / RAW_DIR):
        rel_dir = Path(folder).relative_to(root).as_posix()
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not is_export(f"{rel_dir}/{d}"))
        for name in sorted(files):
            if not name.startswith(".") and not os.path.islink(os.path.join(folder, name)):  # a link may lead out
                out.append(f"{rel_dir}/{name}")
    return out
