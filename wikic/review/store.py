"""Proposals as they are kept: `.wikic/proposals/<id>/`, one folder each.

    proposal.json   what the run was (its kind, sources, day, options), what it would change (each file with
                    the sha256 of the vault's bytes it was made against), its counts, and what became of it
    before/<path>   the vault's bytes of each file the run would replace or remove, as the run found them
    after/<path>    the bytes the run would write

A proposal is written whole (its files first, `proposal.json` last and atomically), so a folder without a
readable `proposal.json` is no proposal: a run killed while storing one, passed over and tidied away.
Proposals are tool state, never content: lint, the palace and Obsidian do not see `.wikic/`, and the
vault's `.gitignore` leaves them out of version control (the rejections a review records are kept in
`rejected.md`, which is versioned: `rejections.py`).
"""

from __future__ import annotations

import datetime as dt
import json
import secrets
import shutil
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from wikic.errors import UsageError
from wikic.review.shadow import Change, sha
from wikic.vault.layout import LOG_FILE, RAW_DIR, STATE_DIR, in_vault_tree, is_note_path, require_vault
from wikic.vault.paths import confined, make_folder
from wikic.vault.state import PROPOSAL_FILE, PROPOSALS, is_ledger
from wikic.vault.write import write_atomic, write_bytes_atomic

FORMAT = 1


@dataclass(frozen=True)
class FileChange:
    """One file of a proposal: the sha256 of the vault's bytes it was made against (None: no file then) and
    of what it writes (None: it removes the file)."""

    path: str
    before: str | None
    after: str | None

    @property
    def kind(self) -> str:
        return "new" if self.before is None else "removed" if self.after is None else "changed"


@dataclass
class Proposal:
    id: str
    kind: str  # "ingest" | "query"
    created: str  # ISO time, UTC
    day: str  # the run's day (YYYY-MM-DD): what its pages and log rows say
    sources: list[str] = field(default_factory=list)  # raw paths the run compiled
    title: str = ""  # what a list shows of it: its sources, or the question
    files: list[FileChange] = field(default_factory=list)
    pages_created: list[str] = field(default_factory=list)
    pages_updated: list[str] = field(default_factory=list)
    claims_added: int = 0
    claims_dropped: int = 0
    claims_refused: int = 0
    tokens: int = 0
    options: dict[str, Any] = field(default_factory=dict)  # what a replay of the run needs (strategy, compose...)
    state: str = "open"  # open | accepted | partly accepted
    accepted_pages: list[str] = field(default_factory=list)  # a part accepted so far
    accepted_claims: list[str] = field(default_factory=list)
    landed: dict[str, str] = field(default_factory=dict)  # path -> sha256 of what an accept of a part wrote
    format: int = FORMAT

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Proposal:
        """The proposal `data` holds; ValueError when it writes a file no wikic run writes (a proposal is a file
        in the vault's folder: a synced or cloned one is not trusted to name any file)."""
        data = dict(data)
        data["files"] = [FileChange(**f) for f in data.get("files", [])]
        for f in data["files"]:
            if not writable(f.path):
                raise ValueError(f"it would write {f.path}, which no wikic run writes")
        return cls(**data)

    @property
    def changed_paths(self) -> list[str]:
        return [f.path for f in self.files]


def writable(path: Any) -> bool:
    """Whether a run may write `path` (vault-relative): a note wikic writes, log.md, a new file in raw/, or a
    ledger under .wikic/; never through `..`, never an absolute path."""
    if not isinstance(path, str) or not path or path.startswith("/") or "\\" in path or "\x00" in path:
        return False
    if any(part in ("", ".", "..") for part in path.split("/")):
        return False
    if path.startswith(STATE_DIR + "/"):
        return is_ledger(path[len(STATE_DIR) + 1 :])
    return is_note_path(path) or path == LOG_FILE or (path.startswith(RAW_DIR + "/") and in_vault_tree(path))


