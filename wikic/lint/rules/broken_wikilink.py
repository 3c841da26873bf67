"""broken-wikilink: a link whose target, heading or block does not exist.

Why: a link that leads nowhere is a dead end for the reader, and the graph and the compiler lose the relation it
stated.

Example: `[[opnai]]` where the page is `entities/openai.md` (reported with "did you mean [[openai]]?"), or
`[[openai#Funding]]` on a page with no such heading.

Fix: correct the target, create the page, or drop the link; `--fix` rewrites a link whose page is unambiguous by
title or alias.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from wikic.lint import close_names, kept_findings
from wikic.lint.context import LintContext
from wikic.lint.finding import Finding, Fix
from wikic.lint.rule import Rule
from wikic.lint.rules._links import hub_source
from wikic.vault.graph import is_citation
from wikic.vault.layout import INDEX_FILE, OVERVIEW_FILE, RAW_DIR
from wikic.vault.model import FRONTMATTER, Link
from wikic.vault.resolve import fold_name, heading_key
from wikic.vault.resolved_cache import may_reach, reachable_names
from wikic.vault.slug import slugify


def suggest(ctx: LintContext, source: str, link: Link) -> tuple[str | None, Fix | None]:
    """'Did you mean' for a link that resolves nowhere. A fix is offered only when exactly one page is meant:
    its title or an alias equals the link text, or the link text slugs to an existing page name."""
    target = link.target
    meant: list[str] = []
    by_name = ctx.names.get(fold_name(target), [])
    if len(set(by_name)) == 1:
        meant = by_name[:1]
    else:
        slug = slugify(target)
        if slug:
            found = ctx.links.resolver.by_stem(slug)
            pages = [p for p in found if ctx.is_page(p) or not ctx.schema.present]
            if len(pages) == 1:
                meant = pages
    if meant and link.kind != FRONTMATTER and link.raw.startswith(("[[", "![[")):
        page = meant[0]
        text = ctx.link_names.link_text(page)
        sub = f"#{link.subpath}" if link.subpath else ""
        display = link.alias if link.alias is not None else target
        bang = "!" if link.raw.startswith("!") else ""
        new = f"{bang}[[{text}{sub}|{display}]]"
        return f"[[{text}|{display}]]", Fix("replace", source, link.line, link.raw, new)
    if meant:
        return f"[[{ctx.link_names.link_text(meant[0])}]]", None
    close = _close_name(ctx, target)
    return (f"[[{close}]]" if close else None), None


def _close_name(ctx: LintContext, target: str) -> str | None:
    """A page name within a typo of `target` (`close_names.Names`), found once a run and kept from run to run
    while the page names are the same."""
    offered = _offered(ctx)
    offered.asked.add(target)
    memo = offered.memo
    if target in memo:
        return memo[target]
    names = ctx.__dict__.get("_names")
    if names is None:
        names = ctx.__dict__["_names"] = close_names.Names(posixpath.basename(page)[:-3] for page in ctx.pages)
    memo[target] = names.closest(target)
    return memo[target]


@dataclass
class _Offered:
    """The names found for targets in this run (`memo`), first those an earlier run kept for the same page
    names (`known`, under `key`; no key: the run keeps no caches), and the targets asked about."""

    memo: dict[str, str | None]
    known: dict[str, str | None]
    key: str | None
    asked: set[str] = field(default_factory=set)


def _offered(ctx: LintContext) -> _Offered:
    found: _Offered | None = ctx.__dict__.get("_close_names")
    if found is None:
        stems = [posixpath.basename(page)[:-3] for page in ctx.pages]
        key = close_names.names_key(stems) if ctx.cached else None
        known = close_names.load(ctx.vault.root, key, _names_before(ctx, stems)) if key is not None else {}
        found = ctx.__dict__["_close_names"] = _Offered(dict(known), known, key)
    return found


def _names_before(ctx: LintContext, stems: list[str]) -> tuple[str, list[str]] | None:
    """(the key of the page names before the pages added or removed since the last lint, their names): the
    names an earlier run offered for targets none of those is near still hold."""
    since = kept_findings.delta(ctx)
    if since is None or not since.moved:
        return None
    added = [posixpath.basename(p)[:-3] for p in since.added if ctx.is_page(p)]
    removed = [posixpath.basename(p)[:-3] for p in since.removed if ctx.is_page(p)]
    before = Counter(stems)
    before.subtract(added)
    before.update(removed)
    return close_names.names_key(before.elements()), [*added, *removed]


def _keep_close_names(ctx: LintContext) -> None:
    """Keep the names this run offered for the next one, with those it found kept (a note whose findings were
    kept asked for none), when it offered one they do not hold."""
    found: _Offered | None = ctx.__dict__.get("_close_names")
    if found is None or found.key is None:
        return
    if any(target not in found.known for target in found.asked):
        offered = {target: found.memo[target] for target in sorted(found.asked | set(found.known))}
        close_names.save(ctx.vault.root, found.key, offered)


def _anchors(ctx: LintContext, target: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """A note's heading keys and lowercased block ids, worked out once per note (a page's headings are
    linked to again and again)."""
    memo: dict[str, tuple[frozenset[str], frozenset[str]] | None] = ctx.__dict__.setdefault("_anchor_memo", {})
    if target not in memo:
        note = ctx.note(target)
        memo[target] = (
            None
            if note is None
            else (frozenset(heading_key(h.text) for h in note.headings), frozenset(b.id.lower() for b in note.blocks))
        )
    return memo[target]


def _subpath_problem(ctx: LintContext, link: Link, target: str) -> str | None:
    sub = link.subpath
    if not sub or not target.endswith(".md"):
        return None  # `#page=3` on a PDF is not a heading
    anchors = _anchors(ctx, target)
    if anchors is None:
        return None
    headings, blocks = anchors
    if sub.startswith("^"):
        if sub[1:].lower() not in blocks:
            return f"block '^{sub[1:]}' not found in '{target}'"
        return None
    last = sub.split("#")[-1]
    key = heading_key(last)
    if not key:
        return None
    if key not in headings:
        return f"heading '#{last}' not found in '{target}'"
    return None


def _hub_fix(ctx: LintContext, source: str) -> Fix | None:
    """A hub is written by code from the vault: written again, it links only what exists."""
    if source == OVERVIEW_FILE and ctx.schema.present:
        return Fix("hub", OVERVIEW_FILE)
    if ctx.is_hub(source) and source != INDEX_FILE:
        raw = hub_source(ctx, source)
        return Fix("hub", raw) if raw else None
    return None


def broken_links(ctx: LintContext) -> Iterator[Finding]:
    # every loaded note: wiki pages, index.md and the notes beside them (log.md, SCHEMA.md and raw/ are not loaded)
    yield from kept_findings.each_page(
        ctx, "broken-wikilink", sorted(ctx.vault.notes), lambda source: _broken(ctx, source),
        again=lambda delta, names_changed: _again(ctx, delta, names_changed),
        shared=kept_findings.digest(sorted(ctx.names.items())) if ctx.cached else "")
    _keep_close_names(ctx)


def _again(ctx: LintContext, delta: kept_findings.Delta, names_changed: bool) -> set[str]:
    """The notes whose broken links a change since the last lint may change, beside the changed notes: those
    with a link into a heading or block of a changed file; when files were added or removed, those whose links
    may land elsewhere now (`resolved_cache.may_reach`); and those with a link that lands nowhere when the
    vault's files or names changed (its hint is chosen from them: `suggest`)."""
    out: set[str] = set()
    changed = delta.changed
    hints_changed = names_changed or delta.moved
    for source, edges in ctx.links.by_source.items():
        for edge in edges:
            if edge.target is None:
                if hints_changed:
                    out.add(source)
                    break
            elif edge.target in changed and edge.link.subpath:
                out.add(source)
                break
    if delta.moved:
        names = reachable_names(delta.added | delta.removed)
        out.update(path for path, note in ctx.vault.notes.items() if may_reach(note, names))
    return out


