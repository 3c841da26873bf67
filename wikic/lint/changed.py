"""A lint after a few pages were edited, added or removed: those pages are judged again, with the pages that read
them, and every other finding is the one the last whole lint made (its base, kept under `.wikic/cache/`).

A whole lint reads every note of the vault, on a 10,000-page vault a second of decoding, resolving and rules for
what is, after one page was edited, added or removed (the pre-commit case), one page's worth of change. What a
page's edit can change on other pages, and in what the rules make of the whole vault, is what the other pages
and those rules read of it: its face (`face`): its title and aliases (the names links are offered by and
duplicates found by), the sources its frontmatter lists and the pages it names as contradicting it, and its
headings and block ids (what links into it reach); and where its links land (who links to whom). So a lint in
which

- only subject pages were removed since the base; subject pages, source pages and raw files added
  (`_addable`: what an ingest adds); pages, index.md, overview.md or log.md edited (`_followed`: not
  SCHEMA.md, a raw file, an attachment); few of them (`MOST`, or a fiftieth of a big vault's files);
- each file edited keeps its face (log.md has none: the pages linking into it are judged again), the files the
  base read outside the vault's listing are as they were (or were added since), and the options are the base's
  (the source ledger may have changed: the base keeps each entry, `whole_update.LEDGER`; and the date: the
  pages judged by it are judged again, `whole_update.Change.dated`);

gives every finding of the base but those of each rule that judges page by page (`Rule.at`, or a page rule's
`Rule.page`) on the pages edited and added, on the pages whose links may land elsewhere now that files were added
or removed (their links' last segments are among those files' names: `whole_update.Base.reaching`), on the pages
whose `sources` name a raw file added, on the pages whose broken links' "did you mean" a file added or removed
may change, and on the pages a kept rule read them for (its `reads`, kept by `kept_findings.py`: a query page
citing a changed page, a page citing a source whose ledger entry changed, for `stale-page`);
those are judged again. The rules that judge the vault as a whole (`WHOLE`) are brought up to date from what the
base keeps of every page (`whole_update.py`). Any other lint, or a rule that asks for more than these pages
(every note, the whole graph: `NotRead`), is a whole lint, which keeps a new base. Notes are read from the parse
cache where it holds them unchanged.

This lint writes only the report: the base and every other cache stay those of the last whole lint, from which
the next lint again starts. The base is a line of JSON (the key, the listing's digest, the counts), a line of its
findings in their report's order (`findings_codec.py`), then keyed lines in key order (`sorted_lines.py`): each
page's face, each name's pages, each link segment's notes, each raw file's pages and source page. This lint
decodes the findings once the change is known to be one it can make, and looks up the lines of the pages and
names it judges.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from wikic import __version__
from wikic.lint import findings_codec, kept_findings
from wikic.lint.finding import Finding, merged, reported
from wikic.lint.whole_update import (
    Base,
    Change,
    Dropped,
    Whole,
    all_ascii,
    faces,
    ledger_line,
    segment_lines,
    whole_findings,
)
from wikic.vault.formats.sources import sources_stamp
from wikic.vault.layout import INDEX_FILE, LOG_FILE, OVERVIEW_FILE, RAW_DIR
from wikic.vault.load import FileInfo, Vault
from wikic.vault.model import Note, Problem
from wikic.vault.notes_on_demand import NotesOnDemand, NotRead
from wikic.vault.resolve import Resolver, fold_name
from wikic.vault.resolved_cache import ANY_FILE, last_segment, reachable_names
from wikic.vault.schema_md import Schema
from wikic.vault.sorted_lines import LookupOnly, keyed_lines
from wikic.vault.state import map_cache, write_cache

if TYPE_CHECKING:
    from wikic.lint.context import LintContext
    from wikic.lint.rule import Rule

FORMAT = 6
BASE = "cache/lint-base.json"
MOST = 32  # files changed since the base beyond which the whole vault is linted (and a new base kept) ...
SHARE = 50  # ... or, in a big vault, this share of its files (an ingest of ten sources changes fifty)

# The rules that judge the vault as a whole, and what of a page they read: nothing its face does not hold.
WHOLE = {
    "orphan-page": "where each page's links land",
    "duplicate-page": "titles and aliases",
    "confusable-name": "file names and titles",
    "case-collision": "paths",
    "unsafe-name": "paths",
    "index-gap": "index.md, the hubs, paths and the sources pages list",
    "raw-drift": "raw/ and the source ledger",
}


class Changed(NamedTuple):
    findings: list[Finding]
    pages: int
    links: int
    outside: list[str]  # the files read outside the vault's listing, the base's and this lint's


def face(note: Note, subject: bool) -> str:
    """What other pages and the whole-vault rules read of a note that this lint does not follow from the base, and
    apart, what links into it reach (see the module's docstring), as two digests joined by a dot. A subject page's
    names and sources are followed (`whole_update.Change.renamed`, `refed`): they are not in it."""
    fm = note.frontmatter or {}
    named = (fm.get("contradictions"),) if subject else (
        fm.get("contradictions"), fm.get("title"), fm.get("aliases"), fm.get("sources"))
    # headings and block ids as written, in order: stricter than what a link into them matches (their keys),
    # and cheaper to tell
    anchors = ([h.text for h in note.headings], [b.id for b in note.blocks])
    return f"{_digest(named)}.{_digest(anchors)}"


def _digest(value: object) -> str:
    return hashlib.blake2b(repr(value).encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def base_key(root: Path, select: tuple[str, ...], ignore: tuple[str, ...], problems: list[tuple[str, Problem]]
             ) -> str:
    """What a base belongs to beside the vault's files (which its listing holds) and the source ledger (which it
    keeps, `whole_update.ledger_line`): this version of wikic, the rules asked for, the date, what the walk found
    and did not list."""
    said = f"{FORMAT}|{__version__}|{select}|{ignore}|{problems!r}"
    return hashlib.sha256(said.encode("utf-8", "surrogatepass")).hexdigest()


class PageLines(NamedTuple):
    """What a whole lint keeps of its pages for the base: the head's counts and the keyed lines of the pages,
    names and raw files (`whole_update.faces`)."""

    head: dict[str, Any]
    lines: list[tuple[str, str]]


def page_lines(ctx: LintContext) -> PageLines:
    """The base's part made from the pages alone (none of the findings): made while other rules still run."""
    from wikic.lint.rules.index_gap import source_hubs

    notes = ctx.vault.notes
    hubs = source_hubs(ctx)
    head = {"subjects": ctx.subject_count, "ascii": all_ascii(ctx), "hubs": bool(hubs),
            "ledger": sources_stamp(ctx.vault.root), "today": ctx.today.isoformat()}
    faced = faces(ctx, lambda path: face(notes[path], ctx.vault.is_subject(path)), hubs)
    return PageLines(head, [*faced, ledger_line(ctx.ledger)])


