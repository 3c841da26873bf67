"""The findings of the rules that judge the vault as a whole, after files were edited, added or removed since the
last whole lint, made from what that lint kept of the vault (its base, `changed.py`) and the files changed, not
from the whole vault.

What each of those rules reads, and so what the base keeps beside each page's face:

- `orphan-page`: who links to whom. The base keeps where each page's links land and how many subject pages link
  to it; a page whose links land elsewhere now (one edited, one whose links may reach a file added or removed,
  one added or removed) moves those counts, and a page whose count comes to or leaves zero is judged again.
- `duplicate-page`: the pages carrying each title and alias (the base's names); a name an added or removed page
  carries is judged again with the pages carrying it now.
- `index-gap`: index.md's entries, judged again when index.md was edited or its links may land elsewhere now
  (else a page added is not listed there); and each raw file's source page and the subject pages built on it
  (the base keeps both, and the pages whose `sources` name each raw file), judged again for the raw files a page
  added or removed is built on, those added, those a source page added is the page of, and those whose source
  page's links may land elsewhere now.
- `case-collision` and `unsafe-name` read the vault's paths: judged for the paths added and removed.
- `confusable-name` has nothing to say while every name is spelled in ASCII (the base says whether it was); a
  page added with another name leaves the vault to be linted whole.
- `raw-drift` reads raw/ and the source ledger: judged for the raw files added and the ledger's entries changed
  (the base keeps a digest of each entry; a raw file edited or removed leaves the vault to be linted whole).

A change this module cannot follow (a page added or removed in a wiki of a few pages, where the link minimum and
the orphans depend on how many there are; a page named as contradicting a page added or removed; the first
source page of a vault that had none) is `Whole`: the vault is linted whole.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import posixpath
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikic.lint import findings_codec
from wikic.lint.context import page_names
from wikic.lint.finding import Finding
from wikic.vault.graph import outbound_minimum
from wikic.vault.layout import INDEX_FILE, OVERVIEW_FILE, RAW_DIR
from wikic.vault.resolve import fold_name
from wikic.vault.sorted_lines import KeyedLines, LookupOnly

if TYPE_CHECKING:
    from wikic.lint.context import LintContext
    from wikic.lint.rule import Rule
    from wikic.vault.formats.sources import SourceEntry

# The base's lines (keyed lines after its head; `changed.keep_base` writes them). A file is written as its place
# in the base's list of files (FILES): a path written once, where it would be written ten times.
FILES = "files"  # every file of the vault, in path order
FACE = "face:"  # a page: [its face's digest, its link count, subject pages linking to it, where its links land,
#                  the raw files it is built on (as its frontmatter names them), its names]
NAME = "name:"  # a name (folded title or alias): the subject pages carrying it
REACH = "reach:"  # a link's last segment (folded, `resolved_cache.last_segment`): the notes with such a link
NAMED = "named:"  # the same, of the entries of a page's `contradictions`
FED = "fed:"  # a raw file: the subject pages built on it (`index_gap.built_on`), in page order
HUB = "hub:"  # a raw file: its source page
CITES = "cites:"  # a raw file's path (folded): the pages whose `sources` name it (whether it exists or not)
LEDGER = "ledger"  # the source ledger: each raw file's entry, as a digest of what the rules read of it
CONTESTED = "contested"  # the pages marked contested (whose claims in conflict are told as of the date)
LANDS = "lands:"  # a note of many links (MANY_LINKS): where each of them lands, in order: its file (-1: none), or
#                  [its file, its candidates] when it is ambiguous
AIMS = "aims:"  # the same note: each link's target as written, in order (an edited index.md keeps where most land)
MANY_LINKS = 256  # index.md links every page: after a file is added or removed, only its links that may reach
#                   that file are resolved again (a note of fewer links is resolved whole, in less time)

SMALL = 3  # subject pages below which the orphans and the link minimum depend on how many there are


class Whole(Exception):
    """The change is one this lint cannot follow from the base: the vault is linted whole."""


@dataclass(frozen=True)
class Face:
    """What the base keeps of a page."""

    digest: str
    links: int
    linked_from: int  # subject pages (other than itself) linking to it
    lands: list[str]
    built_on: list[str]
    names: list[str]


class Base:
    """The base's lines, looked up by key."""

    def __init__(self, head: dict[str, Any], data: Any, start: int, found: tuple[int, int]) -> None:
        self.head = head
        self._data = data
        self._found = found  # where the line of its findings stands in `data`
        self._lines = KeyedLines(data, start)
        self._faces = KeyedLines(data, start, FACE)
        self._names = KeyedLines(data, start, NAME)
        self._reach = KeyedLines(data, start, REACH)
        self._named = KeyedLines(data, start, NAMED)
        self._fed = KeyedLines(data, start, FED)
        self._hubs = KeyedLines(data, start, HUB)
        self._lands = KeyedLines(data, start, LANDS)
        self._aims = KeyedLines(data, start, AIMS)

    def findings(self) -> list[Finding]:
        """The whole lint's findings, in their report's order. Raises ValueError (TypeError, KeyError,
        RecursionError) when their line is damaged."""
        start, end = self._found
        return findings_codec.decode(self._data[start:end])

    @cached_property
    def _files(self) -> list[str]:
        files = self._lines.get(FILES)
        if not (isinstance(files, list) and all(isinstance(f, str) for f in files)):
            raise Whole("a damaged line of the base")
        return files

    def _paths(self, value: Any) -> list[str]:
        """The files a line lists by their places."""
        files = self._files
        if not (isinstance(value, list) and all(type(v) is int and 0 <= v < len(files) for v in value)):
            raise Whole("a damaged line of the base")
        return [files[v] for v in value]

    def face(self, path: str) -> Face | None:
        kept = self._faces.get(path)
        if not (isinstance(kept, list) and len(kept) == 6 and isinstance(kept[0], str)):
            return None
        try:
            return Face(kept[0], int(kept[1]), int(kept[2]), self._paths(kept[3]), _strings(kept[4]),
                        _strings(kept[5]))
        except (TypeError, ValueError):
            return None

    def named_by(self, name: str) -> list[str]:
        """The subject pages carrying the name (folded title or alias) `name`."""
        return self._paths(self._names.get(name, []))

    def reaching(self, names: Iterable[str]) -> set[str]:
        """The notes with a link whose last segment is one of `names` (or one only normalizing tells)."""
        return self._by_segment(self._reach, names)

    def naming(self, names: Iterable[str]) -> set[str]:
        """The pages whose `contradictions` names a page by one of `names` (a last segment)."""
        return self._by_segment(self._named, names)

    def _by_segment(self, lines: KeyedLines, names: Iterable[str]) -> set[str]:
        from wikic.vault.resolved_cache import ANY_FILE

        return {p for name in {*names, *ANY_FILE} for p in self._paths(lines.get(name, []))}

    def same_ledger(self, root: Path) -> bool:
        """Whether the source ledger is the file it was (its size and mtime) when the base was kept."""
        from wikic.vault.formats.sources import sources_stamp

        stamp = sources_stamp(root)
        return self.head.get("ledger") == (list(stamp) if stamp is not None else None)

    def same_day(self, today: dt.date) -> bool:
        return self.head.get("today") == today.isoformat()

    def fed(self, raw: str) -> list[str]:
        return self._paths(self._fed.get(raw, []))

    def citing(self, raw: str) -> list[str]:
        """The pages whose `sources` name the raw file `raw` (in any case)."""
        return self._paths(self._lines.get(CITES + fold_name(raw), []))

    def contested(self) -> list[str]:
        return self._paths(self._lines.get(CONTESTED, []))

    def ledger(self) -> dict[str, str]:
        kept = self._lines.get(LEDGER)
        if not (isinstance(kept, dict) and all(isinstance(v, str) for v in kept.values())):
            raise Whole("a damaged line of the base")
        return kept

    def hub(self, raw: str) -> str | None:
        found = self._hubs.get(raw)
        return self._paths([found])[0] if found is not None else None

    def landings(self, path: str) -> list[tuple[str | None, tuple[str, ...]]] | None:
        """Where each link of the note at `path` landed (its file or None, and its candidates), when it is a
        note of many links (`MANY_LINKS`)."""
        kept = self._lands.get(path)
        if not isinstance(kept, list):
            return None
        files = self._files
        out: list[tuple[str | None, tuple[str, ...]]] = []
        for item in kept:
            if type(item) is int:
                landed, candidates = item, []
            elif isinstance(item, list) and len(item) == 2 and type(item[0]) is int:
                landed, candidates = item
            else:
                raise Whole("a damaged line of the base")
            if not -1 <= landed < len(files):
                raise Whole("a damaged line of the base")
            out.append((files[landed] if landed >= 0 else None, tuple(self._paths(candidates))))
        return out

    def aims(self, path: str) -> list[str] | None:
        """The target of each link of the note at `path` as the base's lint read it, when it is a note of many
        links (`MANY_LINKS`): what `landings` answers, link by link."""
        kept = self._aims.get(path)
        return None if kept is None else _strings(kept)


