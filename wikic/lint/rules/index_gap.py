"""index-gap: a hub that misses a page. Every wiki page listed in index.md, and every index entry pointing at
a page that exists; index.md leading to the overview; every raw source a subject page is built on having a
source page, which lists every subject page built on it. `--fix` repairs each (`fix.py`).

Why: index.md and the source pages are how a reader (and an assistant) finds every page: a page missing there is
found by search alone.

Example: `concepts/rag.md` exists and index.md has no `[[rag]]` entry.

Fix: `wikic lint --fix` adds the entries and source pages, and drops index entries to pages that are gone.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding, Fix
from wikic.lint.rule import Rule
from wikic.lint.rules._links import hub_source
from wikic.vault.frontmatter import unwrap_link
from wikic.vault.layout import INDEX_FILE, OVERVIEW_FILE, RAW_DIR

SOURCE_TYPE = "source"
NOT_LISTED = "page is not listed in index.md"


def index_gap(ctx: LintContext) -> Iterator[Finding]:
    yield from index_entries(ctx)
    yield from _hubs(ctx)


def index_entries(ctx: LintContext) -> Iterator[Finding]:
    index = ctx.vault.notes.get(INDEX_FILE)
    if index is None:
        if ctx.pages and _absent(ctx, INDEX_FILE):
            yield ctx.finding(
                "index-gap",
                INDEX_FILE,
                None,
                "index.md is missing: no page is listed",
                fix=Fix("index-add", INDEX_FILE),
            )
        return
    listed: dict[str, int] = {}
    for edge in ctx.edges_from(INDEX_FILE):
        link = edge.link
        if edge.target is None:
            yield ctx.finding(
                "index-gap",
                INDEX_FILE,
                link.line,
                f"index entry '{link.target}' points at a page that does not exist",
                column=link.column,
                target=link.target,
                fix=Fix("index-remove", INDEX_FILE, link.line, link.raw),
            )
            continue
        if edge.target in listed and ctx.is_page(edge.target) and edge.target != INDEX_FILE:
            yield ctx.finding(
                "index-gap",
                INDEX_FILE,
                link.line,
                f"'{edge.target}' is listed twice (first at line {listed[edge.target]})",
                column=link.column,
                target=link.target,
                severity="warning",
            )
        listed.setdefault(edge.target, link.line)
    for page in ctx.pages:
        if page not in listed:
            yield not_listed(ctx, page)
    if OVERVIEW_FILE in ctx.vault.files and OVERVIEW_FILE not in listed:
        yield ctx.finding(
            "index-gap",
            INDEX_FILE,
            None,
            "index.md does not lead to overview.md",
            severity="warning",
            fix=Fix("index-overview", INDEX_FILE),
        )


def not_listed(ctx: LintContext, page: str) -> Finding:
    return ctx.finding("index-gap", page, None, NOT_LISTED, fix=Fix("index-add", page))


def _absent(ctx: LintContext, name: str) -> bool:
    """No file `name` at the vault's root. One that is there and was not read (a link leading out of the vault,
    a named pipe) is unsafe-path's finding, and no fix may write over it."""
    return name not in ctx.vault.files and not os.path.lexists(ctx.vault.root / name)


def _hubs(ctx: LintContext) -> Iterator[Finding]:
    """The overview and the source pages, which code writes on every ingest (warnings: nothing is wrong with
    the subject pages themselves). A vault with no hub at all is one an earlier version made: it is held to
    them once `wikic init` or its next ingest has written them."""
    hubs = source_hubs(ctx)
    if not hubs and OVERVIEW_FILE not in ctx.vault.files:
        return
    subjects = ctx.subject_pages
    if subjects and _absent(ctx, OVERVIEW_FILE):
        yield ctx.finding(
            "index-gap",
            OVERVIEW_FILE,
            None,
            "overview.md is missing: nothing says what the wiki covers and where to start",
            severity="warning",
            fix=Fix("hub", OVERVIEW_FILE),
        )
    fed: dict[str, list[str]] = {}
    for page in subjects:
        for raw in built_on(ctx, page):
            fed.setdefault(raw, []).append(page)
    for raw, pages in sorted(fed.items()):
        yield from hub_gap(ctx, raw, pages, hubs.get(raw))


def source_hubs(ctx: LintContext) -> dict[str, str]:
    """Each raw file that has a source page -> that page (the first in page order)."""
    hubs: dict[str, str] = {}
    for page in ctx.pages:
        cited = hub_source(ctx, page) if ctx.vault.page_type(page) == SOURCE_TYPE else None
        if cited:
            hubs.setdefault(cited, page)
    return hubs


def built_on(ctx: LintContext, page: str) -> list[str]:
    """The raw files a subject page is built on, as its source pages are held to list it: those its `sources`
    names that exist (a filed answer quotes sources; it is not built on them)."""
    if ctx.vault.page_type(page) == "query":
        return []
    listed = (ctx.vault.notes[page].frontmatter or {}).get("sources")
    out = []
    for entry in listed if isinstance(listed, list) else []:
        raw = unwrap_link(entry) if isinstance(entry, str) else ""
        if raw.startswith(RAW_DIR + "/") and ctx.links.resolver.exists(raw):
            out.append(raw)
    return out


def hub_gap(ctx: LintContext, raw: str, pages: list[str], hub: str | None) -> Iterator[Finding]:
    """The finding of a raw file `pages` are built on (in page order): it has no source page (`hub`), or that
    page misses some of them."""
    if hub is None:
        yield ctx.finding(
            "index-gap",
            raw,
            None,
            f"no source page says what this source gave the wiki ({len(pages)} page(s) are built on it)",
            severity="warning",
            fix=Fix("hub", raw),
        )
        return
    linked = {e.target for e in ctx.edges_from(hub) if e.target}
    missed = [p for p in pages if p not in linked]
    if missed:
        shown = ", ".join(missed[:5]) + (f" and {len(missed) - 5} more" if len(missed) > 5 else "")
        yield ctx.finding(
            "index-gap",
            hub,
            None,
            f"does not list {shown}, built on {raw}",
            severity="warning",
            fix=Fix("hub", raw),
        )


def from_index(found: Finding) -> bool:
    """Whether an index-gap finding is about index.md (`index_entries`'), not a hub's."""
    return found.path == INDEX_FILE or found.message == NOT_LISTED


RULE = Rule(
    "index-gap",
    "error",
    "a hub missing a page: index.md, overview.md, a source's page",
    needs_schema=True,
    check=index_gap,
)