def keep_base(ctx: LintContext, key: str, listing: str | None, findings: list[Finding], links: int,
              outside: list[str], pages: PageLines | None = None,
              segments: list[tuple[str, str]] | None = None) -> None:
    """Keep this whole lint's findings as the base of the next lints, with what it keeps of each page (`pages`,
    when made already: `page_lines`) and of each link segment (`segments`, likewise: `segment_lines`)."""
    if listing is None:
        return
    made = pages if pages is not None else page_lines(ctx)
    head = {"format": FORMAT, "key": key, "listing": listing, "pages": len(ctx.pages), "links": links, **made.head,
            "outside": kept_findings.stamps(ctx.vault.root, outside)}
    # each entry on a line of its own, looked up by halving: a lint of a few pages reads those
    lines = keyed_lines([*made.lines, *(segments if segments is not None else segment_lines(ctx))])
    write_cache(ctx.vault.root, BASE, findings_codec.headed(head, findings) + b"\n" + lines.encode("utf-8"))


def lint_changed(root: Path, files: dict[str, FileInfo], problems: list[tuple[str, Problem]], schema: Schema,
                 key: str, today: dt.date, active: list[str], rules: dict[str, Rule]) -> Changed | None:
    """The findings of a lint of the vault as `files` lists it, made from the base and the pages changed since
    (see the module's docstring); None when this vault's lint must read it whole."""
    since = kept_findings.since_listing(root, files)
    if since is None or len(since.changed) > max(MOST, len(files) // SHARE):
        return None
    added, removed = sorted(since.added), sorted(since.removed)
    edited = sorted(since.changed - since.added - since.removed)
    notes = NotesOnDemand(root, files, schema, [*edited, *added])
    vault = Vault(root, schema, files, cast(dict[str, Note], notes), problems)
    if not (all(_followed(vault, p) for p in edited)
            and all(_addable(vault, p) for p in added)
            and all(p.endswith(".md") and vault.is_subject(p) for p in removed)) or any(
            r not in WHOLE and rules[r].at is None and rules[r].page is None for r in active):
        return None
    base = _read_base(root)  # read once the change is known to be one this lint can make
    if base is None or not (base.head.get("format") == FORMAT and base.head.get("key") == key
                            and kept_findings.listing_digest(root) == base.head.get("listing")):
        return None
    try:
        outside = dict(base.head["outside"])
        found = base.findings()  # in their report's order, as the whole lint that kept them sorted them
        pages, links = int(base.head["pages"]), int(base.head["links"])
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError):
        return None
    # a file read outside the listing that is in it now was added since: what read it is judged again
    unlisted = {path: stamp for path, stamp in outside.items() if path not in since.added}
    if kept_findings.stamps(root, unlisted) != unlisted:
        return None
    if not since.changed and base.same_ledger(root) and base.same_day(today):
        return Changed(found, pages, links, sorted(outside))
    vault.resolver = Resolver(files)
    edges = _Edges(vault, base, {*edited, *added}, reachable_names(since.added | since.removed))
    anchored = []  # the files edited whose headings or block ids changed: what links into them is judged again
    try:
        for path in [*edited, *removed]:
            if path == LOG_FILE:
                anchored.append(path)  # no note, no face
                continue
            kept = base.face(path)
            if kept is None:
                return None
            if path in edited:
                named, _, anchors = face(notes[path], vault.is_subject(path)).partition(".")
                kept_named, _, kept_anchors = kept.digest.partition(".")
                if named != kept_named:
                    return None
                if anchors != kept_anchors:
                    anchored.append(path)
            links -= kept.links
        links += sum(len(notes[p].links) for p in [*edited, *added] if p in notes)  # not log.md, a raw file
        pages += sum(1 for p in added if vault.is_page(p)) - len(removed)
        judged = _judge(vault, edges, today, base, found, since, (edited, added, removed, anchored), active, rules)
    except (NotRead, LookupOnly, Whole):
        return None
    if judged is None:
        return None
    again, made, read, drop = judged
    overrides = schema.severities
    made = [reported(f, rules[f.rule].severity, overrides.get(f.rule)) for f in made]
    return Changed(merged(drop.kept(found, again), made), pages, links, sorted({*outside, *read}))


