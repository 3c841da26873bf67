"""stale-page: a page older than its newest source, or a query page that is old or cites changed pages.

Why: a page older than its sources may say what they no longer say; an old query page answers with the wiki of its
day.

Example: `entities/acme.md` updated 2025-01-01 citing `raw/b.md` captured 2025-03-01, past `stale_after_days`.

Fix: ingest the newer source again, refresh the query page (`wikic query --refresh PAGE`), or update the page and
its `updated:`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from wikic.lint import kept_findings
from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.kept_findings import Delta
from wikic.vault.formats.sources import sources_stamp
from wikic.vault.frontmatter import unwrap_link
from wikic.vault.resolved_cache import may_reach, reachable_names

if TYPE_CHECKING:
    pass
from wikic.lint.rule import Rule
from wikic.lint.rules._schema import as_date


def source_date(ctx: LintContext, source: str) -> dt.date | None:
    """When a raw source was captured: its own frontmatter (captured/ingested/date), else the source ledger.
    File modification times are not used: a git checkout resets them."""
    cache = ctx.__dict__.setdefault("_source_dates", {})
    if source in cache:
        return cache[source]
    found = None
    note = ctx.note(source) if source.endswith(".md") else None
    if note is not None and note.frontmatter:
        for key in ("captured", "ingested", "date", "published"):
            found = as_date(note.frontmatter.get(key))
            if found:
                break
    if found is None:
        entry = ctx.ledger.get(source)
        if entry is not None:
            found = as_date(entry.captured or entry.ingested)
    cache[source] = found
    return found


def stale(ctx: LintContext) -> Iterator[Finding]:
    folder_types = ctx.schema.folder_types()
    kept = f"{ctx.today}|{sources_stamp(ctx.vault.root)}"
    yield from kept_findings.each_page(
        ctx, "stale-page", ctx.pages, lambda path: _page(ctx, path, folder_types),
        reads=lambda path: _reads(ctx, path, folder_types),
        again=lambda delta, _: _landing_anew(ctx, delta, folder_types), also=kept)


def _landing_anew(ctx: LintContext, delta: Delta, folder_types: dict[str, str]) -> list[str]:
    """The query pages whose links may land elsewhere since files were added or removed (they are judged by
    the pages they land on)."""
    if not delta.moved:
        return []
    names = reachable_names(delta.added | delta.removed)
    return [p for p in ctx.pages if _query(p, folder_types) and may_reach(ctx.vault.notes[p], names)]


def _query(path: str, folder_types: dict[str, str]) -> bool:
    return folder_types.get(path.split("/", 1)[0]) == "query"


def _reads(ctx: LintContext, path: str, folder_types: dict[str, str]) -> list[str]:
    """The files a page's staleness is judged from beside the page itself, SCHEMA.md, the date and the source
    ledger: each source it cites, and for a query page the pages it cites and those its links land on (where a
    link lands may change when files are added or removed: a query page is judged again then)."""
    fm = ctx.vault.notes[path].frontmatter or {}
    listed = fm.get("sources")
    out = [unwrap_link(s) for s in listed if isinstance(s, str)] if isinstance(listed, list) else []
    if any(source not in ctx.vault.files for source in out):
        out.append(kept_findings.UNLISTED)  # `source_date` reads a note outside the listing too
    if _query(path, folder_types):
        cited = fm.get("cited")
        if isinstance(cited, dict):
            out.extend(str(t) for t in cited)
        out.extend(e.target for e in ctx.edges_from(path) if e.target)
    return out


def _page(ctx: LintContext, path: str, folder_types: dict[str, str]) -> Iterator[Finding]:
    """The stale-page findings of one page."""
    t = ctx.schema.thresholds
    fm = ctx.vault.notes[path].frontmatter or {}
    updated = as_date(fm.get("updated")) or as_date(fm.get("created"))
    if updated is None:
        return
    listed = fm.get("sources")
    sources = listed if isinstance(listed, list) else []
    dates = [d for d in (source_date(ctx, unwrap_link(s)) for s in sources if isinstance(s, str)) if d]
    if dates:
        newest = max(dates)
        if (newest - updated).days > t["stale_after_days"]:
            yield ctx.finding(
                "stale-page",
                path,
                None,
                (
                    f"updated {updated}, but it cites a source captured {newest} ({(newest - updated).days} days "
                    f"later; stale_after_days is {t['stale_after_days']})"
                ),
            )
    if folder_types.get(path.split("/", 1)[0]) == "query":
        age = (ctx.today - updated).days
        if age > t["query_max_age_days"]:
            yield ctx.finding(
                "stale-page",
                path,
                None,
                (
                    f"query page is {age} days old (query_max_age_days is {t['query_max_age_days']}); "
                    f"re-run it with `wikic query --refresh {path}`"
                ),
            )
        # `cited:` (written by query write-back) holds each cited page's content fingerprint: exact where
        # dates are not (same-day ingests, hand edits); pages it covers skip the date comparison below.
        edited, gone, fingerprinted = _cited_changes(ctx, fm.get("cited"))
        for pages, what in ((edited, "changed since this answer was written"), (gone, "no longer exist")):
            if pages:
                yield ctx.finding(
                    "stale-page", path, ctx.vault.notes[path].key_lines.get("cited"),
                    f"cited page(s) {what}: {', '.join(pages[:5])}; refresh it with `wikic query --refresh {path}`",
                )
        # `related:` pages (written by query write-back under "See also") are not citations: their
        # changes say nothing about the answer.
        related = {str(p) for p in fm.get("related") or []} if isinstance(fm.get("related"), list) else set()
        changed = []
        for edge in ctx.edges_from(path):
            if (
                edge.target
                and edge.target != path
                and ctx.is_page(edge.target)
                and edge.target not in fingerprinted | related
            ):
                cited = as_date((ctx.vault.notes[edge.target].frontmatter or {}).get("updated"))
                if cited and cited > updated:
                    changed.append(edge.target)
        if changed:
            names = ", ".join(sorted(set(changed))[:5])
            yield ctx.finding(
                "stale-page", path, None, f"cites page(s) updated after this answer was written: {names}"
            )


def _cited_changes(ctx: LintContext, cited: Any) -> tuple[list[str], list[str], set[str]]:
    """(changed, missing, all) pages of a query page's `cited: {path: fingerprint}` map."""
    if not isinstance(cited, dict):
        return [], [], set()
    from wikic.pages.fingerprint import fingerprint_matches

    edited, gone = [], []
    for target, recorded in sorted(cited.items(), key=lambda kv: str(kv[0])):
        target = str(target)
        try:
            # only files of the vault's own listing: a hand-written key cannot make lint read outside it
            if target not in ctx.vault.files:
                raise FileNotFoundError(target)
            text = (ctx.vault.root / target).read_text(encoding="utf-8", errors="replace")
        except OSError:
            gone.append(target)
            continue
        if not fingerprint_matches(recorded, text):
            edited.append(target)
    return edited, gone, {str(t) for t in cited}


RULE = Rule(
    "stale-page",
    "warning",
    "a page older than its newest source, or a query page that is old or cites changed pages",
    needs_schema=True,
    check=stale,
    at=lambda ctx, path: _page(ctx, path, ctx.schema.folder_types()) if ctx.is_page(path) else (),
)
