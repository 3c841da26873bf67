"""What the page rules share. They judge what a reader of a compiled page trips over: no-lead,
repeated-claim, uncited-sentence, thin-section, source-sections (their definitions: README's lint section).

They look at the subject pages of a vault with SCHEMA.md: entities, concepts, comparisons and the page types
SCHEMA.md adds, not query pages. `no-lead` judges every one of them; the others judge compiler text, so only
compiled pages: those holding a lead, section, History or claims block. A page a person wrote without such
blocks is theirs, and never reported by them.
"""

from __future__ import annotations

from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.page_text import PageText
from wikic.vault.formats.claims import plain_text
from wikic.vault.layout import PAGE_FOLDERS
from wikic.vault.page_layout import DEFAULT_LAYOUTS


def subject_page(kind: str | None) -> bool:
    """A page about a subject: an entity, concept or comparison, or a page of a type SCHEMA.md adds (laid out
    as an entity). Not a query page, an answer with no subject to introduce."""
    return kind is not None and (kind in DEFAULT_LAYOUTS or kind not in PAGE_FOLDERS)


def page_texts(ctx: LintContext) -> dict[str, PageText]:
    """Each subject page, read once for all these rules (a page that cannot be read is left to the `encoding`
    and `unsafe-path` rules)."""
    memo: dict[str, PageText] | None = ctx.__dict__.get("_page_texts")
    if memo is None:
        memo = {}
        for path in ctx.pages:
            if not subject_page(ctx.vault.page_type(path)):
                continue
            try:
                text = (ctx.vault.root / path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            memo[path] = PageText(text.replace("\r\n", "\n"), ctx.vault.notes[path])
        ctx.__dict__["_page_texts"] = memo
    return memo


def compiled_pages(ctx: LintContext) -> Iterator[tuple[str, PageText]]:
    for path, page in page_texts(ctx).items():
        if page.compiled:
            yield path, page


def said_briefly(text: str, limit: int = 80) -> str:
    plain = " ".join(plain_text(text).split())
    return plain if len(plain) <= limit else plain[: limit - 1] + "…"
