"""`wikic review accept` and `wikic review reject`: a proposal, or a part of it, lands or is refused for good.

Accepting a whole proposal whose files are still what it was made against writes exactly what it holds,
through the journal a direct run writes with (`pages/journal.py`): the vault then is, byte for byte, what
the same run without `--review` makes, and a kill leaves all of it or none.

A part (`--page`, `--claim`), or a proposal made before other runs or a person changed its pages, is
compiled again on today's vault from the plans the run had (`plans.py`), no model asked for them, with a
gate (`ingest/gate.py`) that lets in only what was accepted: a page left out is not linked from those
accepted, and a name left without a page waits in the mentions ledger as any name does; `index.md`,
`log.md`, the overview and the source pages are written for what was accepted, by the code that writes
them for any run. A page a person changed since, where the proposal changes the same block, is a conflict:
left out of the accept and reported, never overwritten. What was not accepted stays in the proposal.

Rejecting writes what is rejected to `.wikic/rejected.md` (`ingest/rejections.py`), which every later run
of that source obeys; the proposal, or the part rejected, is dropped.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic.context import VaultContext
from wikic.errors import UsageError, VaultError
from wikic.ingest.gate import Gate, Part
from wikic.ingest.pipeline import IngestOptions, ingest
from wikic.ingest.rejections import RejectedClaim, RejectedPage, add, load, today
from wikic.pages import journal
from wikic.pages.lock import writer
from wikic.progress import ProgressCallback
from wikic.review import store
from wikic.review.blocks import conflicts
from wikic.review.plans import result_from_json
from wikic.review.propose import PLANS_FILE, ShadowContext, share_replies, tool_state
from wikic.review.shadow import Change, changes, make_shadow, sha
from wikic.review.summary import claim_changes
from wikic.vault.formats.anchors import parse_spec
from wikic.vault.formats.claims import scan
from wikic.vault.frontmatter import split_page
from wikic.vault.layout import LOG_FILE, RAW_DIR, STATE_DIR, is_note_path
from wikic.vault.paths import read_inside
from wikic.vault.write import scratch, write_bytes_atomic

REPLAY_DIR = "replay"


@dataclass
class Accepted:
    """What an accept wrote: the files, those left out (a conflict, or changed since), and whether the
    proposal is done."""

    proposal: str
    written: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)
    replayed: bool = False
    closed: bool = False
    lint: Any = None

    def to_json(self) -> dict[str, Any]:
        return {"proposal": self.proposal, "written": self.written, "conflicts": self.conflicts, "left": self.left,
                "replayed": self.replayed, "closed": self.closed, "lint_errors": len(self.lint_errors())}

    def lint_errors(self) -> list[Any]:
        """Lint's errors on the files this accept wrote."""
        if self.lint is None:
            return []
        return [f for f in self.lint.findings if f.severity == "error" and f.path in self.written]

    def exit_code(self) -> int:
        """0: everything asked for was written; 1: a page was left out, or lint calls something written an error."""
        return 1 if self.conflicts or self.left or self.lint_errors() else 0


@dataclass
class Rejected:
    proposal: str
    claims: int = 0
    pages: int = 0
    closed: bool = False

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def accept(context: VaultContext, proposal_id: str, *, pages: Sequence[str] = (), claims: Sequence[str] = (),
           progress: ProgressCallback | None = None) -> Accepted:
    """Apply the proposal `proposal_id`, or the `pages` and `claims` of it named (see the module docstring)."""
    root = Path(context.root).resolve()
    proposal = store.load(root, proposal_id)
    chosen_pages = [_page_of(proposal, p) for p in pages]
    chosen_claims = [c.lstrip("^") for c in claims]
    out = Accepted(proposal.id)
    with writer(root, context.page_types):  # an accept killed once its journal was saved is finished here
        whole = not chosen_pages and not chosen_claims and proposal.state == "open"
        if whole and _landed(root, proposal):  # killed after its journal was applied, before it was closed
            store.remove(root, proposal)
            out.closed = True
            return out
        if proposal.kind == "query" and not (whole and _base_holds(root, proposal)):
            raise UsageError(
                f"proposal {proposal.id} files an answer: it is accepted whole, on the pages it was made against",
                hint=("its pages changed since: ask again with `wikic query --save --review`, then reject this one"
                      if whole else f"accept it whole (wikic review accept {proposal.id}), or reject it"),
            )
        if whole and _base_holds(root, proposal):
            out.written, out.left = _apply_whole(root, proposal, context.page_types)
            out.closed = True
        else:
            out.replayed = True
            _replay(context, root, proposal, chosen_pages, chosen_claims, out, progress)
    if out.closed:
        store.remove(root, proposal)
    else:
        store.write_json(root, proposal)
    _after(context, out, bool(proposal.options.get("use_palace", True)))
    return out


