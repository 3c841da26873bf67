"""`wikic review` and `wikic review show`: the open proposals, and what one would change, as a person reads it.

Per page: a new page whole, a changed one as a diff of its text, and the claims it adds or drops, each with
the source lines it cites. `patch` gives the same changes as a patch `git apply` takes (every file the
accept would write, ledgers included; a file that is no text is named, not patched).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic.context import VaultContext
from wikic.errors import UsageError
from wikic.review import store
from wikic.review.shadow import sha
from wikic.review.summary import ClaimChange, claim_changes, quote_of
from wikic.vault.layout import is_note_path
from wikic.vault.paths import read_inside


@dataclass
class Listed:
    """One proposal as `wikic review` lists it."""

    id: str
    kind: str
    title: str
    created: str
    state: str
    sources: list[str]
    pages_created: list[str]
    pages_updated: list[str]
    claims_added: int
    claims_dropped: int
    claims_refused: int
    tokens: int
    base_changed: list[str]  # files changed in the vault since the proposal was made

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class PageView:
    path: str
    kind: str  # new | changed | removed
    text: str  # a new page whole, else the diff of its text
    added: list[ClaimChange] = field(default_factory=list)
    dropped: list[ClaimChange] = field(default_factory=list)
    quotes: dict[str, str] = field(default_factory=dict)  # "raw/x.md:L3" -> those lines of the source
    changed_since: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "kind": self.kind, "text": self.text, "changed_since": self.changed_since,
                "added": [c.to_json() for c in self.added], "dropped": [c.to_json() for c in self.dropped],
                "quotes": self.quotes}


@dataclass
class ProposalView:
    proposal: Listed
    pages: list[PageView]
    other_files: list[str]  # what else the accept writes: index.md, log.md, ledgers, new raw files

    def to_json(self) -> dict[str, Any]:
        return {"proposal": self.proposal.to_json(), "pages": [p.to_json() for p in self.pages],
                "other_files": self.other_files}


def _current_sha(root: Path, path: str) -> str | None:
    try:
        return sha(read_inside(root, root / path))
    except OSError:
        return None


def _listed(root: Path, p: store.Proposal) -> Listed:
    changed = [f.path for f in p.files if f.path != "log.md" and _current_sha(root, f.path) != f.before
               and not (f.before is None and _current_sha(root, f.path) == f.after)]
    return Listed(p.id, p.kind, p.title, p.created, p.state, p.sources, p.pages_created, p.pages_updated,
                  p.claims_added, p.claims_dropped, p.claims_refused, p.tokens, changed)


def list_proposals(context: VaultContext) -> list[Listed]:
    root = Path(context.root).resolve()
    return [_listed(root, p) for p in store.listed(root)]


def _subject_first(proposal: store.Proposal, path: str) -> tuple[int, str]:
    subject = path in proposal.pages_created or path in proposal.pages_updated
    return (0 if subject else 1, path)


def show(context: VaultContext, proposal_id: str, pages: Sequence[str] = ()) -> ProposalView:
    """What the proposal `proposal_id` would change, page by page (only `pages`, when named)."""
    root = Path(context.root).resolve()
    proposal = store.load(root, proposal_id)
    notes = sorted((f for f in proposal.files if is_note_path(f.path)), key=lambda f: _subject_first(proposal, f.path))
    wanted = {p if p.endswith(".md") else p + ".md" for p in pages}
    if wanted:
        notes = [f for f in notes if f.path in wanted or f.path.rsplit("/", 1)[-1] in wanted]
        if not notes:
            raise UsageError(f"proposal {proposal.id} writes none of {', '.join(sorted(pages))}",
                             hint=f"`wikic review show {proposal.id}` lists its pages")
    views = []
    for f in notes:
        before = store.text_of(root, proposal, f.path, "before")
        after = store.text_of(root, proposal, f.path, "after")
        added, dropped = claim_changes(f.path, before, after)
        text = after if before is None else "".join(_diff(f.path, before, after or ""))
        after_root = store.folder_of(root, proposal.id) / "after"  # a new source is there until it lands
        quotes = {c: quote_of(root if (root / c.split(":")[0]).exists() else after_root, c)
                  for change in [*added, *dropped] for c in change.cited}
        views.append(PageView(f.path, f.kind, text or "", added, dropped, quotes,
                              changed_since=_current_sha(root, f.path) != f.before))
    others = [f.path for f in proposal.files if not is_note_path(f.path)]
    return ProposalView(_listed(root, proposal), views, others)


def patch(context: VaultContext, proposal_id: str) -> str:
    """The proposal as a patch `git apply` takes, made against the files the proposal was made against."""
    root = Path(context.root).resolve()
    proposal = store.load(root, proposal_id)
    out: list[str] = []
    for f in proposal.files:
        before = store.file_bytes(root, proposal, f.path, "before")
        after = store.file_bytes(root, proposal, f.path, "after")
        try:
            old = None if before is None else before.decode("utf-8")
            new = None if after is None else after.decode("utf-8")
        except UnicodeDecodeError:
            out.append(f"# {f.path}: no text, not in this patch\n")
            continue
        out.append(f"diff --git a/{f.path} b/{f.path}\n")
        if old is None:
            out.append("new file mode 100644\n")
        elif new is None:
            out.append("deleted file mode 100644\n")
        out.extend(_diff(f.path, old, new))
    return "".join(out)


def _diff(path: str, old: str | None, new: str | None) -> list[str]:
    a = (old or "").splitlines(keepends=True)
    b = (new or "").splitlines(keepends=True)
    lines = list(difflib.unified_diff(a, b, "/dev/null" if old is None else f"a/{path}",
                                      "/dev/null" if new is None else f"b/{path}"))
    out = []
    for line in lines:
        if line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return out