def _broken(ctx: LintContext, source: str) -> Iterator[Finding]:
    """The broken links of one note."""
    for edge in ctx.edges_from(source):
        link = edge.link
        if edge.target is None and is_citation(link, None):
            moved = [
                p
                for p in ctx.links.resolver.by_stem(posixpath.basename(link.target))
                if p.startswith(RAW_DIR + "/")
            ]
            message = f"cited source '{link.target}' does not exist" + (
                f"; did you mean {moved[0]}?" if len(moved) == 1 else ""
            )
            yield ctx.finding("broken-wikilink", source, link.line, message, column=link.column, target=link.target)
            continue
        if edge.target is None:
            hint, fix = suggest(ctx, source, link)
            fix = fix or _hub_fix(ctx, source)
            message = f"link target '{link.target}' does not exist"
            if hint:
                message += f"; did you mean {hint}?"
            yield ctx.finding(
                "broken-wikilink", source, link.line, message, column=link.column, target=link.target, fix=fix
            )
            continue
        problem = _subpath_problem(ctx, link, edge.target)
        if problem:
            full = f"{link.target}#{link.subpath}" if link.target else f"#{link.subpath}"
            yield ctx.finding("broken-wikilink", source, link.line, problem, column=link.column, target=full)


RULE = Rule(
    "broken-wikilink",
    "error",
    "a link whose target, heading or block does not exist",
    needs_schema=False,
    check=broken_links,
    at=lambda ctx, source: _broken(ctx, source),
)