def _judge(vault: Vault, edges: _Edges, today: dt.date, base: Base, found: list[Finding],
           since: kept_findings.Delta, files: tuple[list[str], list[str], list[str], list[str]], active: list[str],
           rules: dict[str, Rule]
           ) -> tuple[dict[str, set[str]], list[Finding], list[str], Dropped] | None:
    """(the pages each rule judged again, by rule; its findings on them; the files read outside the vault's
    listing; which of the base's findings of the whole-vault rules no longer hold), or None when a kept rule's
    readers cannot be told. `files`: those edited, added, removed, and edited with other headings or block
    ids."""
    from wikic.lint.context import LintContext
    from wikic.lint.rule import KEPT_RULES
    from wikic.lint.rules._pages import judge_page
    from wikic.vault.formats.sources import read_sources
    from wikic.vault.graph import LinkGraph

    graph = LinkGraph(vault=vault, edges=cast(list[Any], _Unread()), resolver=cast(Resolver, vault.resolver),
                      by_source=cast(dict[str, Any], edges))
    ctx = LintContext(vault=vault, links=graph, today=today, ledger=read_sources(vault.root), cached=True)
    edited, added, removed, anchored = files
    change = Change(ctx, base, edited, added, removed, anchored, lambda path: _lands(edges, path))
    ctx.__dict__["names"] = change.names()  # what the pages are named: the base's, with the pages added and removed
    ctx.__dict__["subject_count"] = change.subjects()
    reached = change.reached()
    drop, whole = whole_findings(change, reached, [r for r in active if r in WHOLE], rules)
    hinted = change.hinted(found)
    again: dict[str, set[str]] = {}
    made: list[Finding] = list(whole)
    # the notes judged again by every rule (log.md and raw files are no notes: no rule judges them)
    changed = [p for p in [*edited, *added, *change.citing] if p in vault.notes]
    read = {*since.changed, *change.ledger_moved}  # a page reading one of these is judged again
    dated = change.dated()  # rule id -> the pages it judges by the date, when the date is another
    for rule_id in (r for r in active if r not in WHOLE):
        pages = {*changed, *reached, *(hinted if rule_id == "broken-wikilink" else ()), *dated.get(rule_id, ())}
        if rule_id in KEPT_RULES:
            reads = kept_findings.rule_reads(vault.root, rule_id, since)
            if reads is None:
                return None
            for name in {n for path in read for n in (path, fold_name(path))}:
                readers = reads.get(name)
                if isinstance(readers, list):
                    pages.update(r for r in readers if isinstance(r, str) and r in vault.files)
        at = rules[rule_id].at
        again[rule_id] = pages
        for path in sorted(pages):
            made.extend(at(ctx, path) if at is not None else judge_page(ctx, rule_id, path))
    return again, made, ctx.read_outside(), drop


