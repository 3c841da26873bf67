"""`wikic ingest`: capture sources, ask the model for plans (in parallel), compile them (one source at a
time, in the run's order, while later sources are still with the model; see `session.py`), write each
changed file once under the vault lock, with the hubs (the sources' pages, overview.md) and index.md and
log.md in the same journal, keep the palace current, then lint what changed."""

from __future__ import annotations

import dataclasses
import datetime as dt
import difflib
import functools
import posixpath
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikic.context import VaultContext
from wikic.errors import (
    Interrupted,
    LLMError,
    PalaceError,
    UsageError,
    WikicError,
    describe,
    require_extra,
)

require_extra("llm")  # before the imports below need it: numpy, bs4, the model client

from wikic.compile.plan import dropped_claims
from wikic.conversations.intake import ExportReport, bring_in, drain_queue, find_dropped, find_exports
from wikic.conversations.queue import queued
from wikic.ingest import public_fetch
from wikic.ingest.capture import CapturedSource, commit, preview
from wikic.ingest.compiled import Compiled
from wikic.ingest.gate import Gate
from wikic.ingest.inputs import Prepared, read_inputs
from wikic.ingest.pending import SET_ASIDE_NOTE, Unusable, pending_inputs, set_aside
from wikic.ingest.rebuild import ledger_missing, rebuilt_compiled
from wikic.ingest.rejections import load as load_rejections
from wikic.ingest.report import SourceReport, dropped_reasons, log_notes
from wikic.llm.bounded import BoundedLLM
from wikic.pages import journal
from wikic.pages.index_file import bare_index, with_entries
from wikic.pages.lock import vault_lock, writer
from wikic.pages.log_file import row
from wikic.progress import ProgressCallback, ProgressEvent
from wikic.settings import Settings
from wikic.vault.collector import collector_paused
from wikic.vault.formats.compiled import compiled_to_json
from wikic.vault.formats.mentions import mentions_to_json, read_mentions
from wikic.vault.layout import INDEX_FILE, require_own_root_files, require_vault
from wikic.vault.names import LabelIndex, PageNames
from wikic.vault.paths import read_text_inside
from wikic.vault.schema_md import Schema
from wikic.vault.state import compose_todos, drop_compose_todo

if TYPE_CHECKING:  # imported once a run has work for the model: a configuration error is told at once
    from wikic.compile.compiler import Compiler
    from wikic.ingest.extract.prompt import PromptContext
    from wikic.ingest.extract.run import ExtractionResult
    from wikic.ingest.prose_step import Composing
    from wikic.ingest.session import CompileJob, CompileSession, EarlyCompile
    from wikic.llm.cache import ReplyCache
    from wikic.llm.client import LLM

MAX_CONTEXT_PAGES = 40  # pages the model is told about per source: bounded, whatever the wiki's size
MAX_WAITING = 40  # names of the mentions ledger looked for in one source, when the model passed them over
# Postings rows a source's palace search reads at most (its rarest terms first): a whole source as the query
# would otherwise read every page's postings of its common words, a cost that grows with the palace.
SEARCH_POSTINGS = 4096


# A source -> the existing pages the model is told about for it, and their claims.
_Relate = Callable[["CapturedSource"], tuple[list[str], list[str]]]


@dataclass
class IngestOptions:
    inputs: Sequence[str] = ()  # none: every file in raw/ not compiled yet
    kind: str | None = None
    encoding: str | None = None  # the inputs' text encoding, when detection cannot tell
    worked_example: bool = True  # show the model a short source and its correct reply (see ingest.extract.prompt)
    dry_run: bool = False
    estimate: bool = False
    max_tokens: int | None = None  # stop scheduling new sources once this many tokens were spent
    use_cache: bool = True
    force: bool = False  # recompile sources already compiled
    use_palace: bool = True
    lint_after: bool = True
    today: dt.date | None = None
    compose: bool | None = None  # write the changed pages' claims as checked prose (None: `[llm] compose`)
    # a client's ingest (the MCP tool): its URLs reach public addresses only, redirects included, but those
    # under these prefixes; None: a person's own URLs, fetched as urllib does
    client_url_allow: Sequence[str] | None = None
    review: bool | None = None  # keep the changes as a proposal, the vault unchanged (None: `[ingest] review`)
    index_after: bool = True  # bring the search index up to date after writing (a review's shadow: never)
    keep_plans: bool = False  # keep each source's anchored plan in the report (a review keeps them)
    # the model judges each anchored claim against its quote, and each composed sentence against its claims,
    # before they are written: one it finds unsupported or contradicted is kept out (`compile/judge.py`);
    # None: as `[ingest] judge` says
    judge: bool | None = None
    # each source's anchored plan, by raw path, compiled instead of asking the model (an accepted proposal's)
    plans: Mapping[str, ExtractionResult] | None = None
    gate: Gate | None = None  # what is kept out of each plan (None: what the vault's rejections name)
    # raw path -> (its sha256, the open proposal it waits in): passed over unless forced, as a compiled source is
    in_review: Mapping[str, tuple[str, str]] = field(default_factory=dict)


