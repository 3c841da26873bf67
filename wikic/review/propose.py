"""`wikic ingest --review`: the run made in a shadow of the vault, kept as a proposal.

The run is the direct run, step for step (the model asked, anchored, composed, the hubs, index.md, log.md and
the ledgers written), in a shadow of the vault (`shadow.py`) that reads the vault's search index and never
writes it. What it wrote there becomes the proposal (`store.py`), with each source's anchored plan
(`plans.py`), so that a part of it can be compiled again without the model; then the shadow goes.
The vault's own files, its ledgers and its search index are as they were; the model's replies join the
vault's reply cache, as any run's do (they are not counted in log.md until the proposal lands).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from wikic.context import VaultContext
from wikic.ingest.pipeline import IngestOptions, IngestReport, ingest
from wikic.pages.lock import writer
from wikic.progress import ProgressCallback
from wikic.review import store
from wikic.review.shadow import Change, changes, make_shadow, sha
from wikic.review.summary import count_claims
from wikic.vault.layout import RAW_DIR, STATE_DIR, require_vault
from wikic.vault.state import PROPOSALS, REPLY_CACHE
from wikic.vault.write import scratch, write_bytes_atomic

if TYPE_CHECKING:
    from wikic.llm.client import LLM, StreamingLLM
    from wikic.palace import Palace
    from wikic.query.answer import QueryResult
    from wikic.query.writeback import SavedQuery

PLANS_FILE = "plans.json"
SHADOW_DIR = "vault"
# what a run writes under .wikic/ that is the tool's own, not the vault's content: never part of a proposal
_TOOL_STATE = ("cache/", "palace-todo/", "compose-todo/", "llm-endpoints.json", f"{PROPOSALS}/")


class ShadowContext(VaultContext):
    """The shadow's context: the vault's settings, model and search index (read, never written: the shadow's
    run is told not to index), at the shadow's folder."""

    def __init__(self, shadow: Path, vault: VaultContext) -> None:
        super().__init__(shadow, vault.overrides, settings=vault.settings)
        self._vault = vault

    def llm(self) -> StreamingLLM:
        return self._vault.llm()

    def palace(self) -> Palace:
        return self._vault.palace()


@dataclass
class ReviewedRun:
    """A review run: what the run reported, and the proposal it made (None: it would change nothing)."""

    report: IngestReport
    proposal: store.Proposal | None


def shadow_folder(root: Path, proposal_id: str) -> Path:
    return store.folder_of(root, proposal_id) / SHADOW_DIR


def in_shadow(root: Path, shadow: Path, path: str) -> str:
    """An input path as the shadow's run reads it: a file of the vault is the shadow's file of that name."""
    try:
        rel = Path(path).expanduser().resolve().relative_to(root)
    except (ValueError, OSError):
        return path
    return str(shadow / rel)


def propose_ingest(
    context: VaultContext, options: IngestOptions, *, progress: ProgressCallback | None = None,
    llm: LLM | None = None,
) -> ReviewedRun:
    """Run the ingest `options` asks for as a review: the vault unchanged, its changes kept as a proposal."""
    root = Path(context.root).resolve()
    require_vault(root)
    now = dt.datetime.now(dt.UTC)
    proposal_id = store.new_id(now)
    shadow = shadow_folder(root, proposal_id)
    day = options.today or dt.date.today()
    with writer(root, context.page_types):  # a killed run is finished first, and nothing writes while linking
        linked = make_shadow(root, shadow)
    try:
        run = dataclasses.replace(
            options, inputs=[in_shadow(root, shadow, i) for i in options.inputs], today=day, lint_after=False,
            index_after=False, keep_plans=True, review=False, in_review=waiting_in_review(root),
        )
        with ShadowContext(shadow, context) as inside, scratch(shadow):
            report = ingest(inside, run, progress=progress, llm=llm)
        share_replies(root, shadow)
        found = [c for c in changes(root, shadow, linked) if not tool_state(c.path)]
        proposal = None
        # a stopped run proposes what arrived, as a direct one writes it; a run that compiled nothing (its sources
        # unchanged, or waiting in a proposal) proposes nothing, whatever its ledgers noted
        if found and any(s.status == "compiled" for s in report.sources):
            proposal = _proposal(proposal_id, now, day, report, found, options, shadow)
            store.save(root, proposal, found)
            from wikic.review.plans import result_to_json  # here: it imports the extraction, which a run
            # stopped by its configuration never reaches

            plans = {ref: result_to_json(result) for ref, result in report.plans.items()}
            write_bytes_atomic(store.folder_of(root, proposal_id) / PLANS_FILE,
                               json.dumps(plans, ensure_ascii=False).encode("utf-8"), root=root, durable=False)
            store.write_json(root, proposal)  # last: the folder is a proposal once its plans are there too
    except BaseException:
        proposal = None  # a run that failed or was stopped before its proposal was stored leaves no folder
        raise
    finally:
        shutil.rmtree(shadow, ignore_errors=True)
        if proposal is None:
            shutil.rmtree(store.folder_of(root, proposal_id), ignore_errors=True)
    report.proposal = proposal.id if proposal is not None else None
    return ReviewedRun(report, proposal)


def tool_state(path: str) -> bool:
    """Whether `path` is the tool's own state, which no proposal carries (caches, to-dos, lock files)."""
    if not path.startswith(STATE_DIR + "/"):
        return False
    inner = path[len(STATE_DIR) + 1 :]
    return inner.startswith(_TOOL_STATE) or inner.endswith(".lock")


