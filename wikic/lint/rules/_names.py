"""What the name rules share: each subject page's title, aliases and the raw sources it cites."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wikic.lint.context import LintContext
from wikic.vault.layout import RAW_DIR


@dataclass(frozen=True)
class Named:
    path: str
    title: str
    aliases: tuple[str, ...]
    sources: tuple[str, ...]  # the raw files the page cites that the vault holds


def named_pages(ctx: LintContext) -> list[Named]:
    """Every subject page with a title (its frontmatter's), its aliases and the sources it cites."""
    out = []
    for path in ctx.subject_pages:
        fm: dict[str, Any] = ctx.vault.notes[path].frontmatter or {}
        title = fm.get("title")
        if not isinstance(title, str) or not title.strip():
            continue
        aliases = fm.get("aliases")
        listed = aliases if isinstance(aliases, list) else [aliases] if isinstance(aliases, str) else []
        given = fm.get("sources")
        cited: list[Any] = given if isinstance(given, list) else []
        sources = tuple(s for s in cited if isinstance(s, str) and s.startswith(RAW_DIR + "/") and s in ctx.vault.files)
        out.append(Named(path, title.strip(), tuple(a.strip() for a in listed if isinstance(a, str) and a.strip()),
                         sources))
    return out
