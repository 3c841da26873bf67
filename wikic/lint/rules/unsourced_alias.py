"""unsourced-alias: an alias of a page that is no other form of its title (case, spacing, hyphens, a generic
tail: "Chroma DB" of "Chroma"; its acronym) and that none of its sources says names the same subject ("Chroma
(ChromaDB)", "X, also called Y"; `wikic/text/name_use.py`). A model gives other names of the same source as
aliases; such an alias folds another subject into the page (its name then finds this page) and links the
word to it wherever it is written.

Why: an alias no source gives folds another subject into the page: its name then finds this page, and links the word
to it.

Example: `entities/chroma.md` with the alias `Pinecone`, which no source calls Chroma.

Fix: drop the alias, or ingest a source that says the two names mean the same subject.
"""

from __future__ import annotations

from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.rule import Rule
from wikic.lint.rules._names import Named, each_named, named_at
from wikic.vault.names import lookup_keys, name_keys, same_subject


def unsourced_aliases(ctx: LintContext) -> Iterator[Finding]:
    yield from each_named(ctx, "unsourced-alias", lambda page: _page(ctx, page))


def _page(ctx: LintContext, page: Named) -> Iterator[Finding]:
    if not page.sources or not page.aliases:
        return  # a person's page, or nothing to check
    forms = set(name_keys(page.title))
    for alias in page.aliases:
        if forms & set(lookup_keys(alias)) or same_subject(page.title, alias):
            continue
        if any((use := ctx.raw_texts.names(s)) is not None and use.states_same(page.title, alias)
               for s in page.sources):
            continue
        yield ctx.finding("unsourced-alias", page.path, None,
                          f"alias '{alias}' is no other form of '{page.title}', and none of the page's sources "
                          "says the two name one subject: remove the alias, or cite a source that says so",
                          target=alias)


RULE = Rule(
    "unsourced-alias",
    "warning",
    "an alias that is no other form of the page's title and that none of its sources says names the same",
    needs_schema=True,
    check=unsourced_aliases,
    at=lambda ctx, path: named_at(ctx, path, _page),
)
