"""The report made: lint's run (its report cache and parsed vault) gives what lint already judges (a lead, broken
links, orphans, contradictions, sources changed since capture); each subject page is read once for the rest
(`reading.py`: in lint's parse where lint parses it, else here), and what a page alone gives is kept in
`.wikic/cache/eval-pages.json` while the page is unchanged, beside what its anchors gave while the raw files
they cite are unchanged too; the ledgers give what the runs refused and the names waiting.
"""

from __future__ import annotations

import datetime as dt
import os
import posixpath
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikic.compile.plan import UNSUPPORTED_SUMMARY
from wikic.context import VaultContext
from wikic.errors import UsageError
from wikic.evaluation import checks
from wikic.evaluation.reading import PageReader
from wikic.evaluation.records import AnchorsChecked, PageCache, PageRead, PageRecord
from wikic.evaluation.report import EvalReport, Figures, PageRow, Refusals, ranked
from wikic.evaluation.saved import report_path
from wikic.evaluation.verdicts import saved_summary
from wikic.lint.finding import Finding
from wikic.lint.rules._pages import subject_page
from wikic.lint.run import LintOptions, lint_and_vault
from wikic.vault.collector import collector_paused
from wikic.vault.formats.compiled import CompiledEntry, read_compiled
from wikic.vault.formats.composed import composed_ledger
from wikic.vault.formats.mentions import Mention, read_mentions
from wikic.vault.formats.sources import read_sources
from wikic.vault.layout import require_vault
from wikic.vault.load import FileInfo, Vault, fork_is_safe, load_vault, walk
from wikic.vault.model import Note
from wikic.vault.notes_on_demand import NotesOnDemand
from wikic.vault.resolve import fold_name

# lint's rules whose findings on a page are its figures
_BROKEN = ("broken-wikilink",)


@dataclass(frozen=True)
class EvalOptions:
    page: str | None = None  # only this page's row (its path, file name or title); the vault's figures stay whole
    today: dt.date | None = None  # "as of" date for lint's rules that depend on it
    out: str | None = None  # where the rendered report is to be written (`saved.report_path`), checked first
    judge: bool = False  # a model judges the claims and cited sentences first (`evaluation/judge.py`)
    sample: int | None = None  # with `judge`: that many of them, drawn at random (seeded)
    jobs: int | None = None  # processes reading pages (None: two on a machine with two cores or more)


def evaluate(context: VaultContext, options: EvalOptions = EvalOptions()) -> EvalReport:
    """The vault's quality report. Reads only; its cache under `.wikic/cache/` and lint's are all it writes."""
    started = time.perf_counter()
    root = Path(context.root).resolve()
    require_vault(root)
    schema = context.checked_schema()
    out_path = report_path(root, options.out, schema) if options.out is not None else None
    reader = PageReader(root, schema, checks.expected_sha256(read_sources(root)))
    # the collector waits while the parsed vault is in memory (`collector_paused`), as in lint
    with collector_paused():
        lint, files, parsed, made = lint_and_vault(context, LintOptions(use_cache=True, today=options.today),
                                                   while_parsing=reader)
        found = _findings_by_rule(lint.findings)
        # the pages as lint's vault types them; its notes are needed only for the pages read again
        listing = parsed or Vault(root, schema, files, {})
        pages = [(path, kind) for path in sorted(files) if path.endswith(".md") and not listing.is_hub(path)
                 and subject_page(kind := listing.page_type(path)) and kind is not None]
        cache = PageCache.load(root, schema)
        checked_now = _read_changed(reader, files, parsed, pages, cache, options.jobs, made)
        composed = composed_ledger(root)
        rows, total = _page_rows(reader, pages, cache, found, composed, checked_now)
        if cache.changed:
            cache.save(root)
        del parsed, made  # the vault is no longer needed

    compiled = read_compiled(root)
    report = EvalReport(
        str(root), total, ranked(rows if options.page is None else _the_page(rows, options.page)),
        names_waiting=_names_waiting(read_mentions(root)),
        sources=len(compiled),
        sources_drifted=sorted(found.get("raw-drift", Counter())),
        refusals=refusals(compiled, composed),
    )
    if options.judge:
        # the model's side is imported only when a model is asked
        from wikic.evaluation.judge import JudgeOptions, judge_vault

        report.judged = judge_vault(context, JudgeOptions(sample=options.sample, page=options.page))
    else:
        report.judged = saved_summary(root)
    report.out = out_path
    report.seconds = time.perf_counter() - started
    return report


