"""What the name rules share: each subject page's title, aliases and the raw sources it cites."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from wikic.lint import kept_findings
from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.vault.layout import RAW_DIR


@dataclass(frozen=True)
class Named:
    path: str
    title: str
    aliases: tuple[str, ...]
    sources: tuple[str, ...]  # the raw files the page cites that the vault holds


def each_named(ctx: LintContext, rule_id: str, judge: Callable[[Named], Iterable[Finding]]) -> Iterator[Finding]:
    """`judge`'s findings on every named page: judged again only when the page or a raw file it cites changed
    (`kept_findings`): a name rule reads nothing else."""

    # every name rule reads the same pages: each is read once a run
    memo: dict[str, Named | None] = ctx.__dict__.setdefault("_named_pages", {})

    def judge_page(path: str) -> Iterable[Finding]:
        if path not in memo:
            memo[path] = named_page(ctx, path)
        named = memo[path]
        return judge(named) if named is not None else ()

    def citing(delta: kept_findings.Delta, _: bool) -> list[str]:
        # the pages citing a raw file changed, added or removed (one added is one more to read)
        raw = {path for path in delta.changed if path.startswith(RAW_DIR + "/")}
        if not raw:
            return []
        out = []
        for path in ctx.subject_pages:
            given = (ctx.vault.notes[path].frontmatter or {}).get("sources")
            if isinstance(given, list) and any(isinstance(s, str) and s in raw for s in given):
                out.append(path)
        return out

    yield from kept_findings.each_page(ctx, rule_id, ctx.subject_pages, judge_page, again=citing)


def named_at(
    ctx: LintContext, path: str, judge: Callable[[LintContext, Named], Iterable[Finding]]
) -> Iterable[Finding]:
    """A name rule's findings on one page, as `each_named` gives them."""
    if not (ctx.is_page(path) and not ctx.is_hub(path)):
        return ()
    named = named_page(ctx, path)
    return judge(ctx, named) if named is not None else ()


def named_page(ctx: LintContext, path: str) -> Named | None:
    """A subject page's title (its frontmatter's), its aliases and the sources it cites; None without a
    title."""
    fm: dict[str, Any] = ctx.vault.notes[path].frontmatter or {}
    title = fm.get("title")
    if not isinstance(title, str) or not title.strip():
        return None
    aliases = fm.get("aliases")
    listed = aliases if isinstance(aliases, list) else [aliases] if isinstance(aliases, str) else []
    given = fm.get("sources")
    cited: list[Any] = given if isinstance(given, list) else []
    sources = tuple(s for s in cited if isinstance(s, str) and s.startswith(RAW_DIR + "/") and s in ctx.vault.files)
    return Named(path, title.strip(), tuple(a.strip() for a in listed if isinstance(a, str) and a.strip()), sources)