def _stem(path: str) -> str:
    """A file's name as a link names it: a note's without `.md`."""
    name = posixpath.basename(path)
    return name[:-3] if name.endswith(".md") else name


def _strings(value: Any) -> list[str]:
    if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        raise Whole("a damaged line of the base")
    return value


class Names(Mapping[str, list[str]]):
    """The subject pages carrying each name, as the base keeps them with the pages added, removed and renamed
    since (`removed`: the pages no longer carrying the base's names; `added`: the names carried anew)."""

    def __init__(self, kept: Callable[[str], list[str]], added: dict[str, list[str]], removed: set[str]) -> None:
        self._kept = kept
        self._added = added  # name -> the pages added carrying it
        self._removed = removed

    def __getitem__(self, name: str) -> list[str]:
        pages = sorted({*(p for p in self._kept(name) if p not in self._removed), *self._added.get(name, ())})
        if not pages:
            raise KeyError(name)
        return pages

    def __iter__(self) -> Iterator[str]:
        raise LookupOnly("every name")

    def __len__(self) -> int:
        raise LookupOnly("every name")


@dataclass
class Change:
    """What changed since the base, and what the lint made of it so far."""

    ctx: LintContext
    base: Base
    edited: list[str]
    added: list[str]
    removed: list[str]
    anchored: list[str]  # the files edited whose headings or block ids changed (log.md: it keeps no face)
    lands: Callable[[str], set[str]]  # where a page's links land now (not on itself)

    @property
    def moved(self) -> bool:
        return bool(self.added or self.removed)

    @cached_property
    def renamed(self) -> dict[str, list[str]]:
        """The subject pages edited whose titles or aliases changed -> the names they had (`Face.names`)."""
        notes = self.ctx.vault.notes
        return {path: face.names for path, face in self._edited_subjects()
                if set(face.names) != set(page_names(notes[path]))}

    @cached_property
    def refed(self) -> dict[str, list[str]]:
        """The subject pages edited whose raw files are others now (`index_gap.built_on`) -> those they were."""
        from wikic.lint.rules.index_gap import built_on

        return {path: face.built_on for path, face in self._edited_subjects()
                if built_on(self.ctx, path) != face.built_on}

    def _edited_subjects(self) -> Iterator[tuple[str, Face]]:
        """The subject pages edited, with what the base keeps of each."""
        vault = self.ctx.vault
        for path in self.edited:
            if path in vault.notes and vault.is_subject(path):
                yield path, self.kept_face(path)

    def kept_face(self, path: str) -> Face:
        """What the base keeps of the page at `path` (`Whole` when it keeps nothing)."""
        face = self.base.face(path)
        if face is None:
            raise Whole(f"the base has no face of {path}")
        return face

    @property
    def named(self) -> bool:
        """Whether the pages' names changed: pages added or removed, or renamed."""
        return bool(self.added or self.removed or self.renamed)

    @cached_property
    def subjects_added(self) -> list[str]:
        """The subject pages added (the others: source pages, raw files)."""
        return [p for p in self.added if self.ctx.vault.is_subject(p) and p in self.ctx.vault.notes]

    @cached_property
    def raws_added(self) -> list[str]:
        return [p for p in self.added if p.startswith(RAW_DIR + "/")]

    @cached_property
    def hubs_added(self) -> list[str]:
        return [p for p in self.added if p in self.ctx.vault.notes and self.ctx.is_hub(p)]

    def subjects(self) -> int:
        """How many subject pages there are now."""
        try:
            return int(self.base.head["subjects"]) + len(self.subjects_added) - len(self.removed)
        except (KeyError, TypeError, ValueError) as exc:
            raise Whole("a damaged base") from exc

    @cached_property
    def citing(self) -> set[str]:
        """The pages (not added) whose `sources` name a raw file added: whether it exists is what they are judged
        from (`frontmatter`, the name rules, the hubs)."""
        files = self.ctx.vault.files
        return {p for raw in self.raws_added for p in self.base.citing(raw) if p in files and p not in self.added}

    @cached_property
    def ledger_moved(self) -> set[str]:
        """The raw files whose entries in the source ledger are not the base's (added, changed or gone)."""
        if self.base.same_ledger(self.ctx.vault.root):
            return set()
        kept, now = self.base.ledger(), self.ctx.ledger
        said = {raw: entry_digest(entry) for raw, entry in now.items()}
        return {raw for raw in {*kept, *said} if kept.get(raw) != said.get(raw)}

    def dated(self) -> dict[str, list[str]]:
        """When the date is another than the base's: rule id -> the pages it judges by the date (`stale-page` the
        query pages' age, `contradiction` the claims of contested pages that hold as of the date)."""
        if self.base.same_day(self.ctx.today):
            return {}
        vault = self.ctx.vault
        files = vault.files
        return {"stale-page": [p for p in files if vault.page_type(p) == "query" and p in vault.notes],
                "contradiction": [p for p in self.base.contested() if p in files]}

    def names_moved(self) -> set[str]:
        """The names the pages added, removed and renamed carry, or carried."""
        out = {n for p in [*self.subjects_added, *self.renamed] for n in page_names(self.ctx.vault.notes[p])}
        out.update(n for names in self.renamed.values() for n in names)
        for path in self.removed:
            out.update(self.kept_face(path).names)
        return out

    def reached(self) -> set[str]:
        """The notes (not added or removed) whose links may land elsewhere now that files were added or
        removed, or may lead into a heading or block of a file edited with others (`anchored`); `Whole` when a
        page names a page added or removed as contradicting it (which page it names, then, is what the pages it
        names read of it)."""
        from wikic.vault.resolved_cache import reachable_names

        files = self.ctx.vault.files
        names = reachable_names([*self.added, *self.removed])
        if names and any(p in files and p not in self.added for p in self.base.naming(names)):
            raise Whole("a page names a page added or removed as contradicting it")
        names |= reachable_names(self.anchored)
        if not names:
            return set()
        return {p for p in self.base.reaching(names) if p in files and p not in self.added}

    def names(self) -> Names:
        added: dict[str, list[str]] = {}
        for path in [*self.subjects_added, *self.renamed]:
            for name in page_names(self.ctx.vault.notes[path]):
                added.setdefault(name, []).append(path)
        return Names(self.base.named_by, added, {*self.removed, *self.renamed})

    def hinted(self, found: list[Finding]) -> set[str]:
        """The notes whose broken links' "did you mean" a file added, removed or renamed may change: the link's
        target is one of the names it carries or carried, slugs to its file name, is near it (`close_names.near`),
        or the hint holds that name (a page sharing a file name is linked by its path)."""
        if not self.named:
            return set()
        from wikic.lint.close_names import near
        from wikic.vault.slug import slugify

        stems = [_stem(p) for p in (*self.added, *self.removed)]
        folded = {fold_name(s) for s in stems}
        names = self.names_moved()
        files = self.ctx.vault.files
        out = set()
        for f in found:
            if f.rule != "broken-wikilink" or f.path not in files or f.path in out or f.target is None:
                continue
            target = f.target
            said = fold_name(f.message)
            if (fold_name(target) in names or fold_name(slugify(target)) in folded
                    or any(near(s, target) for s in stems) or any(s in said for s in folded)):
                out.add(f.path)
        return out