@dataclass
class IngestReport:
    sources: list[SourceReport] = field(default_factory=list)
    diffs: list[str] = field(default_factory=list)  # dry run
    lint: Any = None  # LintReport of the link rules after writing
    dry_run: bool = False
    estimate: bool = False
    resumed: list[str] = field(default_factory=list)  # sources whose killed run this one finished (journal)
    # sources recorded as compiled from the pages that cite them, the compiled ledger being gone (`rebuild.py`)
    rebuilt: list[str] = field(default_factory=list)
    converted: dict[str, str] = field(default_factory=dict)  # text path -> the encoding its original was in
    # Ctrl-C: "extract" (the finished sources were compiled, the rest not) or "palace" (everything compiled,
    # the search index not brought up to date); the next run finishes either
    interrupted: str | None = None
    palace_leftover: int = 0  # files an interrupted run had left for the search index, indexed by this one
    conversations: list[ExportReport] = field(default_factory=list)  # exports and captures turned into transcripts
    entity_min_references: int = 2  # SCHEMA.md's, for the advice a thin run gets
    composed: Composing | None = None  # the changed pages written as prose (`compile/prose.py`)
    hubs: list[str] = field(default_factory=list)  # the hubs the run wrote: source pages, overview.md
    plans: dict[str, ExtractionResult] = field(default_factory=dict)  # `keep_plans`: each source's, by raw path
    proposal: str | None = None  # a review: the proposal the run made (None: it would change nothing)

    @property
    def created(self) -> list[str]:
        return [p for s in self.sources for p in s.created]

    @property
    def updated(self) -> list[str]:
        return [p for s in self.sources for p in s.updated]

    def advice(self) -> str | None:
        """One line for a run that ends with more names waiting than pages written: what the model found,
        what waits and what was refused, and what to try. None when the run needs none."""
        compiled = [s for s in self.sources if s.status == "compiled"]
        waiting = {name for s in compiled for name in s.pending}
        pages = len(set(self.created)) + len(set(self.updated))
        if len(waiting) < 3 or pages >= len(waiting):
            return None
        refused: dict[str, int] = {}
        for s in compiled:
            for reason, n in dropped_claims(s.dropped).items():
                refused[reason] = refused.get(reason, 0) + n
        said = f", {sum(refused.values())} claim(s) refused ({dropped_reasons(refused)})" if refused else ""
        tries = ["a larger model", "--strategy two-pass (with --force to compile these sources again)"]
        if self.entity_min_references > 1:
            tries.insert(0, "entity_min_references: 1 in SCHEMA.md for a small vault")
        return (
            f"few pages for the names found: {len(waiting) + pages} name(s), {pages} with a page, "
            f"{len(waiting)} waiting for more sources (entity_min_references: {self.entity_min_references}){said}. "
            f"To try: {', '.join(tries)}"
        )

    @property
    def failed(self) -> list[SourceReport]:
        return [s for s in self.sources if s.status == "failed"]

    @property
    def empty(self) -> list[SourceReport]:
        """Sources compiled into nothing although they name things: the model failed on them."""
        return [s for s in self.sources if s.nothing_extracted]

    @property
    def skipped(self) -> list[SourceReport]:
        """Sources left for a later run because `--max-tokens` was reached."""
        return [s for s in self.sources if s.status == "over-budget"]

    @property
    def written(self) -> set[str]:
        return {p for s in self.sources for p in (*s.created, *s.updated)}

    def lint_errors_in_written(self) -> list[Any]:
        """Error-level lint findings in what this run wrote (a page it wrote, or index.md's line for one):
        errors the vault had before are the user's to fix, not this run's failure."""
        if self.lint is None:
            return []
        written = self.written
        stems = {p[:-3] for p in written} | {posixpath.basename(p)[:-3] for p in written}
        return [
            f
            for f in self.lint.findings
            if f.severity == "error" and (f.path in written or (f.path == INDEX_FILE and f.target in stems))
        ]

    def exit_code(self) -> int:
        """0: every source compiled (or unchanged); 1: a source failed, was left for later (budget), or gave
        nothing although it names things, or the run wrote something lint calls an error; 130: interrupted."""
        if self.interrupted:
            return Interrupted.exit_code
        return 1 if self.failed or self.skipped or self.empty or self.lint_errors_in_written() else 0

    def totals(self) -> dict[str, Any]:
        cost_values = [s.cost for s in self.sources if s.cost is not None]
        return {
            "sources": len(self.sources),
            "compiled": sum(1 for s in self.sources if s.status == "compiled"),
            "unchanged": sum(1 for s in self.sources if s.status == "unchanged"),
            "failed": len(self.failed),
            "skipped": len(self.skipped),
            "nothing_extracted": len(self.empty),
            "interrupted": sum(1 for s in self.sources if s.status == "interrupted"),
            "created": len(self.created),
            "updated": len(set(self.updated)),
            "calls": sum(s.calls for s in self.sources),
            "prompt_tokens": sum(s.prompt_tokens for s in self.sources),
            "completion_tokens": sum(s.completion_tokens for s in self.sources),
            # of those, the tokens of cached replies an earlier run paid for and wrote no row for
            "earlier_tokens": sum(s.earlier_tokens for s in self.sources),
            "cost": round(sum(cost_values), 6) if cost_values else None,
        }

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "totals": self.totals(),
            "sources": [s.to_dict() for s in self.sources],
            "dry_run": self.dry_run,
        }
        if self.diffs:
            out["diff"] = "".join(self.diffs)
        if self.proposal is not None:
            out["proposal"] = self.proposal
        if self.lint is not None:
            out["lint"] = self.lint.summary() | {"findings": [f.to_dict() for f in self.lint.findings]}
        if self.resumed:
            out["resumed"] = self.resumed
        if self.rebuilt:
            out["rebuilt"] = self.rebuilt
        if self.composed is not None:
            out["composed"] = self.composed.to_dict()
        if self.hubs:
            out["hubs"] = self.hubs
        advice = self.advice()
        if advice:
            out["advice"] = advice
        if self.converted:
            out["converted"] = self.converted
        if self.interrupted:
            out["interrupted"] = self.interrupted
        if self.palace_leftover:
            out["palace_leftover"] = self.palace_leftover
        if self.conversations:
            out["conversations"] = [c.to_dict() for c in self.conversations]
        return out


