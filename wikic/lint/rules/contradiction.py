"""contradiction: contested pages, and contradictions that name a missing page or are not mirrored.

Why: two claims that hold at the same time and disagree cannot both be true; the reader must see both, with their
sources.

Example: `Acme has 40 employees ^[raw/a.md]` and `Acme has 55 employees ^[raw/b.md]`, both holding in 2024, on
`entities/acme.md`.

Fix: ingest a source that settles it, end the older claim (MCP `invalidate`), or mark the page `contested: true` and
mirror `contradictions:` on both pages.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.vault.frontmatter import unwrap_link

if TYPE_CHECKING:
    from wikic.vault.formats.claims import Claim
from wikic.lint.rule import Rule


def contradiction(ctx: LintContext) -> Iterator[Finding]:
    for path in ctx.pages:
        yield from contradiction_at(ctx, path)


def contradiction_at(ctx: LintContext, path: str) -> Iterator[Finding]:
    """The contradiction findings of one page: its own claims in conflict, and the pages its `contradictions`
    names that are missing or do not name it back."""
    if not ctx.is_page(path):
        return
    note = ctx.vault.notes[path]
    fm = note.frontmatter or {}
    line = note.key_lines.get("contradictions")
    if fm.get("contested") is True:
        conflicts = _claim_conflicts(ctx, path)
        for a, b in conflicts:
            yield ctx.finding(
                "contradiction",
                path,
                a.line,
                f"claims contradict each other since {max(a.start, b.start)}: '{_said(a.text)}' "
                f"^[{a.cited}] and '{_said(b.text)}' ^[{b.cited}] (a later source, or a person editing "
                "one of them, settles it)",
            )
        if not conflicts:
            yield ctx.finding(
                "contradiction",
                path,
                note.key_lines.get("contested"),
                "page is marked contested: its claims conflict with another source",
                severity="info",
            )
    for text, target in _named(ctx, path):
        if target is None:
            yield ctx.finding(
                "contradiction", path, line, f"contradictions names '{text}', which does not exist", target=text
            )
        elif ctx.is_page(target) and path not in {t for _, t in _named(ctx, target)}:
            yield ctx.finding(
                "contradiction",
                path,
                line,
                f"contradictions names '{text}', but '{target}' does not name this page back",
                target=text,
            )


def _named(ctx: LintContext, path: str) -> list[tuple[str, str | None]]:
    """The pages a page's `contradictions` names: each as written, and where it resolves."""
    fm = ctx.vault.notes[path].frontmatter or {}
    items = fm.get("contradictions")
    if not isinstance(items, list):
        return []
    out = []
    for item in items:
        if isinstance(item, str) and item.strip():
            text = unwrap_link(item)
            out.append((text, ctx.links.resolver.resolve(path, text).path))
    return out


def _claim_conflicts(ctx: LintContext, path: str) -> list[tuple[Claim, Claim]]:
    """Pairs of dated claims on `path` that hold today and contradict each other (`wikic/facts/`)."""
    from wikic.facts.lookup import page_timeline  # only for pages marked contested: most runs never load it

    try:
        text = (ctx.vault.root / path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    return [(a.claim, b.claim) for a, b in page_timeline(text).conflicts(ctx.today)]


def _said(text: str) -> str:
    from wikic.vault.formats.claims import plain_text

    plain = plain_text(text)
    return plain if len(plain) <= 100 else plain[:99] + "…"


RULE = Rule(
    "contradiction",
    "warning",
    "contested pages, and contradictions that name a missing page or are not mirrored",
    needs_schema=True,
    check=contradiction,
    at=contradiction_at,
)