def _findings_by_rule(findings: Iterable[Finding]) -> dict[str, Counter[str]]:
    """rule -> page -> how many findings of that rule the page has."""
    found: dict[str, Counter[str]] = {}
    for f in findings:
        if f.path is not None:
            found.setdefault(f.rule, Counter())[f.path] += 1
    return found


def _read_changed(reader: PageReader, files: Mapping[str, FileInfo], parsed: Vault | None,
                  pages: list[tuple[str, str]], cache: PageCache, jobs: int | None,
                  made: Mapping[str, tuple[PageRead | None, AnchorsChecked | None]]) -> set[str]:
    """The pages the cache holds no current record of, read into it (a page that is not text too, as such:
    it is not read again while it is unchanged), from what lint's parse `made` of them where it parsed them;
    the records of pages that are gone, dropped. Gives the pages read now (their anchors checked now too)."""
    todo = [(path, kind) for path, kind in pages
            if (record := cache.records.get(path)) is None
            or (record.size, record.mtime_ns) != (files[path].size, files[path].mtime_ns)]
    wanted = {path for path, _ in pages}
    if todo:
        left = [(path, kind) for path, kind in todo if path not in made]
        if left:
            # lint parsed nothing (its report was kept, or made from the pages edited since its last whole run):
            # the notes of a few pages are read alone, of many all at once
            notes: Mapping[str, Note] = parsed.notes if parsed is not None else (
                NotesOnDemand(reader.root, dict(files), reader.schema) if len(left) < _READ_ALONE
                else load_vault(reader.root, use_cache=True, walked=walk(reader.root), schema=reader.schema).notes)
            todo = [(path, kind) for path, kind in todo if path in notes or path in made]
            made = {**made, **_read_pages(reader, [path for path, _ in left if path in notes], notes, jobs)}
        for path, _ in todo:
            read, checked = made.get(path) or (None, None)
            cache.records[path] = PageRecord(files[path].size, files[path].mtime_ns, read, checked)
        cache.changed = True
    gone = [path for path in cache.records if path not in wanted]
    for path in gone:
        del cache.records[path]
    cache.changed = cache.changed or bool(gone)
    return {path for path, _ in todo}


def _page_rows(reader: PageReader, pages: list[tuple[str, str]], cache: PageCache,
               found: dict[str, Counter[str]], composed: dict[str, dict[str, Any]],
               checked_now: set[str]) -> tuple[list[PageRow], Figures]:
    """Each text page's row of figures, and the vault's figures summed. `checked_now`: the pages whose anchors
    were checked against raw/ in this run (their records are not checked again)."""
    rows: list[PageRow] = []
    total = Figures()
    for path, kind in pages:
        record = cache.records.get(path)
        if record is None or record.read is None:
            continue  # not text: lint's `encoding` says so
        figures = _figures(record, reader, cache, path in checked_now)
        _add_lint_figures(figures, path, found)
        refused = (composed.get(path) or {}).get("refused")
        if isinstance(refused, dict):
            figures.sentences_refused = {str(r): int(n) for r, n in refused.items() if isinstance(n, int)}
        total.add(figures)
        rows.append(PageRow(path, record.read.title, kind, figures))
    return rows, total


def _add_lint_figures(figures: Figures, path: str, found: dict[str, Counter[str]]) -> None:
    """What lint's findings on the page give its figures: a lead, links resolving, orphaned, contested."""
    def count(rule: str) -> int:
        by_page = found.get(rule)
        return by_page[path] if by_page else 0

    figures.pages = 1
    figures.leads = 0 if count("no-lead") else 1
    figures.links_resolving = max(0, figures.links - sum(count(rule) for rule in _BROKEN))
    figures.orphans = 1 if count("orphan-page") else 0
    figures.contradictions = count("contradiction")
    figures.contested = 1 if figures.contradictions else 0