class Dropped:
    """Which of the base's findings no longer hold for what the whole-vault rules make again: every finding on a
    page removed (`paths`), and the findings of a rule its test drops (`rules`, by rule id). Asked of each of the
    base's findings (90,000 at 30,000 pages): a look-up by rule, not a test of every rule's."""

    def __init__(self) -> None:
        self.rules: dict[str, Callable[[Finding], bool]] = {}
        self.paths: set[str] = set()

    def kept(self, found: list[Finding], again: dict[str, set[str]]) -> list[Finding]:
        """The findings of `found` that still hold: on no page removed, on no page its rule judged again (`again`,
        by rule id), and not dropped by its rule's test."""
        gone, tests = self.paths, self.rules
        return [f for f in found if f.path not in gone and f.path not in again.get(f.rule, ())
                and ((test := tests.get(f.rule)) is None or not test(f))]


def whole_findings(change: Change, reached: set[str], active: Iterable[str], rules: Mapping[str, Rule]
                   ) -> tuple[Dropped, list[Finding]]:
    """(which of the base's findings of the whole-vault rules no longer hold, the findings made in their place)."""
    ctx, base = change.ctx, change.base
    head = base.head
    now = change.subjects()
    subjects = now - len(change.subjects_added) + len(change.removed)
    asked = ctx.schema.thresholds["min_outbound_links"]
    if change.moved and (min(subjects, now) < SMALL
                         or outbound_minimum(asked, subjects) != outbound_minimum(asked, now)):
        raise Whole("a wiki of a few pages")
    drops = Dropped()
    made: list[Finding] = []
    active = set(active)
    if "orphan-page" in active:
        drops.rules["orphan-page"], new = _orphans(change, reached)
        made.extend(new)
    if "index-gap" in active and (change.moved or change.refed or any(ctx.is_hub(p) for p in change.edited)):
        drops.rules["index-gap"], new = _index_gap(change, reached)
        made.extend(new)
    if change.named:
        if "duplicate-page" in active:
            from wikic.lint.rules.duplicate_page import named_alike

            names = change.names_moved()
            now_named = change.names()
            drops.rules["duplicate-page"] = lambda f: f.target in names
            made.extend(f for name in sorted(names) for f in named_alike(ctx, name, now_named.get(name, [])))
        if "confusable-name" in active and not (head.get("ascii") is True and all(
                _ascii(ctx, p) for p in [*change.added, *change.renamed] if p in ctx.vault.notes)):
            raise Whole("a name spelled with letters beyond ASCII")
    if change.moved:
        if change.hubs_added and not head.get("hubs"):
            raise Whole("the first source page")  # a vault with no hub at all was held to none
        if "case-collision" in active:
            from wikic.lint.rules.case_collision import collisions

            keys = {fold_name(p) for p in (*change.added, *change.removed)}
            drops.rules["case-collision"] = lambda f: fold_name(f.path) in keys
            made.extend(collisions(ctx, (p for p in ctx.links.resolver.files if fold_name(p) in keys)))
        if "unsafe-name" in active:
            from wikic.lint.rules.unsafe_name import unsafe_at

            made.extend(f for p in change.added for f in unsafe_at(ctx, p))  # a path removed takes its own along
    if "raw-drift" in active and (change.raws_added or change.ledger_moved):
        from wikic.lint.rules.raw_drift import drift

        drifted = {*change.raws_added, *change.ledger_moved}
        drops.rules["raw-drift"] = lambda f: f.path in drifted
        made.extend(f for raw in sorted(drifted) if raw in ctx.ledger for f in drift(ctx, raw, ctx.ledger[raw]))
    drops.paths.update(change.removed)
    return drops, made


