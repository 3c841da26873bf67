"""Page rules: what a reader of a compiled page trips over. no-lead, repeated-claim, uncited-sentence,
thin-section, source-sections (their definitions: README's lint section).

They look at the subject pages of a vault with SCHEMA.md: entities, concepts, comparisons and the page types
SCHEMA.md adds, not query pages. `no-lead` judges every one of them; the others judge compiler text, so only
compiled pages: those holding a lead, section, History or claims block. A page a person wrote without such
blocks is theirs, and never reported by them.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator

from wikic.facts.same_fact import fact_keys
from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.page_text import PageText
from wikic.lint.registry import rule
from wikic.vault.formats.claims import Claim, plain_text
from wikic.vault.layout import PAGE_FOLDERS
from wikic.vault.page_layout import CLAIMS, DEFAULT_LAYOUTS, role_of


def _subject(kind: str | None) -> bool:
    """A page about a subject: an entity, concept or comparison, or a page of a type SCHEMA.md adds (laid out
    as an entity). Not a query page, an answer with no subject to introduce."""
    return kind is not None and (kind in DEFAULT_LAYOUTS or kind not in PAGE_FOLDERS)


def _texts(ctx: LintContext) -> dict[str, PageText]:
    """Each subject page, read once for all these rules (a page that cannot be read is left to the `encoding`
    and `unsafe-path` rules)."""
    memo: dict[str, PageText] | None = ctx.__dict__.get("_page_texts")
    if memo is None:
        memo = {}
        for path in ctx.pages:
            if not _subject(ctx.vault.page_type(path)):
                continue
            try:
                text = (ctx.vault.root / path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            memo[path] = PageText(text.replace("\r\n", "\n"), ctx.vault.notes[path])
        ctx.__dict__["_page_texts"] = memo
    return memo


def _compiled(ctx: LintContext) -> Iterator[tuple[str, PageText]]:
    for path, page in _texts(ctx).items():
        if page.compiled:
            yield path, page


def _said(text: str, limit: int = 80) -> str:
    plain = " ".join(plain_text(text).split())
    return plain if len(plain) <= limit else plain[: limit - 1] + "…"


@rule("no-lead", "warning", "a subject page that does not open with a lead saying what its subject is",
      needs_schema=True)
def no_lead(ctx: LintContext) -> Iterator[Finding]:
    for path, page in _texts(ctx).items():
        first = (page.title or page.body_start - 1) + 1
        last = next((s.line - 1 for s in page.sections if s.line >= first), len(page.lines))
        lead = page.lead_block()
        if lead is not None and lead.begin >= first and lead.end <= last and page.has_text(lead.begin, lead.end):
            continue
        if page.has_paragraph(first, last):  # a paragraph of the person's own
            continue
        opening = next((n for n in range(first, len(page.lines) + 1) if page.shown(n)), None)
        title = (ctx.vault.notes[path].frontmatter or {}).get("title") or posixpath.basename(path)[:-3]
        if opening is not None:
            where = f"opens with '{_said(page.lines[opening - 1].strip(), 40)}'"
        else:
            where = "has nothing after its title" if page.title else "has no text"
        yield ctx.finding(
            "no-lead",
            path,
            opening if opening is not None else page.title,
            f"the page {where}, not a lead saying what {title} is (a summary block or a paragraph before the "
            "first '##' section)",
        )


@rule("repeated-claim", "warning", "one page stating the same claim twice", needs_schema=True)
def repeated_claim(ctx: LintContext) -> Iterator[Finding]:
    for path, page in _compiled(ctx):
        first_by_text: dict[str, Claim] = {}
        first_by_fact: dict[tuple[object, ...], Claim] = {}
        for claim in page.claims:
            words, fact = fact_keys(claim.text)
            earlier = [c for c in (first_by_text.get(words), first_by_fact.get(fact)) if c is not None]
            if earlier:
                first = min(earlier, key=lambda c: c.line or 0)
                yield ctx.finding(
                    "repeated-claim",
                    path,
                    claim.line,
                    f"states the claim of line {first.line} again: '{_said(claim.text)}' (one line can carry "
                    "every source's anchor)",
                )
            first_by_text.setdefault(words, claim)
            first_by_fact.setdefault(fact, claim)


@rule("uncited-sentence", "warning", "a sentence of compiler text with no anchor after it", needs_schema=True)
def uncited_sentence(ctx: LintContext) -> Iterator[Finding]:
    for path, page in _compiled(ctx):
        for block in page.blocks:
            if not block.holds_statements:
                continue
            for said in page.statements(block.begin + 1, block.end - 1):
                if not said.cited:
                    yield ctx.finding(
                        "uncited-sentence",
                        path,
                        said.line,
                        f"'{_said(said.text)}' carries no anchor: it rests on no quote of a source",
                        column=said.column,
                    )


@rule("thin-section", "warning", "a section of the page's layout holding fewer claims than min_section_claims",
      needs_schema=True)
def thin_section(ctx: LintContext) -> Iterator[Finding]:
    minimum = ctx.schema.thresholds["min_section_claims"]
    if minimum <= 0:
        return
    for path, page in _compiled(ctx):
        layout = ctx.schema.layout(ctx.vault.page_type(path) or "")
        for section in page.sections:
            named = layout.named(section.heading)
            if named is None or role_of(named) != CLAIMS:
                continue
            held = len({c.id for c in page.claims if page.in_section(section, c.line)})
            if not held:  # a section a person rewrote without claim lines: what it cites counts
                held = sum(1 for s in page.statements(section.line + 1, section.end) if s.cited)
            if held < minimum:
                count = f"{held} claim{'' if held == 1 else 's'}" if held else "no claim"
                yield ctx.finding(
                    "thin-section",
                    path,
                    section.line,
                    f"'## {section.heading}' holds {count}; SCHEMA.md's min_section_claims is {minimum}",
                )


@rule("source-sections", "warning",
      "a page of several sources whose every section holds one source's claims, not all of them the layout's",
      needs_schema=True)
def source_sections(ctx: LintContext) -> Iterator[Finding]:
    for path, page in _compiled(ctx):
        held: list[tuple[str, set[str]]] = []
        for section in page.sections:
            if role_of(section.heading) != CLAIMS:
                continue
            sources = {s for c in page.claims if page.in_section(section, c.line) for s in c.sources}
            if sources:
                held.append((section.heading, sources))
        cited = {s for _, sources in held for s in sources}
        if len(held) < 2 or len(cited) < 2 or any(len(sources) > 1 for _, sources in held):
            continue
        # the compiler files each claim under the layout's section for its topic: sections it lays out are
        # topic sections, however the sources happen to fall
        layout = ctx.schema.layout(ctx.vault.page_type(path) or "")
        if all(layout.named(heading) is not None for heading, _ in held):
            continue
        listed = "; ".join(f"{heading}: {posixpath.basename(next(iter(sources)))}" for heading, sources in held)
        yield ctx.finding(
            "source-sections",
            path,
            None,
            f"each of its {len(held)} sections holds the claims of one source ({listed}): sections by source, not "
            "by topic",
        )