def proposals_dir(root: Path) -> Path:
    """`.wikic/proposals/` of the vault at `root`; UsageError when `root` is no wikic vault."""
    require_vault(root)
    return confined(root, Path(root) / STATE_DIR / PROPOSALS)


def new_id(now: dt.datetime) -> str:
    """An id a person can type and that sorts by time: `20261206-0815-3f2a`."""
    return f"{now:%Y%m%d-%H%M}-{secrets.token_hex(2)}"


def folder_of(root: Path, proposal_id: str) -> Path:
    if not proposal_id or "/" in proposal_id or "\\" in proposal_id or proposal_id.startswith("."):
        raise UsageError(f"no proposal {proposal_id!r}", hint="`wikic review` lists the open proposals")
    return proposals_dir(root) / proposal_id


def save(root: Path, proposal: Proposal, changes: list[Change]) -> Path:
    """Store `proposal` with the bytes of its `changes`; `proposal.json` is written last."""
    folder = folder_of(root, proposal.id)
    make_folder(root, folder)
    for change in changes:
        for side, data in (("before", change.before), ("after", change.after)):
            if data is not None:
                write_bytes_atomic(folder / side / change.path, data, root=root, durable=False)
    proposal.files = [FileChange(c.path, sha(c.before), sha(c.after)) for c in changes]
    write_json(root, proposal)
    return folder


def write_json(root: Path, proposal: Proposal) -> None:
    folder = folder_of(root, proposal.id)
    text = json.dumps(proposal.to_json(), indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    write_atomic(folder / PROPOSAL_FILE, text, root=root)


def load(root: Path, proposal_id: str) -> Proposal:
    """The proposal `proposal_id` (a unique prefix of an id will do); UsageError when there is none."""
    folder = proposals_dir(root)
    names = [p.name for p in _folders(folder)] if folder.is_dir() else []
    matches = [n for n in names if n == proposal_id] or [n for n in names if n.startswith(proposal_id)]
    if len(matches) != 1:
        said = "no proposal" if not matches else f"{len(matches)} proposals start with"
        raise UsageError(f"{said} {proposal_id!r}", hint="`wikic review` lists the open proposals")
    found = _read(folder / matches[0])
    if found is None:
        raise UsageError(f"proposal {matches[0]} cannot be read", hint=f"remove {folder / matches[0]}")
    return found


def listed(root: Path) -> list[Proposal]:
    """Every readable proposal, oldest first."""
    folder = proposals_dir(root)
    if not folder.is_dir():
        return []
    found = [_read(p) for p in _folders(folder)]
    return sorted((p for p in found if p is not None), key=lambda p: p.id)


def file_bytes(root: Path, proposal: Proposal, path: str, side: str) -> bytes | None:
    """The bytes of `path` as the proposal holds them, `side` "before" or "after" (None: no file)."""
    target = folder_of(root, proposal.id) / side / path
    try:
        return target.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def text_of(root: Path, proposal: Proposal, path: str, side: str) -> str | None:
    data = file_bytes(root, proposal, path, side)
    return None if data is None else data.decode("utf-8", errors="replace")


def remove(root: Path, proposal: Proposal) -> None:
    """Drop a proposal: `proposal.json` first (then the folder is no proposal), then its files."""
    folder = folder_of(root, proposal.id)
    (folder / PROPOSAL_FILE).unlink(missing_ok=True)
    shutil.rmtree(folder, ignore_errors=True)


def _folders(folder: Path) -> Iterator[Path]:
    for entry in sorted(folder.iterdir()):
        if entry.is_dir() and not entry.is_symlink() and not entry.name.startswith("."):
            yield entry


def _read(folder: Path) -> Proposal | None:
    try:
        data = json.loads((folder / PROPOSAL_FILE).read_text(encoding="utf-8"))
        return Proposal.from_json(data) if isinstance(data, dict) and data.get("format") == FORMAT else None
    except (OSError, ValueError, TypeError):
        return None  # unreadable, or one no wikic run could have made: no proposal