def _ascii(ctx: LintContext, path: str) -> bool:
    title = (ctx.vault.notes[path].frontmatter or {}).get("title")
    return posixpath.basename(path).isascii() and (not isinstance(title, str) or title.strip().isascii())


def _orphans(change: Change, reached: set[str]) -> tuple[Callable[[Finding], bool], list[Finding]]:
    from wikic.lint.rules.orphan_page import orphan

    ctx = change.ctx
    vault = ctx.vault
    moved = Counter[str]()  # target -> subject pages linking to it now, less before
    for path in {*change.edited, *reached, *change.added, *change.removed}:
        if not vault.is_subject(path):
            continue
        face = None if path in change.added else change.kept_face(path)
        was = set(face.lands) if face is not None else set()
        lands = change.lands(path) if path not in change.removed else set()
        moved.update(lands - was)
        moved.subtract(was - lands)
    judged = {t for t, n in moved.items() if n} | set(change.added)
    made = []
    for page in sorted(judged):
        if page in change.removed or not ctx.is_subject(page):
            continue
        face = None if page in change.added else change.kept_face(page)
        if (face.linked_from if face is not None else 0) + moved[page] == 0:
            made.append(orphan(ctx, page))
    return (lambda f: f.path in judged), made  # of orphan-page's findings


