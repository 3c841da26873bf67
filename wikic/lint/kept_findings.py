"""A rule's findings on each page, kept under `.wikic/cache/` from one run to the next and judged again only
where a changed file can change them.

A rule that judges one page at a time reads the page and a few other files: the files its links land on, the
raw files it cites. Each lint keeps its listing of the vault's files (path, size, mtime: the parse cache's
identity of a file, `cache/lint-files.json`); the next compares its own with it (`Delta`: the files added,
removed or changed since). A page is judged again when it is one of them, or when the rule says a change
reaches it (`again`: it reads a changed file; a file added or removed may change where its links land;
what the rule reads of the whole vault, its `shared` digest, changed); every other page's findings are
read back. After one page is edited, added or removed, lint judges that page and the pages that read it,
not the vault.

Kept findings belong to one rule, one SCHEMA.md, one version of wikic (and what the rule adds: the date, for
a rule that compares with it), and to the run whose listing is the one kept: a run that did not complete,
or ran other rules, leaves findings the next run does not trust. A damaged file is not used (every page is
judged, and the file written anew); a run that keeps no caches judges every page.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikic import __version__
from wikic.errors import VaultError
from wikic.lint.finding import Finding
from wikic.vault.layout import SCHEMA_FILE
from wikic.vault.paths import read_inside
from wikic.vault.resolve import fold_name
from wikic.vault.state import read_cache_json, write_cache

if TYPE_CHECKING:
    from wikic.lint.context import LintContext
    from wikic.vault.load import FileInfo

FORMAT = 1
LISTING = "cache/lint-files.json"  # the files the last lint saw, and which run it was


def cache_key(root: Path, rule_ids: Collection[str]) -> str:
    """What a cache of findings belongs to: this format, this version of wikic, the rules (or what else is
    given) and SCHEMA.md's bytes."""
    h = hashlib.sha256(f"{FORMAT}|{__version__}|{sorted(rule_ids)}".encode())
    try:
        schema = read_inside(root, root / SCHEMA_FILE)
    except (OSError, VaultError):
        schema = None
    h.update(b"\0no schema" if schema is None else schema)
    return h.hexdigest()


def cache_name(rule_id: str) -> str:
    """The cache file of `rule_id`'s kept findings (one a rule: a rule run in a forked process keeps its own)."""
    return f"cache/rule-{rule_id}.json"


@dataclass(frozen=True)
class Delta:
    """What changed in the vault's files since the last lint (`since`: that run's key)."""

    since: str
    changed: frozenset[str]  # added, removed, or of another size or mtime
    added: frozenset[str]
    removed: frozenset[str]

    @property
    def moved(self) -> bool:
        """Files were added or removed: where a link lands, and the vault's names, may have changed."""
        return bool(self.added or self.removed)


def delta(ctx: LintContext) -> Delta | None:
    """The files changed since the last lint that kept its listing, worked out once a run; None when there is
    no such listing (every page is judged)."""
    if "_delta" not in ctx.__dict__:
        ctx.__dict__["_delta"] = _delta(ctx.vault.root, ctx.vault.files)
    found: Delta | None = ctx.__dict__["_delta"]
    return found


def _delta(root: Path, files: dict[str, FileInfo]) -> Delta | None:
    data = read_cache_json(root, LISTING)
    if data is None or not isinstance(data.get("run"), str) or not isinstance(data.get("files"), dict):
        return None
    before: dict[str, Any] = data["files"]
    changed = {path for path, info in files.items() if before.get(path) != [info.size, info.mtime_ns]}
    added = {path for path in changed if path not in before}
    removed = {path for path in before if path not in files}
    return Delta(data["run"], frozenset(changed | removed), frozenset(added), frozenset(removed))


def keep_listing(root: Path, run: str, files: dict[str, FileInfo]) -> None:
    """Keep the files this run (`run`: its key) saw, for the next run's `Delta`. Written when the run is done:
    the findings a rule kept in it are trusted only with this listing beside them."""
    listing = {path: [info.size, info.mtime_ns] for path, info in files.items()}
    write_cache(root, LISTING, json.dumps({"run": run, "files": listing}, separators=(",", ":")))


def each_page(
    ctx: LintContext,
    rule_id: str,
    pages: Iterable[str],
    judge: Callable[[str], Iterable[Finding]],
    reads: Callable[[str], Iterable[str]] | None = None,
    again: Callable[[Delta, bool], Iterable[str]] | None = None,
    *,
    shared: str = "",
    also: str = "",
) -> Iterator[Finding]:
    """`judge`'s findings on each of `pages`, in their order. With the caches kept, a page is judged only when
    it changed since the last lint, when a file it `reads` (beside itself; a name may be given folded, for a
    lookup that ignores case) changed, or when `again(delta, shared_changed)` names it: a page whose judgement
    a file added or removed may change (where its links land), or that reads the vault-wide inputs summed up
    in `shared` when they changed. Any other page's findings are those the last run kept. `also`: what else the
    findings depend on, the same for every page (the date)."""
    run = ctx.run
    if not ctx.cached or run is None:
        for page in pages:
            yield from judge(page)
        return
    root = ctx.vault.root
    key = cache_key(root, (f"{rule_id}|{also}",))
    since = delta(ctx)
    data = read_cache_json(root, cache_name(rule_id)) if since is not None else None
    kept: dict[str, Any] = {}
    kept_reads: dict[str, Any] = {}
    redo: set[str] = set()
    trusted = False
    if (since is not None and data is not None and data.get("key") == key and data.get("run") == since.since
            and isinstance(data.get("pages"), dict) and isinstance(data.get("reads"), dict)):
        trusted = True
        kept, kept_reads = data["pages"], data["reads"]
        redo.update(since.changed)
        for path in since.changed:
            for name in {path, fold_name(path)}:
                readers = kept_reads.get(name)
                if isinstance(readers, list):
                    redo.update(r for r in readers if isinstance(r, str))
        if again is not None:
            redo.update(again(since, data.get("shared") != shared))
    rows: dict[str, Any] = {}
    judged: list[str] = []
    seen: set[str] = set()
    for page in pages:
        seen.add(page)
        found = None
        row = kept.get(page) if trusted and page not in redo else None
        if trusted and page not in redo:
            found = [] if row is None else _decode(row)
        if found is None:
            found = list(judge(page))
            row = [f.to_dict() for f in found]
            judged.append(page)
        if found:
            rows[page] = row
        yield from found
    # what each page reads: the kept pages' as kept (the pages judged again, or gone, dropped), the others' anew
    read_by: dict[str, list[str]] = {}
    if reads is not None:
        keep = seen.difference(judged)
        for name, readers in kept_reads.items():
            left = [p for p in readers if isinstance(p, str) and p in keep] if isinstance(readers, list) else []
            if left:
                read_by[name] = left
        for page in judged:
            for name in dict.fromkeys(reads(page)):
                read_by.setdefault(name, []).append(page)
    write_cache(root, cache_name(rule_id), json.dumps(
        {"key": key, "run": run, "shared": shared, "pages": rows, "reads": read_by}, separators=(",", ":")))


def _decode(row: Any) -> list[Finding] | None:
    """A page's kept findings, or None when the row is damaged."""
    if not isinstance(row, list):
        return None
    try:
        return [Finding.from_dict(d) for d in row]
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def digest(value: Any) -> str:
    """A short digest of `value`'s `repr` (what a rule reads of the whole vault, for `each_page`'s `shared`)."""
    return hashlib.blake2b(repr(value).encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