class _ChunkCount:
    """Chunks answered so far, counted from the worker threads and reported from the thread that waits for
    them, so a progress callback never runs on a worker."""

    def __init__(self, total: int, progress: ProgressCallback | None) -> None:
        self.total = total
        self._done = 0
        self._tokens = 0  # reply tokens received so far: a slow local model shows it is writing
        self._shown: tuple[int, int] = (-1, -1)
        self._lock = threading.Lock()
        self._progress = progress

    def add(self) -> None:
        with self._lock:
            self._done += 1

    def add_tokens(self, count: int) -> None:
        with self._lock:
            self._tokens += count

    def wait(self, futures: list[Future[None]], meanwhile: Callable[[], None] | None = None) -> None:
        """Wait for `futures` (re-raising what a worker raised), reporting progress and calling `meanwhile`
        each time one ends or a tenth of a second passes. The short timeout also keeps the wait responsive
        to Ctrl-C."""
        pending = set(futures)
        while True:
            if meanwhile is not None:
                meanwhile()
            self._report()
            if not pending:
                break
            _, pending = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
        for future in futures:
            future.result()

    def _report(self) -> None:
        now = (self._done, self._tokens)
        if self._progress is not None and now != self._shown:
            self._shown = now
            self._progress(ProgressEvent("extract", now[0], self.total, "chunks", tokens=now[1]))


def prompt_context(schema: Schema, *, worked_example: bool = True) -> PromptContext:
    from wikic.ingest.extract.prompt import PromptContext

    return PromptContext(domain=schema.domain, tags=schema.tags, prose=schema.prose(), worked_example=worked_example)