def _index_gap(change: Change, reached: set[str]) -> tuple[Callable[[Finding], bool], list[Finding]]:
    """index.md's entries judged again; each raw file whose source page or pages built on it may have changed."""
    from wikic.lint.rules._links import hub_source
    from wikic.lint.rules.index_gap import built_on, from_index, hub_gap, index_entries, not_listed

    ctx, base = change.ctx, change.base
    listing = INDEX_FILE in reached or INDEX_FILE in change.edited
    if listing:
        made = list(index_entries(ctx))
    else:  # no link of index.md may land elsewhere now: a page added is not listed there (when it is there)
        made = [not_listed(ctx, p) for p in change.added if ctx.is_page(p) and INDEX_FILE in ctx.vault.notes]
    # the subject pages whose raw files are others now: those added, and those citing a raw file added
    built = {path: built_on(ctx, path) for path in [*change.subjects_added, *change.citing, *change.refed]
             if ctx.is_subject(path)}
    raws = {raw for found in built.values() for raw in found}
    raws.update(raw for was in change.refed.values() for raw in was)
    hubs: dict[str, str] = {}  # a raw file -> its source page, where one was added
    for path in change.hubs_added:
        raw = hub_source(ctx, path)
        if raw:
            raws.add(raw)
            hubs[raw] = min(hubs.get(raw, path), path)
    for path in change.removed:
        raws.update(change.kept_face(path).built_on)
    for path in {*reached, *change.edited}:  # a source page whose links may land elsewhere
        if ctx.is_hub(path) and ctx.is_page(path):
            raw = hub_source(ctx, path)
            if raw and base.hub(raw) == path:
                raws.add(raw)
    if not base.head.get("hubs") and OVERVIEW_FILE not in ctx.vault.files:
        raws = set()  # a vault with no hub at all is held to none (`index_gap._hubs`)
    gone = set(change.removed)
    for raw in sorted(raws):
        pages = sorted({*(p for p in base.fed(raw) if p not in gone and p not in built),
                        *(p for p, found in built.items() if raw in found)})
        kept = base.hub(raw)
        hub = min(kept, hubs[raw]) if kept is not None and raw in hubs else hubs.get(raw, kept)  # the first by path
        if pages:
            made.extend(hub_gap(ctx, raw, pages, hub))

    def drop(f: Finding) -> bool:  # of index-gap's findings
        return (listing and from_index(f)) or (f.fix is not None and f.fix.action == "hub" and f.fix.path in raws)

    return drop, made


