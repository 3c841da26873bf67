"""The report made: lint's run (its report cache and parsed vault) gives what lint already judges (a lead, broken
links, orphans, contradictions, sources changed since capture); each subject page is read once for the rest
(`checks.py`), and what a page alone gives is kept in `.wikic/cache/eval-pages.json` while the page is
unchanged, beside what its anchors gave while the raw files they cite are unchanged too; the ledgers give what
the runs refused and the names waiting.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import posixpath
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikic import __version__
from wikic.compile.plan import UNSUPPORTED_SUMMARY
from wikic.context import VaultContext
from wikic.errors import UsageError
from wikic.evaluation import checks
from wikic.evaluation.judge import JudgeOptions, judge_vault, saved_summary
from wikic.evaluation.report import EvalReport, Figures, PageRow, Refusals, ranked
from wikic.evaluation.saved import report_path
from wikic.ingest.prose_step import composed_ledger
from wikic.lint.page_text import PageText
from wikic.lint.rules._pages import subject_page
from wikic.lint.run import LintOptions, lint_and_vault
from wikic.vault.formats.compiled import CompiledEntry, read_compiled
from wikic.vault.formats.mentions import Mention, read_mentions
from wikic.vault.formats.sources import read_sources
from wikic.vault.layout import require_vault
from wikic.vault.load import Vault, fork_is_safe, load_vault, walk
from wikic.vault.model import Note
from wikic.vault.resolve import fold_name
from wikic.vault.schema_md import Schema
from wikic.vault.state import EVAL_PAGES, read_cache_json, write_cache

FORMAT = 3  # the cache's rows; another format, and the cache is made anew
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
    lint, files, parsed = lint_and_vault(context, LintOptions(use_cache=True, today=options.today))
    found: dict[str, Counter[str]] = {}
    for f in lint.findings:
        if f.path is not None:
            found.setdefault(f.rule, Counter())[f.path] += 1
    expected = checks.expected_sha256(read_sources(root))
    composed = composed_ledger(root)

    key = _cache_key(schema)
    cached = _cached_rows(root, key)
    # the pages as lint's vault types them; its notes are needed only for the pages read again
    listing = parsed or Vault(root, schema, files, {})
    pages = [(path, kind) for path in sorted(files) if path.endswith(".md") and not listing.is_hub(path)
             and subject_page(kind := listing.page_type(path)) and kind is not None]
    rows: dict[str, Any] = {}
    for path, _ in pages:
        info, row = files[path], cached.get(path)
        if isinstance(row, list) and len(row) == 4 and row[0] == info.size and row[1] == info.mtime_ns:
            rows[path] = row
    todo = [(path, kind) for path, kind in pages if path not in rows]
    if todo:
        notes = (parsed or load_vault(root, use_cache=True, walked=walk(root), schema=schema)).notes
        todo = [(path, kind) for path, kind in todo if path in notes]
        read = _read_pages(root, todo, notes, schema, options.jobs)
        for path, _ in todo:
            info = files[path]
            # a page that is not text is kept too (as None): it is not read again while it is unchanged
            rows[path] = [info.size, info.mtime_ns, read.get(path), None]
    changed = bool(todo)
    raw: dict[str, checks.RawFile] = {}
    out: list[PageRow] = []
    total = Figures()
    for path, kind in pages:
        row = rows.get(path)
        if row is None or row[2] is None:
            continue  # not text: lint's `encoding` says so
        figures, checked = _figures(row, root, raw, expected)
        changed = changed or checked
        figures.pages = 1
        figures.leads = 0 if found.get("no-lead", Counter())[path] else 1
        figures.links_resolving = max(0, figures.links - sum(found.get(r, Counter())[path] for r in _BROKEN))
        figures.orphans = 1 if found.get("orphan-page", Counter())[path] else 0
        figures.contradictions = found.get("contradiction", Counter())[path]
        figures.contested = 1 if figures.contradictions else 0
        refused = (composed.get(path) or {}).get("refused")
        if isinstance(refused, dict):
            figures.sentences_refused = {str(r): int(n) for r, n in refused.items() if isinstance(n, int)}
        total.add(figures)
        out.append(PageRow(path, row[2][7], kind, figures))
    if changed or rows.keys() != cached.keys():
        write_cache(root, EVAL_PAGES, json.dumps({"key": key, "pages": rows}, separators=(",", ":")))

    shown = out if options.page is None else _the_page(out, options.page)
    compiled = read_compiled(root)
    report = EvalReport(
        str(root), total, ranked(shown),
        names_waiting=_names_waiting(read_mentions(root)),
        sources=len(compiled),
        sources_drifted=sorted(found.get("raw-drift", Counter())),
        refusals=refusals(compiled, composed),
    )
    if options.judge:
        report.judged = judge_vault(context, JudgeOptions(sample=options.sample, page=options.page))
    else:
        report.judged = saved_summary(root)
    report.out = out_path
    report.seconds = time.perf_counter() - started
    return report


_FORK_FROM = 1000  # pages to read; below this a second process costs more than it saves
_FORKED: Any = None  # what the forked reader reads: fork copies it, nothing is sent


def _read_pages(root: Path, todo: list[tuple[str, str]], notes: dict[str, Note], schema: Schema,
                jobs: int | None) -> dict[str, list[Any]]:
    """`_read_page` of each page of `todo` that is text. Many pages, with a second core, are read half in a
    forked process while this one reads the other half (most of a first run's time is reading prose)."""
    global _FORKED
    jobs = min(2, os.cpu_count() or 1) if jobs is None else jobs
    if jobs <= 1 or len(todo) < _FORK_FROM or not fork_is_safe():
        return _read_these(root, todo, notes, schema)
    import multiprocessing as mp

    _FORKED = (root, todo[len(todo) // 2 :], notes, schema)
    try:
        with mp.get_context("fork").Pool(1) as pool:
            other = pool.apply_async(_read_forked)
            out = _read_these(root, todo[: len(todo) // 2], notes, schema)
            out.update(other.get())
    finally:
        _FORKED = None
    return out


def _read_forked() -> dict[str, list[Any]]:
    return _read_these(*_FORKED)


def _read_these(root: Path, todo: list[tuple[str, str]], notes: dict[str, Note],
                schema: Schema) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for path, kind in todo:
        read = _read_page(root, path, notes[path], schema, kind)
        if read is not None:
            out[path] = read
    return out


def _read_page(root: Path, path: str, note: Note, schema: Schema, kind: str) -> list[Any] | None:
    """What the page alone gives: [sentences, cited, claims, anchored, sections, in layout, [[text, [anchor,
    ...], claim], ...], title, [title and aliases], links]; None when it cannot be read as text (lint's
    `encoding` says so)."""
    try:
        text = (root / path).read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    page = PageText(text.replace("\r\n", "\n").replace("\r", "\n"), note)
    sentences, cited, claims, anchored, said = checks.said(page)
    sections, meeting = checks.sections_in_layout(page, schema.layout(kind))
    return [sentences, cited, claims, anchored, sections, meeting, [[s.text, list(s.cited), s.claim] for s in said],
            _title(note, path), _names(note, path), len(note.links)]


def _figures(row: list[Any], root: Path, raw: dict[str, checks.RawFile], expected: dict[str, str]
             ) -> tuple[Figures, bool]:
    """A page's figures from its row, and whether its anchors were checked now: unless the row holds what they
    gave for the raw files as they are, they are checked against raw/ and what they gave kept in the row's last
    place."""
    sentences, cited, claims, anchored, sections, meeting, listed, _, names, links = row[2]
    said = [checks.Said(text, tuple(specs), claim) for text, specs, claim in listed]
    sources = checks.cited_paths(said)
    for path in sources:
        if path not in raw:
            raw[path] = checks.RawFile(root, path, expected.get(path))
    state = hashlib.sha256(repr([(p, raw[p].sha256, expected.get(p)) for p in sources]).encode()).hexdigest()
    checked_now = not (isinstance(row[3], list) and len(row[3]) == 5 and row[3][0] == state)
    if checked_now:
        anchors, holding = checks.anchors_holding(said, raw)
        checked, stated = checks.specifics_stated(said, raw, names)
        row[3] = [state, anchors, holding, checked, stated]
    _, anchors, holding, checked, stated = row[3]
    return Figures(sentences=sentences, sentences_cited=cited, claims=claims, claims_anchored=anchored,
                   anchors=anchors, anchors_holding=holding, checked=checked, specifics_stated=stated,
                   sections=sections, sections_in_layout=meeting, links=links), checked_now


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


def _title(note: Note, path: str) -> str:
    title = (note.frontmatter or {}).get("title")
    return title if isinstance(title, str) and title.strip() else posixpath.basename(path)[:-3]


def _names(note: Note, path: str) -> list[str]:
    """The page's subject as its quotes may leave it unsaid: its title and aliases."""
    aliases = (note.frontmatter or {}).get("aliases")
    return [_title(note, path), *(a for a in aliases if isinstance(a, str) and a.strip())] \
        if isinstance(aliases, list) else [_title(note, path)]


def _the_page(rows: list[PageRow], wanted: str) -> list[PageRow]:
    """The row of the page `wanted` names: its path (with or without `.md`), its file name or its title."""
    folded = fold_name(wanted.strip().removesuffix(".md"))
    for row in rows:
        if folded in (fold_name(row.path.removesuffix(".md")), fold_name(posixpath.basename(row.path)[:-3]),
                      fold_name(row.title)):
            return [row]
    raise UsageError(f"no subject page is named '{wanted}'",
                     hint="give a page's path (entities/acme.md), its file name or its title")


def _cache_key(schema: Schema) -> str:
    # a page's figures depend on the page and on the layouts SCHEMA.md declares
    layouts = sorted((kind, list(sections)) for kind, sections in schema.layouts.items())
    return hashlib.sha256(f"{FORMAT}|{__version__}|{layouts}".encode()).hexdigest()


def _cached_rows(root: Path, key: str) -> dict[str, Any]:
    data = read_cache_json(root, EVAL_PAGES)
    if data is None or data.get("key") != key or not isinstance(data.get("pages"), dict):
        return {}
    return data["pages"]