def relevant_pages(
    context: VaultContext, source: CapturedSource, names: PageNames, use_palace: bool,
    labels: LabelIndex | None = None, searching: AbstractContextManager[Any] | None = None,
) -> list[str]:
    """Titles of existing pages that matter to `source`: named in it, or close to it in the palace.
    The list is capped, so the prompt does not grow with the wiki, and so is the work of finding it: the
    names are looked up in `labels` (the run's index of `names`, made here when not given), and the palace
    search reads the postings of the source's rarest terms only (`SEARCH_POSTINGS`). The run's threads
    search one at a time under `searching`, the run's own lock: not the context's `palace_lock`, which the
    caller may hold for the whole run (the MCP server's tools do) while these threads search for it."""
    labels = labels if labels is not None else LabelIndex(names.labels)
    found = [names.titles[path] for path in labels.named_in(source.text, MAX_CONTEXT_PAGES // 2)]
    if use_palace:
        try:
            from wikic.palace import search
            from wikic.palace.hybrid import Retrieval

            query = f"{source.title}\n{source.text[:2000]}"
            with searching if searching is not None else nullcontext():
                palace = context.palace()
                bounded = dataclasses.replace(Retrieval.of(palace.settings), postings=SEARCH_POSTINGS)
                hits = search(palace, query, k=MAX_CONTEXT_PAGES // 2, retrieval=bounded)
            for hit in hits:
                hit_path = getattr(hit, "path", None)
                if hit_path in names.titles:
                    found.append(names.titles[hit_path])
        except (PalaceError, ImportError, OSError):
            pass  # no palace yet: name matching alone still bounds the context
    return list(dict.fromkeys(found))[:MAX_CONTEXT_PAGES]


def ingest(
    context: VaultContext, options: IngestOptions, *, llm: LLM | None = None,
    progress: ProgressCallback | None = None,
) -> IngestReport:
    """Capture, extract, compile and index `options.inputs`; `progress` receives ProgressEvents (on this thread).

    Ctrl-C (KeyboardInterrupt) while the model is asked stops at once: no new call starts, calls in flight
    are abandoned, the sources whose extraction finished are compiled and written as usual, and the report
    says `interrupted`; Ctrl-C while the search index is updated leaves that work to the next run.
    """
    return _ingest(context, options, llm, progress)


@dataclass
class _Run:
    """One ingest's state, which its phases share: what it reads, the model once made, and its report."""

    context: VaultContext
    options: IngestOptions
    progress: ProgressCallback | None
    llm: LLM | None
    root: Path
    schema: Schema
    settings: Settings
    today: dt.date
    report: IngestReport
    shown: set[str] = field(default_factory=set)  # the sources whose "compiled" progress event was sent

    @property
    def previewing(self) -> bool:
        """A dry run or an estimate: nothing is written."""
        return self.options.dry_run or self.options.estimate

    @property
    def page_types(self) -> list[str]:
        return list(self.schema.page_folders)


def _ingest(
    context: VaultContext, options: IngestOptions, llm: LLM | None, progress: ProgressCallback | None
) -> IngestReport:
    """The phases of a run: gather the sources, then estimate them, or extract, write and finish after."""
    root = Path(context.root).resolve()
    require_vault(root)
    require_own_root_files(root)
    schema = context.checked_schema()  # a SCHEMA.md ingest cannot read as meant stops it before anything is read
    settings = context.settings
    if options.use_palace:  # the search index gives each source its context, and takes the pages written
        require_extra("palace", instead="pass --no-palace to ingest without the search index")
        settings.embedding.sendable_key()  # a key that may not go to the embedding endpoint: said before capture
    today = options.today or dt.date.today()
    report = IngestReport(dry_run=options.dry_run, estimate=options.estimate,
                          entity_min_references=schema.thresholds["entity_min_references"])
    if options.judge is None:
        options = dataclasses.replace(options, judge=settings.ingest.judge)
    run = _Run(context, options, progress, llm, root, schema, settings, today, report)
    sources, todo = _gather(run)
    composing = (settings.llm.compose if options.compose is None else options.compose) and not run.previewing
    if not todo:
        if not run.previewing:
            composed = _compose_left(context, report, today, run.llm, judge=bool(options.judge)) if composing else []
            if options.use_palace and options.index_after:
                _update_palace(context, report, composed, progress)
        return report
    _compile(run, sources, todo, composing)
    return report


def _gather(run: _Run) -> tuple[list[CapturedSource], list[CapturedSource]]:
    """Finish a killed run's write, read the inputs (or what raw/ holds), capture them unless previewing, and
    sort them: the run's sources, and those of them to compile (the others are reported here)."""
    root, options, report = run.root, run.options, run.report
    if journal.pending(root) and not run.previewing:
        with writer(root, run.page_types) as resumed:  # a run killed while writing: finished before judging anything
            report.resumed = resumed
    prepared, unusable = _read_sources(run)
    # an export that could not be read failed alone: the rest of the batch (its own earlier transcripts too) goes on
    report.sources += [SourceReport(c.origin, "", "failed", error=c.error) for c in report.conversations if c.error]
    # Nothing is captured before the run can compile it: not for an estimate or a dry run, and not when
    # the model is not configured (a configuration error then leaves raw/ as it was).
    compiled = Compiled.load(root)
    # a clone or a sync that left .wikic/ behind: what the pages say was compiled, not everything again
    rebuilt = rebuilt_compiled(root, run.today.isoformat(), run.schema) if prepared and ledger_missing(root) else None
    if rebuilt is not None:
        compiled = rebuilt
    planned = preview(root, prepared)
    needs_model = any(
        s.text_path and (options.force or not compiled.is_current(s.text_path, s.sha256)) for s in planned
    )
    if needs_model and run.llm is None and not options.estimate:
        run.llm = run.context.llm()
    if rebuilt is not None and rebuilt.entries and not run.previewing:
        with vault_lock(root):
            if ledger_missing(root):
                rebuilt.save()
                report.rebuilt = sorted(rebuilt.entries)
    sources = planned if run.previewing else commit(root, prepared, day=options.today)
    if not options.inputs and not run.previewing:
        # the run goes on (its configuration held): this report is the one that tells of the files refused,
        # and the next runs pass over them until they change
        set_aside(root, unusable, run.today)
    # converted by this run: a source read again (a retry, named again) was converted when it was captured
    report.converted = {s.text_path: s.encoding for s in sources if s.new and s.text_path and s.encoding != "utf-8"}
    todo: list[CapturedSource] = []
    for src in sources:
        ref = src.text_path or src.raw_path
        if not src.text_path:
            report.sources.append(SourceReport(src.raw_path, src.title, "asset"))
        elif compiled.is_current(ref, src.sha256) and not options.force:
            report.sources.append(SourceReport(ref, src.title, "unchanged"))
        elif ref in options.in_review and options.in_review[ref][0] == src.sha256 and not options.force:
            report.sources.append(SourceReport(ref, src.title, "in review",
                                               error=f"waits in proposal {options.in_review[ref][1]}"))
        else:
            todo.append(src)
    return sources, todo


def _read_sources(run: _Run) -> tuple[list[Prepared], list[Unusable]]:
    """The run's inputs read, conversation exports among them turned into transcripts first; with no input,
    what raw/ holds and is not compiled (the capture queue and exports dropped there brought in first), and
    the raw/ files refused."""
    root, options, report, settings = run.root, run.options, run.report, run.settings
    if not options.inputs:
        if not run.previewing:
            run.llm = _bring_in_waiting(run.context, report, run.llm, run.progress)
        prepared, unusable = pending_inputs(root, settings.ingest)
        for u in unusable:
            notes = "; ".join(n for n in (u.hint, SET_ASIDE_NOTE if u.stamp and not run.previewing else None) if n)
            report.sources.append(SourceReport(u.path, "", u.status, error=u.error + (f" ({notes})" if notes else "")))
        return prepared, unusable
    found, refused = find_exports(options.inputs)
    if found and run.previewing:
        raise UsageError(
            f"{found[0].path}: a conversation export cannot be previewed (--dry-run, --estimate)",
            hint="ingest it; each conversation becomes a transcript in raw/transcripts/ and compiles then",
        )
    exports = {str(item.path) for item in found} | {r.origin for r in refused}
    inputs = [i for i in options.inputs if str(Path(i).expanduser()) not in exports]
    # the other sources are read first: one that cannot be read stops the run before a transcript is written
    opener = None if options.client_url_allow is None else public_fetch.opener(options.client_url_allow)
    prepared = (
        read_inputs(root, inputs, kind=options.kind, settings=settings.ingest, encoding=options.encoding,
                    opener=opener)
        if inputs
        else []
    )
    report.conversations = list(refused)
    if found:
        run.llm = run.llm or run.context.llm()  # a configuration error before any transcript is written
        intake = bring_in(root, found, progress=run.progress)
        report.conversations += intake.reports
        transcripts = [str(root / p) for p in intake.transcripts]
        if transcripts:
            prepared += read_inputs(root, transcripts, kind=options.kind, settings=settings.ingest,
                                    encoding=options.encoding)
    return prepared, []


def _compile(run: _Run, sources: list[CapturedSource], todo: list[CapturedSource], composing: bool) -> None:
    """What follows the gathering for the sources to compile: their estimate, or their extraction, the
    pages written, and what comes after (composing, the search index, lint)."""
    from wikic.facts.lookup import listed_claims
    from wikic.ingest.session import CompileJob, EarlyCompile, read_vault
    from wikic.llm.cache import ReplyCache

    root, options = run.root, run.options
    reading = read_vault(root, run.schema)  # once: the relevant pages and the compile are found from it
    names = reading.names
    with collector_paused():  # a label index of every page's names: many small objects, none of them garbage
        labels = LabelIndex(names.labels)
    waiting = _waiting_names(root)
    prompt = prompt_context(run.schema, worked_example=options.worked_example)
    cache = ReplyCache.for_vault(root, read=options.use_cache, batched=True)
    told: dict[str, int] = {}  # raw path -> how many existing pages the model is told about
    found: dict[str, tuple[list[str], list[str]]] = {}
    searching = threading.Lock()

    def relate(src: CapturedSource) -> tuple[list[str], list[str]]:
        """The existing pages the model is told about for `src`, and their claims (a worker's first step)."""
        if src.raw_path not in found:
            titles = relevant_pages(run.context, src, names, options.use_palace, labels, searching)
            told[src.raw_path] = len(titles)
            found[src.raw_path] = (titles, listed_claims(root, names, titles))
        return found[src.raw_path]

    if options.estimate:
        _estimate(run, todo, prompt, relate, cache)
        return
    # the first source's, on this thread: what every search needs (the palace open, its modules imported,
    # the embedding model loaded) is there before the workers start, which then import nothing
    relate(todo[0])
    run.llm = BoundedLLM(run.llm or run.context.llm(), run.settings.llm.concurrency)
    gate = options.gate if options.gate is not None else Gate(load_rejections(root))
    job = CompileJob(root, run.schema, run.settings, run.today, options.force, options.dry_run, told, reading,
                     gate=gate if gate else None)
    early = EarlyCompile(job, todo)
    results = _extract(run, run.llm, todo, prompt, relate, cache, early, waiting, len(sources))
    written = _write(run, sources, todo, results, early, job, composing, cache)
    if written is not None:
        _after(run, *written, composing, cache)


def _estimate(run: _Run, todo: list[CapturedSource], prompt: PromptContext, relate: _Relate,
              cache: ReplyCache) -> None:
    """What extracting each source would cost, without a model call: its report entry. Its prompts are counted
    by the endpoint's tokenizer when the model is configured and its server has one, else estimated."""
    from wikic.ingest.extract.run import estimate_extraction

    llm = run.llm
    if llm is None:
        try:
            llm = run.context.llm()  # made, not asked: an estimate needs no model, only its tokenizer
        except WikicError:
            llm = None  # no model configured (or its extra): the prompts are estimated
    for src in todo:
        titles, claims = relate(src)
        est = estimate_extraction(
            src, context=prompt, existing_pages=titles, existing_claims=claims,
            settings=run.settings, llm=llm, cache=cache,
        )
        r = SourceReport(
            src.text_path,
            src.title,
            "estimated",
            prompt_tokens=est.prompt_tokens,
            completion_tokens=est.max_completion_tokens,
            calls=est.chunks - est.cached_chunks,
            cached_calls=est.cached_chunks,
            cost=est.max_cost,
            context_pages=len(titles),
            prompt_counted=est.counted,
        )
        run.report.sources.append(r)


def _waiting_names(root: Path) -> Callable[[CapturedSource], list[str]]:
    """The names waiting in the mentions ledger that a source writes (each found once, by `LabelIndex`)."""
    entries = read_mentions(root)
    labels = LabelIndex({key: [e.name, *e.aliases] for key, e in entries.items()})
    return lambda src: [entries[key].name for key in labels.named_in(src.text, MAX_WAITING)]


def _extract(run: _Run, llm: BoundedLLM, todo: list[CapturedSource], prompt: PromptContext, relate: _Relate,
             cache: ReplyCache, early: EarlyCompile, waiting: Callable[[CapturedSource], list[str]], total: int,
             ) -> dict[str, ExtractionResult | Exception]:
    """Ask the model for each source's plan, in parallel and within the token budget, compiling what is ready
    meanwhile (each source's progress event sent as it is compiled, of `total`); each source's plan, or the
    error that failed it. Each worker first finds its source's relevant pages (`relate`), beside the other
    workers' model calls. Ctrl-C stops the asking (the report says so)."""
    from wikic.compile.judge import judge_plan
    from wikic.ingest.extract.run import ExtractionResult, extract_plan, source_chunks
    from wikic.ingest.workers import DaemonPool

    options, settings = run.options, run.settings
    spent = 0
    results: dict[str, ExtractionResult | Exception] = {}
    chunks = {src.raw_path: source_chunks(src, settings) for src in todo}
    answered = _ChunkCount(sum(len(c) for c in chunks.values()), run.progress)

    def extract_one(src: CapturedSource) -> None:
        if options.plans is not None and src.raw_path in options.plans:
            results[src.raw_path] = options.plans[src.raw_path]  # the plan a proposal had: no model asked
            return
        try:
            titles, claims = relate(src)
            result = extract_plan(
                llm, src, context=prompt, existing_pages=titles, existing_claims=claims, settings=settings,
                cache=cache, chunks=chunks[src.raw_path], on_chunk=answered.add, on_tokens=answered.add_tokens,
                known_names=waiting(src),
            )
            if options.judge:
                result = dataclasses.replace(result, plan=judge_plan(result.plan, llm, cache, usage=result.usage))
            results[src.raw_path] = result
        except LLMError as exc:
            results[src.raw_path] = exc
        except Exception as exc:  # noqa: BLE001 - a bug met by one source's reply fails that source alone
            results[src.raw_path] = RuntimeError(describe(exc))

    def meanwhile() -> None:
        # between replies: compile what is ready and say so, and make the replies cached so far durable in one
        # batch (a source compiled now is written once the model is done, or at once when the run is stopped)
        early.advance(results)
        if not options.dry_run:
            _show_compiled(run, early.compiled(), total)
        cache.sync()

    pool = DaemonPool(max(1, settings.llm.concurrency), "wikic-ingest")
    try:
        futures = []
        for src in todo:
            if options.max_tokens is not None and spent >= options.max_tokens:
                break
            futures.append(pool.submit(extract_one, src))
            if options.max_tokens is not None:
                # a budget needs to know what was spent before the next source starts
                answered.wait([futures[-1]], meanwhile)
                got = results.get(src.raw_path)
                if isinstance(got, ExtractionResult):
                    spent += got.usage.prompt_tokens + got.usage.completion_tokens
        answered.wait(futures, meanwhile)
    except KeyboardInterrupt:
        # Ctrl-C: no call starts from here on, the calls in flight are abandoned (their threads end with the
        # process), and what finished before is compiled below. A finished reply is in the cache anyway.
        llm.stop()
        pool.shutdown(wait=False, cancel_futures=True)
        results = dict(results)  # a call still in flight may finish later: it is not this run's any more
        run.report.interrupted = "extract"
    else:
        pool.shutdown()
    finally:
        cache.sync()
    return results


def _write(run: _Run, sources: list[CapturedSource], todo: list[CapturedSource],
           results: dict[str, ExtractionResult | Exception], early: EarlyCompile, job: CompileJob,
           composing: bool, cache: ReplyCache) -> tuple[list[str], str | None] | None:
    """As the vault's writer: compile the plans and write the pages through the journal (a dry run: their
    diffs, and None), then mark the replies the log rows counted. The paths the run touched, and its
    journal run."""
    from wikic.ingest.session import CompileSession

    root, options, report, schema = run.root, run.options, run.report, run.schema
    # a run killed while this one was extracting is finished first; the collector waits while the sources are
    # compiled and the hubs planned over the vault in memory (`collector_paused`), as it does for lint
    with writer(root, run.page_types, recover=not options.dry_run, tidy=True) as resumed, collector_paused():
        report.resumed += resumed
        # what was compiled during extraction stands if the vault is still what it read; else all again
        session = early.take() or CompileSession(job)
        session.finish(todo, results, interrupted=report.interrupted is not None)
        if options.keep_plans:
            report.plans = {ref: got for ref, got in results.items() if not isinstance(got, Exception)}
        _add_reports(run, session.reports, len(sources), written=not options.dry_run)
        if options.dry_run:
            report.diffs = _diffs(session.compiler, root, schema)
            return None
        # every source of this run is indexed, also one that was already in raw/ (capture did not copy it)
        compiled_refs = {s.raw_path for s in report.sources if s.status == "compiled"}
        sources_touched = {
            p for s in sources for p in (s.raw_path, s.text_path) if p and (s.new or s.text_path in compiled_refs)
        }
        # a page removed is touched too: the palace drops what it held of it
        touched = sorted({p for s in report.sources for p in (*s.created, *s.updated, *s.removed)} | sources_touched)
        run_id: str | None = None
        if session.recorded:
            plan, report.hubs = _plan_run(root, session, schema, run.today)
            plan_pages = sorted(set(plan.pages) & set(session.compiler.texts))  # the hubs are composed by no one
            plan.palace = [*touched, INDEX_FILE] if options.use_palace and options.index_after else []
            plan.compose = plan_pages if composing else []  # composed next, or by the next run if this one stops
            plan.commit(root, run.page_types)
            run_id = plan.run
            # each reply's cost is counted once: by the row of the first source compiled with it
            cache.mark_counted((key for ref in session.recorded for key in session.replies.get(ref, ())), run_id)
        session.compiler.dedup.keep()  # the memory vectors embedded meanwhile, for the next runs
    return touched, run_id


def _after(run: _Run, touched: list[str], run_id: str | None, composing: bool, cache: ReplyCache) -> None:
    """After the pages are written: compose them, index what the run touched, lint the links (an interrupted
    run leaves the index and lint to the next)."""
    report = run.report
    if composing and not report.interrupted:
        touched = sorted({*touched, *_compose_left(run.context, report, run.today, run.llm, cache,
                                                   judge=bool(run.options.judge))})
    indexing = run.options.use_palace and run.options.index_after and bool(touched) and not report.interrupted
    lint = None
    if run.options.lint_after and not report.interrupted:
        from wikic.lint.run import LintOptions, run_lint

        # the whole lint, as `wikic lint` runs it: the run's closing line counts what that would report
        lint = functools.partial(run_lint, run.context, LintOptions(use_cache=True, today=run.today))
    linted: Future[Any] | None = None
    if lint is not None and indexing:
        # Lint reads the pages alone, never the search index: it runs in a thread beside the index update,
        # which is mostly a wait for chromadb in a process of its own. (A thread, not a process: lint then
        # parses and checks in one process, as a thread beside it rules out the forks it makes alone.)
        from wikic.lint.run import import_ahead

        import_ahead()  # here: the lint's thread imports nothing
        pool = ThreadPoolExecutor(1, thread_name_prefix="wikic-lint")
        linted = pool.submit(lint)
        pool.shutdown(wait=False)  # after Ctrl-C here the lint ends on its own (the process waits for it at exit)
    if indexing:
        _update_palace(run.context, report, [*touched, INDEX_FILE], run.progress, run=run_id)
    if report.interrupted:
        return  # at once: the search index (its to-do is kept) and lint wait for the next run
    if lint is not None:
        report.lint = linted.result() if linted is not None else lint()
        if report.lint_errors_in_written():
            # lint reads without the vault lock: another process's write, half applied while it read (a page
            # written, the page it links to not yet), looks like an error in this run's pages. Such an error
            # is checked again while no writer is at work.
            with vault_lock(run.context.root):
                report.lint = lint()


def _compose_left(
    context: VaultContext, report: IngestReport, today: dt.date, llm: LLM | None, cache: ReplyCache | None = None,
    *, judge: bool = False,
) -> list[str]:
    """Write as prose the pages runs wrote and did not compose yet (this run's, and any a killed or stopped
    run left: `.wikic/compose-todo/`), then drop those to-dos; the pages it changed. A page that no longer
    exists, or has nothing to compose, is passed over."""
    root, settings = Path(context.root).resolve(), context.settings
    todos = compose_todos(root)
    pages = sorted({p for _, paths in todos for p in paths if (root / p).is_file()})
    if pages:
        from wikic.ingest.prose_step import compose_run

        if llm is None:
            llm = context.llm()
        if cache is None:
            from wikic.llm.cache import ReplyCache

            cache = ReplyCache.for_vault(root, read=True, batched=True)
        report.composed = compose_run(root, llm, cache, context.schema, pages, today=today,
                                      max_tokens=settings.llm.max_output_tokens, page_types=context.page_types,
                                      concurrency=settings.llm.concurrency, judge=judge)
    for todo, _ in todos:
        drop_compose_todo(todo)
    return report.composed.pages if report.composed is not None else []


def _bring_in_waiting(context: VaultContext, report: IngestReport, llm: LLM | None,
                      progress: ProgressCallback | None) -> LLM | None:
    """Before compiling what raw/ holds: turn the capture queue and conversation exports dropped into raw/
    into transcripts (the model's configuration is checked first, so an error leaves raw/ as it was)."""
    root = Path(context.root).resolve()
    dropped = find_dropped(root)
    if not dropped and not queued(root):
        return llm
    llm = llm or context.llm()
    report.conversations = (
        drain_queue(root, progress=progress).reports + bring_in(root, dropped, progress=progress).reports
    )
    return llm


def _add_reports(run: _Run, reports: list[SourceReport], total: int, *, written: bool) -> None:
    """Add the compiled sources' reports, each written one shown as progress (unless it was as it compiled)."""
    run.report.sources += reports
    if written:
        _show_compiled(run, reports, total)


def _show_compiled(run: _Run, reports: Sequence[SourceReport], total: int) -> None:
    """A progress event for each source of `reports` compiled and not shown yet: how many of the run's `total`
    sources are done, those found unchanged and those compiled so far. Not a place in the report, which also
    lists what was refused before the count began (a file set aside, an export that could not be read)."""
    if run.progress is None:
        return
    settled = sum(1 for r in run.report.sources if r.status in ("unchanged", "asset"))
    for r in reports:
        if r.status == "compiled" and r.raw_path not in run.shown:
            run.shown.add(r.raw_path)
            run.progress(ProgressEvent("write", settled + len(run.shown), total, "sources", note=r.raw_path))


def _plan_run(
    root: Path, session: CompileSession, schema: Schema, today: dt.date
) -> tuple[journal.Journal, list[str]]:
    """What the run writes, as a journal: each changed page once (a page that several sources touch is
    written with all of them, not once per source: every write is an fsync), the hubs as those pages leave
    the vault (each compiled source's page, the overview), the index.md entries of every page written, the
    ledgers' new state and one log row per source, linking its source page and the pages it wrote."""
    from wikic.hubs import HubPlanner

    compiler = session.compiler
    plan = journal.Journal()
    changed: dict[str, str | None] = {}
    for path, text in compiler.texts.items():
        if compiler.originals.get(path) != text:
            plan.add_page(path, compiler.originals.get(path), text)
            changed[path] = compiler.originals.get(path)
    for path in compiler.removed:  # pages named by a word that is no subject, with nothing left on them
        before = compiler.originals.get(path)
        if before is not None:
            plan.remove_page(path, before, compiler.link_text(path))
    compiled = {ref: session.compiled.entries[ref] for ref in session.recorded}
    plan.compiled = compiled_to_json(compiled)
    plan.mentions = mentions_to_json(session.mentions.items)
    hubs = HubPlanner(root, schema, today, planned={p: compiler.texts[p] for p in changed},
                      compiled=compiled, mentions=session.mentions.items, vault=compiler.disk_vault(),
                      removed=list(compiler.removed))
    # the sources compiled, and every source whose part of a page written changed: a page promoted from the
    # mentions ledger, or one a source joined, is a page its earlier sources fed too
    cited = hubs.sources_shown_otherwise(changed)
    pages = hubs.source_pages([*session.recorded, *cited])
    hubs.render_sources()  # their titles, before the rows link them
    reports = {r.raw_path: r for r in session.reports}
    rows = [
        row(today, "ingest", hubs.link(pages[ref]) if ref in pages else ref, log_notes(reports[ref], hubs.link))
        for ref in session.recorded
    ]
    hubs.log(rows)
    written = hubs.plan(changed=changed)
    for path, (before, text) in written.pages.items():
        plan.add_page(path, before, text)
    plan.add_index(written.entries, written.was)
    plan.add_log(root, rows)
    return plan, sorted(written.pages)


def _update_palace(
    context: VaultContext, report: IngestReport, paths: list[str], progress: ProgressCallback | None, *,
    run: str | None = None,
) -> None:
    """Index `paths`, and whatever a killed run left to index; a failure is reported, never fatal; Ctrl-C
    leaves the work (its to-do) for the next run."""
    from wikic.palace.todo import update_palace

    try:
        report.palace_leftover = update_palace(Path(context.root).resolve(), paths, context.palace, run=run,
                                               progress=progress)
    except KeyboardInterrupt:
        report.interrupted = "palace"
    except (PalaceError, ImportError, OSError) as exc:
        for s in report.sources:
            s.dropped_items.append(f"palace not updated: {exc}")


def _diffs(compiler: Compiler, root: Path, schema: Schema) -> list[str]:
    out = []
    for path, text in sorted(compiler.texts.items()):
        before = compiler.originals.get(path) or ""
        out.append(
            "".join(difflib.unified_diff(before.splitlines(True), text.splitlines(True), f"a/{path}", f"b/{path}"))
        )
    if compiler.index_entries:
        current = read_text_inside(root, root / INDEX_FILE)
        current = bare_index() if current is None else current
        new = with_entries(current, compiler.index_entries, list(schema.page_folders))
        out.append(
            "".join(
                difflib.unified_diff(
                    current.splitlines(True), new.splitlines(True), f"a/{INDEX_FILE}", f"b/{INDEX_FILE}"
                )
            )
        )
    return out