def faces(ctx: LintContext, face_of: Callable[[str], str], hubs: dict[str, str]) -> Iterator[tuple[str, str]]:
    """The base's lines of what it keeps of each page (`Face`), each name's pages, and each raw file's pages and
    source page (`hubs`: `index_gap.source_hubs`), as (key, JSON value); `segment_lines` makes the others."""
    from wikic.lint.rules.index_gap import built_on
    from wikic.vault.frontmatter import unwrap_link
    from wikic.vault.sorted_lines import json_strings

    vault, by_source = ctx.vault, ctx.links.by_source
    files, place = _places(vault.files)
    yield FILES, json_strings(files)

    def places(paths: Iterable[str]) -> str:
        return f"[{','.join(map(place.__getitem__, paths))}]"

    faced = [*ctx.pages, *(p for p in (INDEX_FILE, OVERVIEW_FILE) if p in vault.notes)]  # what may be edited
    lands: dict[str, list[str]] = {}
    for path in faced:
        found = set(map(_target, by_source.get(path, ())))
        found.discard(None)
        found.discard(path)
        lands[path] = sorted(found)
    linked_from = Counter[str]()
    for path in ctx.subject_pages:
        linked_from.update(lands[path])
    names_of: dict[str, list[str]] = {}
    for name, pages in ctx.names.items():
        yield NAME + name, places(pages)
        for page in pages:
            names_of.setdefault(page, []).append(name)
    cites: dict[str, list[str]] = {}
    for page in ctx.pages:
        listed = (vault.notes[page].frontmatter or {}).get("sources")
        for entry in {fold_name(unwrap_link(e)) for e in listed if isinstance(e, str)} if isinstance(listed, list) \
                else ():
            cites.setdefault(entry, []).append(page)
    for raw, pages in cites.items():
        yield CITES + raw, places(pages)
    yield CONTESTED, places(p for p in ctx.pages if (vault.notes[p].frontmatter or {}).get("contested") is True)
    fed: dict[str, list[str]] = {}
    built: dict[str, list[str]] = {}
    for page in ctx.subject_pages:
        raws = built[page] = built_on(ctx, page)
        for raw in raws:
            fed.setdefault(raw, []).append(page)
    for raw, pages in fed.items():
        yield FED + raw, places(pages)
    for raw, hub in hubs.items():
        yield HUB + raw, place[hub]
    for path in faced:
        yield FACE + path, (f'["{face_of(path)}",{len(vault.notes[path].links)},{linked_from[path]},'
                            f'{places(lands[path])},{json_strings(built.get(path, ()))},'
                            f'{json_strings(names_of.get(path, ()))}]')