def _page_of(proposal: store.Proposal, page: str) -> str:
    """The proposal's page `page` names (a path, a file name, or a path without `.md`)."""
    wanted = page if page.endswith(".md") else page + ".md"
    notes = [f.path for f in proposal.files if is_note_path(f.path)]
    found = [p for p in notes if p == wanted] or [p for p in notes if p.rsplit("/", 1)[-1] == wanted]
    if len(found) != 1:
        raise UsageError(f"proposal {proposal.id} writes no page {page!r}",
                         hint=f"`wikic review show {proposal.id}` lists its pages")
    return found[0]


def _current(root: Path, path: str) -> bytes | None:
    try:
        return read_inside(root, root / path)
    except OSError:
        return None


def _current_sha(root: Path, path: str) -> str | None:
    return sha(_current(root, path))


def _landed(root: Path, proposal: store.Proposal) -> bool:
    """Every file holds what the proposal writes (and log.md its rows): an accept finished all but closing it."""
    for f in proposal.files:
        if f.path == LOG_FILE:
            rows = _rows(store.text_of(root, proposal, f.path, "before") or "",
                         store.text_of(root, proposal, f.path, "after") or "")
            current = _text(_current(root, LOG_FILE)) or ""
            if any(r not in current for r in rows):
                return False
        elif _current_sha(root, f.path) != f.after:
            return False
    return True


def _base_holds(root: Path, proposal: store.Proposal) -> bool:
    """Every file the proposal writes is what it was made against."""
    for f in proposal.files:
        if f.path == LOG_FILE or f.path.startswith(RAW_DIR + "/"):
            continue  # rows are appended to whatever log.md holds; a raw file is new and never replaced
        if sha(_current(root, f.path)) != f.before:
            return False
    return True


def _apply_whole(root: Path, proposal: store.Proposal, page_types: list[str]) -> tuple[list[str], list[str]]:
    """Write the proposal as it is, through one journal; (files written, files left because they changed)."""
    found = [Change(f.path, store.file_bytes(root, proposal, f.path, "before"),
                    store.file_bytes(root, proposal, f.path, "after")) for f in proposal.files]
    return _apply_changes(root, found, page_types, indexes=bool(proposal.options.get("use_palace", True)))


def _rows(before: str, after: str) -> list[str]:
    """The rows a run appended to log.md."""
    if not after.startswith(before):
        return []
    return [line for line in after[len(before):].split("\n") if line.strip()]


def _names(text: str | None) -> set[str]:
    """A page's title and aliases."""
    data, _ = split_page(text or "")
    if not isinstance(data, dict):
        return set()
    out = {str(data["title"])} if data.get("title") else set()
    aliases = data.get("aliases") or []
    return out | {str(a) for a in aliases if isinstance(a, str)} if isinstance(aliases, list) else out


