"""What `wikic ingest` with no argument compiles: every file in raw/ that is not compiled yet.

That is a file dropped into raw/ by hand (captured in place, it never moves), and a captured source whose
compilation failed or never ran. A source compiled before is skipped without reading it again: raw files
are immutable, and lint's `raw-drift` reports one that changed. The text copy of an HTML, PDF or converted
source is not a source of its own, and neither is a conversation export (`raw/transcripts/exports/`, or
one someone dropped into raw/): the transcripts made from it are.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from wikic.ingest.inputs import Prepared, SourceError, read_inputs
from wikic.settings import IngestSettings
from wikic.vault.layout import RAW_DIR, is_export
from wikic.vault.paths import confined
from wikic.vault.state import Compiled, ConversationLedger, source_ledger


@dataclass(frozen=True)
class Unusable:
    path: str  # vault-relative
    error: str
    hint: str | None


def pending_inputs(root: Path, settings: IngestSettings) -> tuple[list[Prepared], list[Unusable]]:
    """(raw files to compile, raw files that cannot be read): one bad file does not hold up the others."""
    ledger = source_ledger(root)
    compiled = Compiled.load(root)
    text_copies = {
        str(entry.get("text_path")) for raw, entry in ledger.items() if entry.get("text_path") not in ("", raw)
    }
    # conversation exports dropped into raw/ were read into transcripts: those are the sources
    text_copies |= {str(e.get("path")) for e in ConversationLedger.load(root).exports.values() if isinstance(e, dict)}
    prepared: list[Prepared] = []
    unusable: list[Unusable] = []
    for rel in _raw_files(root):
        if rel in text_copies or _compiled(root, rel, ledger.get(rel), compiled):
            continue
        try:
            prepared.extend(read_inputs(root, [str(root / rel)], settings=settings))
        except SourceError as exc:
            unusable.append(Unusable(rel, exc.message, exc.hint))
    return prepared, unusable


def _compiled(root: Path, rel: str, entry: dict[str, object] | None, compiled: Compiled) -> bool:
    if entry is None:
        return False
    if entry.get("media") == "image":
        return True  # captured; images are not sent to the model
    try:
        same_size = (root / rel).stat().st_size == entry.get("bytes")
    except OSError:
        return True  # vanished since: nothing to compile (lint reports it)
    ref = str(entry.get("text_path") or rel)
    return same_size and compiled.is_current(ref, str(entry.get("sha256")))


def _raw_files(root: Path) -> list[str]:
    out: list[str] = []
    confined(root, root / RAW_DIR)  # a raw/ linked out of the vault holds no source of this vault
    for folder, dirs, files in os.walk(root / RAW_DIR):
        rel_dir = Path(folder).relative_to(root).as_posix()
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not is_export(f"{rel_dir}/{d}"))
        for name in sorted(files):
            if not name.startswith(".") and not os.path.islink(os.path.join(folder, name)):  # a link may lead out
                out.append(f"{rel_dir}/{name}")
    return out