def segment_lines(ctx: LintContext) -> list[tuple[str, str]]:
    """The base's lines of each link segment's notes and each `contradictions` entry's pages (made apart from
    `faces`: a whole lint run in two processes makes them in the other one)."""
    from wikic.vault.frontmatter import unwrap_link
    from wikic.vault.resolved_cache import last_segment
    from wikic.vault.sorted_lines import json_strings

    vault = ctx.vault
    place = _places(vault.files)[1]
    targets = {path: set(map(_target, note.links)) for path, note in vault.notes.items()}
    segment: dict[str, str | None] = {t: last_segment(t) for t in set().union(*targets.values()) if t}
    segment[""] = None  # a link to a heading of its own note reaches no other file
    reach: dict[str, list[str]] = {}
    for path, found in targets.items():
        for last in set(map(segment.__getitem__, found)):
            if last is not None:
                reach.setdefault(last, []).append(place[path])
    named: dict[str, list[str]] = {}
    for path in ctx.pages:
        listed = (vault.notes[path].frontmatter or {}).get("contradictions")
        for item in listed if isinstance(listed, list) else ():
            if isinstance(item, str) and item.strip():
                named.setdefault(last_segment(unwrap_link(item)), []).append(place[path])
    many = [(path, note) for path, note in vault.notes.items() if len(note.links) >= MANY_LINKS]
    lands = [(LANDS + path, _landings(ctx.links.by_source.get(path, []), place)) for path, _ in many]
    aims = [(AIMS + path, json_strings(link.target for link in note.links)) for path, note in many]
    return [*((REACH + s, f"[{','.join(at)}]") for s, at in reach.items()),
            *((NAMED + s, f"[{','.join(at)}]") for s, at in named.items()), *lands, *aims]


def _landings(edges: Iterable[Any], place: Mapping[str, str]) -> str:
    """A `LANDS` line's value: each edge's file, with its candidates when it has them."""
    out = []
    for edge in edges:
        landed = place[edge.target] if edge.target is not None else "-1"
        out.append(f"[{landed},[{','.join(map(place.__getitem__, edge.candidates))}]]" if edge.candidates
                   else landed)
    return f"[{','.join(out)}]"


_target = attrgetter("target")


def _places(paths: Iterable[str]) -> tuple[list[str], dict[str, str]]:
    """The vault's files in path order (the base's FILES line), and each one's place in it, as written."""
    files = sorted(paths)
    return files, {path: str(i) for i, path in enumerate(files)}


def ledger_line(ledger: Mapping[str, SourceEntry]) -> tuple[str, str]:
    """The base's line of the source ledger (`LEDGER`)."""
    return LEDGER, json.dumps({raw: entry_digest(entry) for raw, entry in ledger.items()}, separators=(",", ":"))


def entry_digest(entry: SourceEntry) -> str:
    """What the rules read of a ledger entry (`raw-drift` its hash, `stale-page` its dates), as a digest."""
    said = repr((entry.sha256, entry.captured, entry.ingested))
    return hashlib.blake2b(said.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def all_ascii(ctx: LintContext) -> bool:
    """Whether every note's file name and title is spelled in ASCII (`confusable-name` then has nothing to say)."""
    for path, note in ctx.vault.notes.items():
        if path.endswith(".md") and not posixpath.basename(path).isascii():
            return False
        title = (note.frontmatter or {}).get("title")
        if isinstance(title, str) and not title.strip().isascii():
            return False
    return True