def share_replies(root: Path, shadow: Path) -> None:
    """Copy the replies the shadow's run got into the vault's reply cache (not marked counted: the rows that
    count them land with the proposal)."""
    mine = shadow / STATE_DIR / REPLY_CACHE
    theirs = root / STATE_DIR / REPLY_CACHE
    if not mine.is_dir():
        return
    for folder, _, files in os.walk(mine):
        for name in files:
            source = Path(folder) / name
            target = theirs / source.relative_to(mine)
            if target.exists():
                continue
            try:
                entry = json.loads(source.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(entry, dict):
                entry.pop("counted", None)
                write_bytes_atomic(target, json.dumps(entry, ensure_ascii=False).encode("utf-8"), root=root,
                                   durable=False, private=True)


def waiting_in_review(root: Path) -> dict[str, tuple[str, str]]:
    """The sources of the open proposals: raw path -> (its sha256 then, the proposal)."""
    out: dict[str, tuple[str, str]] = {}
    for proposal in store.listed(root):
        for ref, digest in (proposal.options.get("source_sha") or {}).items():
            if isinstance(digest, str):
                out.setdefault(ref, (digest, proposal.id))
    return out


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _proposal(proposal_id: str, now: dt.datetime, day: dt.date, report: IngestReport, found: list[Change],
              options: IngestOptions, shadow: Path) -> store.Proposal:
    compiled = [s for s in report.sources if s.status == "compiled"]
    added, dropped = count_claims(found)
    totals = report.totals()
    sources = [s.raw_path for s in compiled]
    return store.Proposal(
        id=proposal_id,
        kind="ingest",
        created=now.isoformat(timespec="seconds"),
        day=day.isoformat(),
        sources=sources,
        title=", ".join(sources) if len(sources) <= 3 else f"{', '.join(sources[:3])} and {len(sources) - 3} more",
        pages_created=sorted({p for s in compiled for p in s.created}),
        pages_updated=sorted({p for s in compiled for p in s.updated} - {p for s in compiled for p in s.created}),
        claims_added=added,
        claims_dropped=dropped,
        claims_refused=sum(n for s in compiled for n in s.dropped.values()),
        tokens=int(totals["prompt_tokens"]) + int(totals["completion_tokens"]),
        options={"compose": options.compose, "use_palace": options.use_palace,
                 "raw": [c.path for c in found if c.path.startswith(RAW_DIR + "/")],
                 "source_sha": {ref: sha(_read(shadow / ref)) for ref in sources}},
    )


def ingest_run(context: VaultContext, options: IngestOptions, *, progress: ProgressCallback | None = None,
               llm: LLM | None = None) -> IngestReport:
    """`wikic ingest`, `wikic watch` and MCP `ingest`: the run itself, or, with `--review` (or `[ingest] review
    = true`), its proposal. A dry run and an estimate write nothing anyway, so they are never a review."""
    review = context.settings.ingest.review if options.review is None else options.review
    if review and not (options.dry_run or options.estimate):
        return propose_ingest(context, options, progress=progress, llm=llm).report
    return ingest(context, options, progress=progress, llm=llm)


def watched_run(context: VaultContext, options: IngestOptions, llm: LLM | None) -> IngestReport:
    """One run of `wikic watch` (`ingest_run`)."""
    return ingest_run(context, options, llm=llm)


@dataclass
class Filed:
    """An answer filed (`saved`) or kept for review (`proposal`)."""

    saved: SavedQuery | None = None
    proposal: str | None = None


def file_answer(context: VaultContext, result: QueryResult, *, review: bool | None = None,
                today: dt.date | None = None) -> Filed:
    """`query --save`: file the answer as a query page, or, with `--review` (or `[ingest] review = true`), keep
    the filing as a proposal (its query page, the cited pages' "Asked about" blocks, index.md and log.md)."""
    from wikic.query.writeback import save_answer

    if not (context.settings.ingest.review if review is None else review):
        return Filed(saved=save_answer(context, result, today=today))
    root = Path(context.root).resolve()
    require_vault(root)
    now = dt.datetime.now(dt.UTC)
    proposal_id = store.new_id(now)
    shadow = shadow_folder(root, proposal_id)
    with writer(root, context.page_types):
        linked = make_shadow(root, shadow)
    proposal = None
    try:
        with ShadowContext(shadow, context) as inside, scratch(shadow):
            saved = save_answer(inside, result, today=today)
        found = [c for c in changes(root, shadow, linked) if not tool_state(c.path)]
        if found:
            proposal = store.Proposal(
                id=proposal_id, kind="query", created=now.isoformat(timespec="seconds"),
                day=(today or dt.date.today()).isoformat(), title=result.question,
                pages_created=[saved.path] if saved.created else [],
                pages_updated=sorted({*([] if saved.created else [saved.path]), *saved.asked_pages}),
                tokens=result.tokens, options={"use_palace": True},
            )
            store.save(root, proposal, found)
    finally:
        shutil.rmtree(shadow, ignore_errors=True)
        if proposal is None:
            shutil.rmtree(store.folder_of(root, proposal_id), ignore_errors=True)
    return Filed(saved=None, proposal=proposal.id if proposal is not None else None)
