"""Run the rules over a vault and decide what fails. The core of `wikic lint`."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from wikic import __version__
from wikic.context import VaultContext
from wikic.errors import UsageError
from wikic.lint import findings_codec
from wikic.lint.finding import Finding, reported
from wikic.lint.kept_findings import stamps
from wikic.vault.collector import collector_paused
from wikic.vault.formats.sources import read_sources, sources_stamp
from wikic.vault.layout import is_vault
from wikic.vault.state import LINT_REPORT, read_cache_bytes, write_cache

if TYPE_CHECKING:
    from wikic.lint.changed import Changed, PageLines
    from wikic.vault.load import FileInfo, PerNote, Vault
    from wikic.vault.model import Note, Problem
    from wikic.vault.schema_md import Schema


@dataclass(frozen=True)
class LintOptions:
    select: tuple[str, ...] = ()  # only these rules (empty: all)
    ignore: tuple[str, ...] = ()
    strict: bool | None = None  # warnings fail too; None: `[lint] strict` in wikic.toml (default off)
    use_cache: bool | None = (
        None  # the caches under .wikic/cache/; None: in a wikic vault only (a plain folder is left as it was)
    )
    today: dt.date | None = None  # "as of" date for staleness (default: today)
    jobs: int | None = None
    only: tuple[str, ...] | None = None  # report only the findings on these files: `scope.py`


@dataclass
class LintReport:
    vault: str
    findings: list[Finding]
    pages: int
    links: int
    seconds: float
    strict: bool = False
    cached: bool = False
    severities: dict[str, str] = field(default_factory=dict)
    reported_on: int | None = None  # the report was limited to the findings on this many files (`scope.py`)

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def failed(self) -> bool:
        failing = ("error", "warning") if self.strict else ("error",)
        return any(f.severity in failing for f in self.findings)

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0

    def summary(self) -> dict[str, Any]:
        out = {
            "pages": self.pages,
            "links": self.links,
            "errors": self.count("error"),
            "warnings": self.count("warning"),
            "seconds": round(self.seconds, 3),
        }
        if self.reported_on is not None:
            out["reported_on"] = self.reported_on
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "wikic": __version__,
            "vault": self.vault,
            "findings": [f.to_dict() for f in self.findings],
            "summary": self.summary(),
        }


def _rules() -> dict[str, Any]:
    from wikic.lint.rules import RULES  # the rules (and networkx with them) load only when needed

    return RULES


def import_ahead() -> None:
    """Import, on this thread, every module a lint run imports when it first needs one: a lint started next on
    another thread then imports nothing (a module imported on one thread while another uses it can be seen
    half-initialised there)."""
    from wikic.lint import changed, context, judgements  # noqa: F401
    from wikic.vault import frontmatter, graph, load, parse, parse_cache, resolved_cache  # noqa: F401
    from wikic.vault.parse.reference import markdown

    _rules()
    markdown()  # markdown-it, for a page the fast scanner leaves to it
    parse_cache.choose_codec()  # msgspec, when installed: the resolved links' cache uses it too
    findings_codec.choose()  # and the findings' cache
    frontmatter.load_yaml_ahead()  # PyYAML, for a block the subset parser leaves to it
    b"".decode("utf-8-sig")  # the codec a page is read with, which Python imports on its first use


def known_rules() -> list[str]:
    return sorted(_rules())


def _check_names(names: tuple[str, ...], option: str) -> None:
    if not names:
        return  # the rules (and networkx with them) load only when needed: a cached report needs neither
    rules = _rules()
    unknown = [n for n in names if n not in rules]
    if unknown:
        raise UsageError(
            f"unknown rule(s) for {option}: {', '.join(unknown)}", hint=f"known rules: {', '.join(sorted(rules))}"
        )


def _fingerprint(root: Path, walked: tuple[dict[str, FileInfo], list[tuple[str, Problem]]], options: LintOptions,
                 today: dt.date) -> str:
    files, problems = walked
    h = hashlib.sha256()
    h.update(f"{__version__}|{options.select}|{options.ignore}|{today.isoformat()}".encode())
    for info in sorted(files.values(), key=lambda i: i.path):
        h.update(f"\0{info.path}\0{info.size}\0{info.mtime_ns}".encode())
    # what the walk found and did not list (a named pipe, a link leading out) is reported: it is the vault too
    h.update(repr(problems).encode("utf-8", "surrogatepass"))
    h.update(f"ledger{sources_stamp(root)}".encode())
    return h.hexdigest()


def run_lint(
    context: VaultContext, options: LintOptions = LintOptions(), *, label: str | None = None
) -> LintReport:
    """Lint the vault. Reads only; the caches under `.wikic/` are the only thing it
    may write. With `options.only`, the whole vault is linted and the report limited to those files."""
    report = lint_and_vault(context, options, label=label)[0]
    if options.only is None:
        return report
    from wikic.lint.scope import limited

    return limited(report, options.only)


def lint_and_vault(
    context: VaultContext, options: LintOptions = LintOptions(), *, label: str | None = None,
    while_parsing: PerNote | None = None,
) -> tuple[LintReport, dict[str, FileInfo], Vault | None, dict[str, Any]]:
    """`run_lint`'s report, the vault's files as it walked them, the vault it parsed (None: the report came
    from its cache, nothing was parsed), and what `while_parsing` made of each note parsed (by path, where it
    made something): for a report made beside lint's that reads the same pages, in the processes that parse
    them (`load_vault`'s `per_note`)."""
    started = time.perf_counter()
    root = Path(context.root)
    if not root.is_dir():
        raise UsageError(f"vault folder does not exist: {root}")
    _check_names(options.select, "--select")
    _check_names(options.ignore, "--ignore")
    if options.use_cache is None:
        options = replace(options, use_cache=is_vault(root))
    # wikic.toml is validated whole on every run, as every command does, whether or not --strict was given
    # (unless it was from the same files before: `lint_strict`)
    configured = context.lint_strict(recorded=bool(options.use_cache))
    strict = configured if options.strict is None else options.strict
    today = options.today or dt.date.today()
    label = label if label is not None else os.fspath(root)

    # the walk, the base of a lint of a few changed pages and a whole vault read into memory are a few hundred
    # thousand to a few million objects that live until the work ends: the collector waits (`collector_paused`)
    with collector_paused():
        findings, pages, links, files, vault, made, cached = _linted(context, options, today, while_parsing)
    return LintReport(label, findings, pages, links, time.perf_counter() - started, strict, cached=cached), files, \
        vault, made


def _linted(
    context: VaultContext, options: LintOptions, today: dt.date, while_parsing: PerNote | None
) -> tuple[list[Finding], int, int, dict[str, FileInfo], Vault | None, dict[str, Any], bool]:
    """`lint_and_vault`'s findings, pages and links, the vault's files, the vault parsed (None when nothing
    was), what `while_parsing` made, and whether the report is the one kept from the last run."""
    from wikic.vault.load import walk

    root = Path(context.root)
    walked = walk(root)
    files = walked[0]
    key = _fingerprint(root, walked, options, today)
    if options.use_cache:
        cached = _read_report(root, key)
        if cached is not None:
            findings, pages, links = cached
            return findings, pages, links, files, None, {}, True
        changed = _lint_changed(root, walked, context.schema, options, today)
        if changed is not None:  # a few pages edited since the last whole lint: those judged, nothing parsed else
            _write_report(root, key, changed.findings, changed.pages, changed.links, changed.outside)
            return changed.findings, changed.pages, changed.links, files, None, {}, False
    findings, pages, links, vault, made, outside = _lint(root, options, today, walked, context.schema, while_parsing)
    if options.use_cache:  # written while the vault is in memory
        _write_report(root, key, findings, pages, links, outside)
    return findings, pages, links, files, vault, made, False


def _lint(
    root: Path, options: LintOptions, today: dt.date, walked: tuple[dict[str, FileInfo], list[tuple[str, Problem]]],
    schema: Schema, while_parsing: PerNote | None = None,
) -> tuple[list[Finding], int, int, Vault, dict[str, Any], list[str]]:
    from wikic.lint.context import LintContext
    from wikic.lint.rules._pages import judge_while_parsing, judging
    from wikic.vault.graph import build
    from wikic.vault.load import load_vault

    # the listing the report's cache key was made from: what is linted is what the key describes; the page
    # rules judge each page where it is parsed
    judge = judge_while_parsing(schema, _active(options, schema))
    vault = load_vault(root, use_cache=bool(options.use_cache), jobs=options.jobs, resolve=True, walked=walked,
                       schema=schema, per_note=_both(judge, while_parsing))
    made: dict[str, Any] = {}
    if while_parsing is not None:  # each note's pair parts: the page rules' findings, the caller's
        made = {path: theirs for path, (_, theirs) in vault.per_note.items() if theirs is not None}
        vault.per_note = {path: ours for path, (ours, _) in vault.per_note.items() if ours is not None}
    if options.use_cache and judge is not None:
        from wikic.lint.judgements import complete

        complete(vault, judging(_active(options, schema)), judge)
    graph = build(vault)
    ctx = LintContext(vault=vault, links=graph, today=today, cached=bool(options.use_cache))
    ctx.ledger = read_sources(root)
    rules = _rules()
    overrides = vault.schema.severities
    active = _active(options, vault.schema)
    ran = _run_rules(ctx, active, options.jobs)
    found, outside = ran.found, ran.outside
    findings: list[Finding] = []
    for rule_id in active:
        default, forced = rules[rule_id].severity, overrides.get(rule_id)
        findings.extend(reported(f, default, forced) for f in found[rule_id])
    findings.sort(key=Finding.sort_key)
    pages = len(ctx.pages)
    links = sum(len(vault.notes[p].links) for p in vault.notes)
    if options.use_cache:
        from wikic.lint.changed import base_key, keep_base
        from wikic.lint.kept_findings import keep_listing

        listing = keep_listing(root, vault.files, ctx.kept)  # now that every rule kept its findings
        key = base_key(root, options.select, options.ignore, vault.problems)
        keep_base(ctx, key, listing, findings, links, outside, ran.pages, ran.segments)
    return findings, pages, links, vault, made, outside


def _lint_changed(root: Path, walked: tuple[dict[str, FileInfo], list[tuple[str, Problem]]], schema: Schema,
                  options: LintOptions, today: dt.date) -> Changed | None:
    """`lint_changed`'s findings (None: the vault is to be linted whole)."""
    from wikic.lint.changed import base_key, lint_changed

    key = base_key(root, options.select, options.ignore, walked[1])
    return lint_changed(root, *walked, schema, key, today, _active(options, schema), _rules())


def _both(judge: PerNote | None, theirs: PerNote | None) -> PerNote | None:
    """What runs on each note parsed: the page rules' judge, and the caller's `theirs` beside it (a pair)."""
    if theirs is None:
        return judge

    def both(path: str, data: bytes, note: Note) -> tuple[Any, Any] | None:
        ours, made = (judge(path, data, note) if judge is not None else None), theirs(path, data, note)
        return None if ours is None and made is None else (ours, made)

    return both


def _active(options: LintOptions, schema: Schema) -> list[str]:
    """The rules this run applies: selected, not ignored, not turned off in SCHEMA.md, and the ones that need
    SCHEMA.md only where there is one."""
    rules = _rules()
    overrides = schema.severities
    return [
        rule_id
        for rule_id in options.select or tuple(rules)
        if rule_id not in options.ignore
        and not (rules[rule_id].needs_schema and not schema.present)
        and overrides.get(rule_id) != "off"
    ]


_FORKED_CONTEXT: Any = None  # what a forked rule process reads: fork copies it, nothing is sent
# On a big vault the first of these groups that has an active rule runs in a forked process beside the other
# rules, each group about as costly as what is left: in a wikic vault the page rules, which read the text of
# every subject page they did not judge while it was parsed (so they run together), with `frontmatter`; in a
# plain vault, which has neither, `broken-wikilink` and its suggestions.
_FORKED_GROUPS = (
    ("no-lead", "repeated-claim", "uncited-sentence", "thin-section", "source-sections", "frontmatter"),
    ("broken-wikilink",),
)
# When most pages were judged while parsed (a cold run), the page rules cost little here, and these join the
# first group (the two name rules together: they read each page's names once a process): each side then holds
# about 0.6 s of CPU on the 10,000-page bench vault.
_FORKED_WHEN_JUDGED = ("stale-page", "duplicate-page", "ordinary-name", "unsourced-alias")
_FORK_RULES_FROM = 2000  # pages; below this a second process costs more than it saves


def forked_rules(active: list[str], judged: bool = False) -> list[str]:
    """The active rules of the first group in `_FORKED_GROUPS` that has one; `judged`: most pages were judged
    by the page rules while they were parsed (`_FORKED_WHEN_JUDGED` join the first group then)."""
    first, *others = _FORKED_GROUPS
    groups = [(*first, *_FORKED_WHEN_JUDGED) if judged else first, *others]
    return next(([r for r in active if r in group] for group in groups if set(group) & set(active)), [])


class _Ran(NamedTuple):
    found: dict[str, list[Finding]]  # rule id -> its findings
    outside: list[str]  # the files outside the vault's listing the rules read (`LintContext.read_outside`)
    pages: PageLines | None  # the base's parts, when made beside the rules (`changed.page_lines`)
    segments: list[tuple[str, str]] | None  # (`whole_update.segment_lines`)


def _run_rules(ctx: Any, active: list[str], jobs: int | None) -> _Ran:
    """Each active rule's findings, and the files outside the vault's listing the rules read. On a big vault
    with a second core, some rules run in a forked process while this one runs the rest; a run keeping its
    caches also makes the base's parts there, one in each process (`changed.keep_base`)."""
    from wikic.vault.load import fork_is_safe

    global _FORKED_CONTEXT
    rules = _rules()
    jobs = min(2, os.cpu_count() or 1) if jobs is None else jobs
    forked = forked_rules(active, judged=2 * len(ctx.vault.per_note) >= len(ctx.pages))
    if (jobs <= 1 or not forked or len(ctx.pages) < _FORK_RULES_FROM or _incremental(ctx, forked)
            or not fork_is_safe()):
        return _Ran({rule_id: list(rules[rule_id].check(ctx)) for rule_id in active}, ctx.read_outside(), None,
                    None)
    import multiprocessing as mp

    from wikic.lint.changed import page_lines

    _FORKED_CONTEXT = ctx
    try:
        with mp.get_context("fork").Pool(1) as pool:
            separate = pool.apply_async(_forked_rules, (forked, bool(ctx.cached)))
            found = {rule_id: list(rules[rule_id].check(ctx)) for rule_id in active if rule_id not in forked}
            pages = page_lines(ctx) if ctx.cached else None
            there, kept, read_there, segments = separate.get()
            found.update(there)
            ctx.kept.update(kept)  # what the rules run there kept
    finally:
        _FORKED_CONTEXT = None
    return _Ran(found, sorted({*ctx.read_outside(), *read_there}), pages, segments)


def _incremental(ctx: Any, rule_ids: list[str]) -> bool:
    """Whether the rules `rule_ids` have little to judge in this run: few files changed since the last lint,
    whose listing vouches for the findings each of them that keeps its findings kept (a second process then
    costs more than it saves)."""
    from wikic.lint.kept_findings import delta
    from wikic.lint.rule import KEPT_RULES

    since = delta(ctx) if ctx.cached else None
    return since is not None and len(since.changed) < _FORK_RULES_FROM and all(
        rule_id in since.vouched for rule_id in rule_ids if rule_id in KEPT_RULES)


def _forked_rules(rule_ids: list[str], segments: bool) -> tuple[
        dict[str, list[Finding]], dict[str, str], list[str], list[tuple[str, str]] | None]:
    from wikic.lint.whole_update import segment_lines

    rules = _rules()
    found = {rule_id: list(rules[rule_id].check(_FORKED_CONTEXT)) for rule_id in rule_ids}
    lines = segment_lines(_FORKED_CONTEXT) if segments else None
    return found, _FORKED_CONTEXT.kept, _FORKED_CONTEXT.read_outside(), lines


def _read_report(root: Path, key: str) -> tuple[list[Finding], int, int] | None:
    """The last run's findings, pages and links when it linted the vault as `key` describes it (its findings are
    decoded only then: the report's first line says what it was of)."""
    data = read_cache_bytes(root, LINT_REPORT)
    headed = findings_codec.read_headed(data) if data is not None else None
    if data is None or headed is None:
        return None
    head, start, end = headed
    try:
        if head.get("key") != key:
            return None
        outside = head.get("outside", {})
        if stamps(root, outside) != outside:  # a file it read outside the listing changed
            return None
        return findings_codec.decode(data[start:end]), int(head["pages"]), int(head["links"])
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError):
        return None


def _write_report(root: Path, key: str, findings: list[Finding], pages: int, links: int,
                  outside: list[str]) -> None:
    """The report kept for the next run: a line saying what it is of, then its findings (`findings_codec`)."""
    head = {"key": key, "pages": pages, "links": links, "outside": stamps(root, outside)}
    write_cache(root, LINT_REPORT, findings_codec.headed(head, findings))