def _followed(vault: Vault, path: str) -> bool:
    """Whether an edit to the file at `path` is one this lint follows: a page's (a subject page's or a source
    page's), index.md's, overview.md's or log.md's."""
    return (path in vault.notes and (vault.is_page(path) or path in (INDEX_FILE, OVERVIEW_FILE))) or \
        (path == LOG_FILE and vault.schema.present)


def _addable(vault: Vault, path: str) -> bool:
    """Whether a file added is one this lint follows: a subject page, a source page, a raw source."""
    if path.startswith(RAW_DIR + "/"):
        return vault.schema.present
    return path in vault.notes and vault.is_page(path) and path not in (INDEX_FILE, OVERVIEW_FILE)


def _lands(edges: _Edges, path: str) -> set[str]:
    return {e.target for e in edges[path] if e.target is not None and e.target != path}


def _read_base(root: Path) -> Base | None:
    """The base: its head (its key, listing, counts), and its findings and keyed lines, unread."""
    data = map_cache(root, BASE)
    headed = findings_codec.read_headed(data) if data else None
    if data is None or headed is None or headed[2] == len(data):  # no keyed lines after the findings
        return None
    head, start, end = headed
    return Base(head, data, end + 1, (start, end))


class _Edges(Mapping[str, list[Any]]):
    """Each note's links, resolved when first asked for; never all of them (`NotRead`). A note of many links
    (`whole_update.MANY_LINKS`: index.md) takes where they landed from the base, but for those whose last
    segment is one of `reaching` (the names of the files added or removed since:
    `resolved_cache.reachable_names`), resolved again: where a link lands depends on its text, its note's
    folder and the vault's paths alone. Of such a note among `changed` (edited or added), a link whose text the
    base's note held is taken from the base by its text, and a link new to it is resolved."""

    def __init__(self, vault: Vault, base: Base, changed: set[str], reaching: set[str]) -> None:
        self._vault = vault
        self._base = base
        self._changed = changed
        self._reaching = reaching
        self._made: dict[str, list[Any]] = {}

    def __getitem__(self, path: str) -> list[Any]:
        from wikic.vault.graph import note_edges

        edges = self._made.get(path)
        if edges is None:
            note = self._vault.notes[path]
            targets = [lk.target for lk in note.links]
            kept = self._kept(path, targets)
            edges = self._made[path] = note_edges(note, kept if kept is not None else cast(
                Resolver, self._vault.resolver).resolve_all(path, targets))
        return edges

    def _kept(self, path: str, targets: list[str]) -> list[tuple[str | None, tuple[str, ...]]] | None:
        landings = self._base.landings(path)
        if landings is None:
            return None
        kept: list[tuple[str | None, tuple[str, ...]] | None]
        if path in self._changed:
            # the note was edited (index.md after an ingest): a link whose text the base's note held lands where
            # it landed then, wherever it stands now; a link new to the note is resolved
            aims = self._base.aims(path)
            if aims is None or len(aims) != len(landings):
                return None
            by_text = dict(zip(aims, landings, strict=True))
            kept = [by_text.get(target) for target in targets]
        elif len(landings) == len(targets):
            kept = list(landings)
        else:
            return None
        again = [i for i, target in enumerate(targets) if kept[i] is None
                 or (target and ((last := last_segment(target)) in self._reaching or last in ANY_FILE))]
        found = cast(Resolver, self._vault.resolver).resolve_all(path, [targets[i] for i in again])
        for i, landing in zip(again, found, strict=True):
            kept[i] = (landing.path, landing.candidates)
        return cast(list[tuple[str | None, tuple[str, ...]]], kept)

    def __iter__(self) -> Iterator[str]:
        raise NotRead("every note's links")

    def __len__(self) -> int:
        raise NotRead("every note's links")


class _Unread:
    """The list of every link of the vault, which this lint never makes."""

    def __iter__(self) -> Iterator[Any]:
        raise NotRead("every link")

    def __len__(self) -> int:
        raise NotRead("every link")