def _replay(context: VaultContext, root: Path, proposal: store.Proposal, chosen_pages: list[str],
            chosen_claims: list[str], out: Accepted, progress: ProgressCallback | None) -> None:
    """Compile the proposal's sources again on today's vault, from its plans, letting in what is accepted."""
    folder = store.folder_of(root, proposal.id)
    try:
        stored = json.loads((folder / PLANS_FILE).read_text(encoding="utf-8"))
        plans = {ref: result_from_json(data) for ref, data in stored.items()}
    except (OSError, ValueError, TypeError, AttributeError) as exc:
        raise VaultError(f"proposal {proposal.id}: its plans cannot be read ({exc})",
                         hint=f"reject it and run the ingest again: wikic review reject {proposal.id}") from None
    subject_pages = [f.path for f in proposal.files if is_note_path(f.path) and f.path in
                     {*proposal.pages_created, *proposal.pages_updated}]
    out.conflicts = [p for p in subject_pages if _current_sha(root, p) != proposal.landed.get(p) and conflicts(
        store.text_of(root, proposal, p, "before"), store.text_of(root, proposal, p, "after"),
        _text(_current(root, p)))]
    taken_pages = set(chosen_pages or ([] if chosen_claims else subject_pages)) | set(proposal.accepted_pages)
    taken_pages -= set(out.conflicts)
    part = None  # everything (what was rejected aside)
    if chosen_pages or chosen_claims or out.conflicts:
        texts = [store.text_of(root, proposal, p, "after") for p in taken_pages]
        part = Part(names=frozenset(n for t in texts for n in _names(t)),
                    page_claims=frozenset(c.id for t in texts for c in scan(t or "")),
                    claims=frozenset({*chosen_claims, *proposal.accepted_claims}),
                    every_name=frozenset(n for p in subject_pages
                                         for n in _names(store.text_of(root, proposal, p, "after"))),
                    rest=not chosen_pages and not chosen_claims)
    shadow = folder / REPLAY_DIR
    shutil.rmtree(shadow, ignore_errors=True)
    try:
        linked = make_shadow(root, shadow)
        _bring_sources(root, proposal, shadow)
        options = IngestOptions(
            inputs=[str(shadow / ref) for ref in proposal.sources], force=True, today=_day(proposal.day),
            lint_after=False, index_after=False, plans=plans, gate=Gate(load(root), part),
            compose=proposal.options.get("compose"), use_palace=bool(proposal.options.get("use_palace", True)),
            review=False,
        )
        with ShadowContext(shadow, context) as inside, scratch(shadow):
            ingest(inside, options, progress=progress)
        share_replies(root, shadow)
        # a page in conflict is never written, whatever the compile made of it
        found = [c for c in changes(root, shadow, linked) if not tool_state(c.path) and c.path not in out.conflicts]
        out.written, out.left = _apply_changes(root, found, context.page_types,
                                               indexes=bool(proposal.options.get("use_palace", True)))
    finally:
        shutil.rmtree(shadow, ignore_errors=True)
    proposal.landed.update({p: s for p in out.written if (s := _current_sha(root, p)) is not None})
    proposal.accepted_pages = sorted(taken_pages)
    proposal.accepted_claims = sorted({*chosen_claims, *proposal.accepted_claims})
    everything = set(subject_pages) <= taken_pages
    out.closed = everything and not out.conflicts
    proposal.state = "accepted" if out.closed else "partly accepted"


def _bring_sources(root: Path, proposal: store.Proposal, shadow: Path) -> None:
    """The proposal's new sources into the replay's shadow, with their entries of the source ledger."""
    from wikic.vault.formats.sources import read_sources, sources_from_json, write_sources
    from wikic.vault.state import SOURCES

    for path in proposal.options.get("raw", []):
        data = store.file_bytes(root, proposal, path, "after")
        if data is not None and not (shadow / path).exists():
            (shadow / path).parent.mkdir(parents=True, exist_ok=True)
            (shadow / path).write_bytes(data)
    proposed = store.text_of(root, proposal, f"{STATE_DIR}/{SOURCES}", "after")
    if proposed is None:
        return
    try:
        theirs = sources_from_json(json.loads(proposed))
    except (ValueError, RecursionError):
        return
    mine, raw = read_sources(shadow), set(proposal.options.get("raw", []))
    new = {path: entry for path, entry in theirs.items() if path in raw and path not in mine}
    if new:
        (shadow / STATE_DIR).mkdir(parents=True, exist_ok=True)
        # written whole as a new file: the shadow's ledger, linked to the vault's, is replaced, never written through
        write_sources(shadow, {**mine, **new})


