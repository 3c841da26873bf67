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
a rule that compares with it), and to the listing kept beside them: the listing names each rule's file of
findings by a digest of its bytes, and is written when the run is done. Findings a run left without its
listing (it stopped, or ran other rules), or that were changed since, are not trusted, nor a damaged file:
every page is judged, and the file written anew. A run that keeps no caches judges every page.
"""

from __future__ import annotations

import hashlib
import json
import os
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
from wikic.vault.state import read_cache_bytes, write_cache

if TYPE_CHECKING:
    from wikic.lint.context import LintContext
    from wikic.vault.load import FileInfo

FORMAT = 1
# What `reads` names for a file outside the vault's listing (a dot-folder's): no change to it is seen, so the
# page is judged in every run
UNLISTED = "\0unlisted"
LISTING = "cache/lint-files"  # the files the last lint saw, and the digests of the findings it kept


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
    """What changed in the vault's files since the last lint that kept its listing."""

    vouched: dict[str, str]  # rule id -> the digest of the file of findings that lint left
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


def _stamp(info: FileInfo) -> str:
    return f"{info.size}:{info.mtime_ns}"


def _delta(root: Path, files: dict[str, FileInfo]) -> Delta | None:
    # the listing: a line of JSON (the format, the rules' digests), then path NUL stamp NUL ... (no path holds NUL)
    data = read_cache_bytes(root, LISTING)
    if not data:
        return None
    head, _, body = data.partition(b"\n")
    try:
        header = json.loads(head)
        fields = body.decode("utf-8", "surrogateescape").split("\0") if body else []
    except (ValueError, UnicodeDecodeError):
        return None
    if not (isinstance(header, dict) and header.get("format") == FORMAT and isinstance(header.get("rules"), dict)
            and len(fields) % 2 == 0):
        return None
    before = dict(zip(fields[0::2], fields[1::2], strict=True))
    changed = {path for path, info in files.items() if before.get(path) != _stamp(info)}
    added = {path for path in changed if path not in before}
    removed = {path for path in before if path not in files}
    rules = {str(k): v for k, v in header["rules"].items() if isinstance(v, str)}
    return Delta(rules, frozenset(changed | removed), frozenset(added), frozenset(removed))


def keep_listing(root: Path, files: dict[str, FileInfo], kept: dict[str, str]) -> str | None:
    """Keep the files this run saw, for the next run's `Delta`, with the digest of each file of findings a
    rule kept in it (`kept`). Written when the run is done: those findings are trusted only beside it. Gives
    the digest of the listing written (`listing_digest`), None when none could be."""
    header = json.dumps({"format": FORMAT, "rules": kept}, separators=(",", ":"))
    body = "\0".join(f"{path}\0{_stamp(info)}" for path, info in files.items())
    try:
        data = header.encode("utf-8") + b"\n" + body.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return None  # a name no file system gave: no listing, and the next run judges every page
    write_cache(root, LISTING, data)
    return _digest_bytes(data)


def listing_digest(root: Path) -> str | None:
    """The digest of the listing the last lint kept (None: there is none): what it is, the findings its rules
    kept are."""
    data = read_cache_bytes(root, LISTING)
    return _digest_bytes(data) if data else None


def rule_reads(root: Path, rule_id: str, since: Delta) -> dict[str, Any] | None:
    """What each file is read by, as the rule kept it with the listing `since` was told from (name -> the pages
    judged from it); None when the listing does not vouch for the rule's file, or it cannot be read."""
    raw = read_cache_bytes(root, cache_name(rule_id))
    if raw is None or since.vouched.get(rule_id) != _digest_bytes(raw):
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    reads = data.get("reads") if isinstance(data, dict) else None
    return reads if isinstance(reads, dict) else None


def since_listing(root: Path, files: dict[str, FileInfo]) -> Delta | None:
    """The files changed since the last lint that kept its listing (`delta`, without a run's context)."""
    return _delta(root, files)


def stamps(root: Path, paths: Iterable[str]) -> dict[str, list[int] | None]:
    """The size and mtime of each file (None: there is none), as the caches keep them."""
    out: dict[str, list[int] | None] = {}
    for path in paths:
        try:
            st = os.stat(root / path)
        except (OSError, ValueError):
            out[path] = None
        else:
            out[path] = [st.st_size, st.st_mtime_ns]
    return out


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
    findings depend on, the same for every page (the date). The digest of the findings kept goes to `ctx.kept`,
    for the listing."""
    if not ctx.cached:
        for page in pages:
            yield from judge(page)
        return
    root = ctx.vault.root
    key = cache_key(root, (f"{rule_id}|{also}",))
    since = delta(ctx)
    raw = read_cache_bytes(root, cache_name(rule_id)) if since is not None else None
    data: Any = None
    kept: dict[str, Any] = {}
    kept_reads: dict[str, Any] = {}
    redo: set[str] = set()
    trusted = False
    if since is not None and raw is not None and since.vouched.get(rule_id) == _digest_bytes(raw):
        try:
            data = json.loads(raw)
        except ValueError:
            data = None
        if (isinstance(data, dict) and data.get("key") == key and isinstance(data.get("pages"), dict)
                and isinstance(data.get("reads"), dict)):
            trusted = True
            kept, kept_reads = data["pages"], data["reads"]
            redo.update(since.changed)
            redo.update(r for r in kept_reads.get(UNLISTED, ()) if isinstance(r, str))
            for path in since.changed:
                for name in {path, fold_name(path)}:
                    readers = kept_reads.get(name)
                    if isinstance(readers, list):
                        redo.update(r for r in readers if isinstance(r, str))
            if again is not None:
                redo.update(again(since, data.get("shared") != shared))
    dirty = not trusted
    rows: dict[str, Any] = {}
    judged: list[str] = []
    seen: set[str] = set()
    for page in pages:
        seen.add(page)
        row = kept.get(page)
        found = None
        if trusted and page not in redo:
            found = [] if row is None else _decode(row)
        if found is None:
            found = list(judge(page))
            new = [f.to_dict() for f in found]
            dirty = dirty or new != (row or [])
            row = new
            judged.append(page)
        if found:
            rows[page] = row
        yield from found
    # what each page reads: as kept, but for the pages gone and what a page judged here no longer reads, and
    # with what it reads now (in the order kept: what no page changed is what was kept)
    read_by: dict[str, list[str]] = {}
    if reads is not None:
        now = {page: set(reads(page)) for page in judged}
        for name, readers in kept_reads.items():
            left = [p for p in readers if isinstance(p, str) and p in seen and (p not in now or name in now[p])] \
                if isinstance(readers, list) else []
            if left:
                read_by[name] = left
        was: dict[str, set[str]] = {}  # name -> the pages kept as reading it (a set: one look-up a page)
        for page, names in now.items():
            for name in sorted(names):
                readers = was.get(name)
                if readers is None:
                    listed = kept_reads.get(name)
                    readers = was[name] = set(filter(_is_text, listed)) if isinstance(listed, list) else set()
                if page not in readers:
                    read_by.setdefault(name, []).append(page)
    dirty = dirty or read_by != kept_reads or any(page not in seen for page in kept)
    if trusted and not dirty and data.get("shared") == shared:
        ctx.kept[rule_id] = since.vouched[rule_id] if since is not None else ""
        return
    out = json.dumps({"key": key, "shared": shared, "pages": rows, "reads": read_by}, separators=(",", ":"))
    encoded = out.encode("utf-8", "surrogatepass")
    write_cache(root, cache_name(rule_id), encoded)
    ctx.kept[rule_id] = _digest_bytes(encoded)


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


def _digest_bytes(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


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