_READ_ALONE = 500  # pages whose notes are read one by one from the parse cache; more are loaded all at once
_FORK_FROM = 1000  # pages to read; below this a second process costs more than it saves
_FORKED: Any = None  # what the forked reader reads: fork copies it, nothing is sent

Made = dict[str, tuple[PageRead | None, AnchorsChecked | None]]


def _read_pages(reader: PageReader, paths: list[str], notes: Mapping[str, Note], jobs: int | None) -> Made:
    """What `reader` makes of each page of `paths` (lint parsed none of them: its report came from its cache).
    Many pages, with a second core, are read half in a forked process while this one reads the other half."""
    global _FORKED
    jobs = min(2, os.cpu_count() or 1) if jobs is None else jobs
    if jobs <= 1 or len(paths) < _FORK_FROM or not fork_is_safe():
        return _read_these(reader, paths, notes)
    import multiprocessing as mp

    _FORKED = (reader, paths[len(paths) // 2 :], notes)
    try:
        with mp.get_context("fork").Pool(1) as pool:
            other = pool.apply_async(_read_forked)
            out = _read_these(reader, paths[: len(paths) // 2], notes)
            out.update(other.get())
    finally:
        _FORKED = None
    return out


def _read_forked() -> Made:
    return _read_these(*_FORKED)


def _read_these(reader: PageReader, paths: list[str], notes: Mapping[str, Note]) -> Made:
    out: Made = {}
    for path in paths:
        try:
            data = (reader.root / path).read_bytes()
        except OSError:
            continue
        made = reader(path, data, notes[path])
        if made is not None:
            out[path] = made
    return out


def _figures(record: PageRecord, reader: PageReader, cache: PageCache, checked_now: bool = False) -> Figures:
    """A page's figures from its record. Unless the record holds what its anchors gave for the raw files as
    they are (`checked_now`: they were checked in this run), they are checked against raw/ now, and what they
    gave kept in the record."""
    read = record.read
    assert read is not None
    if record.checked is None or (not checked_now and record.checked.state != reader.state(read)):
        record.checked = reader.check(read)
        cache.changed = True
    done = record.checked
    return Figures(sentences=read.sentences, sentences_cited=read.cited, claims=read.claims,
                   claims_anchored=read.anchored, anchors=done.anchors, anchors_holding=done.holding,
                   checked=done.checked, specifics_stated=done.stated, sections=read.sections,
                   sections_in_layout=read.in_layout, links=read.links)


def refusals(sources: Mapping[str, CompiledEntry], composed: dict[str, dict[str, Any]]) -> Refusals:
    """What the runs refused, by reason, summed over the compiled ledger's sources and the composed pages."""
    out = Refusals()
    for entry in sources.values():
        dropped = dict(entry.dropped or {})
        # a summary the source does not support is replaced by a claim: no claim was dropped for it
        out.summaries += dropped.pop(UNSUPPORTED_SUMMARY, 0)
        for by_reason, into in ((dropped, out.claims), (entry.names_refused, out.names),
                                (entry.aliases_refused, out.aliases)):
            _count(by_reason, into)
        out.pairings += entry.refused or 0
    for page in composed.values():
        _count(page.get("refused"), out.sentences)
    return out


def _count(by_reason: Any, into: dict[str, int]) -> None:
    if isinstance(by_reason, dict):
        for reason, n in by_reason.items():
            if isinstance(n, int) and n > 0:
                into[str(reason)] = into.get(str(reason), 0) + n


def _names_waiting(items: dict[str, Mention]) -> int:
    """The names the mentions ledger holds, each once (a name waiting as an entity and as a concept is one)."""
    return len({item.name.casefold() for item in items.values() if item.name})


def _the_page(rows: list[PageRow], wanted: str) -> list[PageRow]:
    """The row of the page `wanted` names: its path (with or without `.md`), its file name or its title."""
    folded = fold_name(wanted.strip().removesuffix(".md"))
    for row in rows:
        if folded in (fold_name(row.path.removesuffix(".md")), fold_name(posixpath.basename(row.path)[:-3]),
                      fold_name(row.title)):
            return [row]
    raise UsageError(f"no subject page is named '{wanted}'",
                     hint="give a page's path (entities/acme.md), its file name or its title")