def _apply_changes(root: Path, found: list[Change], page_types: list[str], *, indexes: bool
                   ) -> tuple[list[str], list[str]]:
    """Write `found` through one journal (a new raw source first, as capture does: the journal's pages cite
    it); (files written, files left because they changed since). `indexes`: the palace's to-do gets them."""
    plan = journal.Journal()
    for c in found:
        before, after = _text(c.before), _text(c.after)
        if c.path.startswith(RAW_DIR + "/"):
            if c.after is not None and _current(root, c.path) is None:
                write_bytes_atomic(root / c.path, c.after, root=root)
        elif c.path == LOG_FILE:
            plan.add_log(root, _rows(before or "", after or ""))
        elif c.path.startswith(STATE_DIR + "/"):
            plan.add_ledger(c.path[len(STATE_DIR) + 1 :], before, after)
        elif is_note_path(c.path):
            plan.add_page(c.path, before, after)
    if indexes:
        plan.palace = [c.path for c in found if is_note_path(c.path) or c.path.startswith(RAW_DIR + "/")]
    left = plan.commit(root, page_types)
    return [c.path for c in found if c.path not in left], left


def _after(context: VaultContext, out: Accepted, proposal_indexes: bool) -> None:
    """What a direct run does once its pages are written: the search index, then lint."""
    root = Path(context.root).resolve()
    if out.written and proposal_indexes:
        from wikic.palace.todo import update_palace

        with contextlib.suppress(Exception):  # the search index is then brought up to date by the next command
            update_palace(root, [], context.palace)
    from wikic.lint.run import LintOptions, run_lint

    out.lint = run_lint(context, LintOptions(use_cache=True))


def reject(context: VaultContext, proposal_id: str, *, pages: Sequence[str] = (), claims: Sequence[str] = (),
           why: str = "") -> Rejected:
    """Record what is rejected, so that no later run of its source proposes it again; drop it from the
    proposal (the whole proposal when nothing is named)."""
    root = Path(context.root).resolve()
    proposal = store.load(root, proposal_id)
    chosen_pages = [_page_of(proposal, p) for p in pages]
    wanted = {c.lstrip("^") for c in claims}
    everything = not chosen_pages and not wanted
    rejected_claims: list[RejectedClaim] = []
    rejected_pages: list[RejectedPage] = []
    day = today()
    for f in proposal.files:
        if not is_note_path(f.path) or f.path not in {*proposal.pages_created, *proposal.pages_updated}:
            continue
        before, after = store.text_of(root, proposal, f.path, "before"), store.text_of(root, proposal, f.path, "after")
        added, _ = claim_changes(f.path, before, after)
        # a page rejected is its name; the whole proposal rejected is each of its claims too
        for claim in added:
            if not (everything or claim.id in wanted):
                continue
            for cited in claim.cited:
                spec = parse_spec(cited)
                if spec is not None:
                    rejected_claims.append(RejectedClaim(claim.id, spec.path, spec.start, spec.end, claim.text,
                                                         why, day))
        if f.path in proposal.pages_created and (everything or f.path in chosen_pages):
            title = _title(after)
            for source in _sources_of(after) or proposal.sources:
                if title:
                    rejected_pages.append(RejectedPage(title, source, why, day))
    unknown = wanted - {r.id for r in rejected_claims}
    if unknown:
        raise UsageError(f"proposal {proposal.id} adds no claim {sorted(unknown)[0]}",
                         hint=f"`wikic review show {proposal.id}` lists the claims it adds")
    with writer(root, context.page_types):
        add(root, rejected_claims, rejected_pages)
    out = Rejected(proposal.id, len({r.id for r in rejected_claims}), len(rejected_pages))
    if everything:
        store.remove(root, proposal)
        out.closed = True
    else:  # what is left lands through the compile, which leaves out what was rejected
        proposal.state = "partly rejected"
        store.write_json(root, proposal)
    return out


def _sources_of(text: str | None) -> list[str]:
    """The raw sources a page's frontmatter names."""
    data, _ = split_page(text or "")
    found = data.get("sources") if isinstance(data, dict) else None
    return [s for s in found if isinstance(s, str)] if isinstance(found, list) else []


def _title(text: str | None) -> str:
    data, _ = split_page(text or "")
    return str(data.get("title") or "") if isinstance(data, dict) else ""


def _text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", errors="replace")


def _day(value: str) -> Any:
    import datetime as dt

    return dt.date.fromisoformat(value)
