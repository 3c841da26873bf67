"""ordinary-name: a page titled, or aliased, with an ordinary word: a function word ("The"), a bare kind noun
("Model", "Note"), or a common word none of the page's sources writes as a name ("Keeping", the opener of
"Keeping the verbatim text means…"). A careless model proposes such words as names; a page for one collects
whatever sentences open with it, and an alias of one turns the word into a link on every page.

Why: a page for a common word collects whatever sentences open with it, and an alias of one links the word
everywhere.

Example: `entities/keeping.md` titled `Keeping`, from a source's "Keeping the verbatim text means...".

Fix: delete the page or its alias, or retitle it with the name the sources use.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from wikic.lint.context import LintContext
from wikic.lint.finding import Finding
from wikic.lint.rule import Rule
from wikic.lint.rules._names import Named, each_named, named_at
from wikic.text.common_words import common_word, function_word, kind_noun

_WORDS = re.compile(r"[^\W_]+")


def ordinary_names(ctx: LintContext) -> Iterator[Finding]:
    yield from each_named(ctx, "ordinary-name", lambda page: _page(ctx, page))


def _page(ctx: LintContext, page: Named) -> Iterator[Finding]:
    for label, role in [(page.title, "title"), *((a, "alias") for a in page.aliases)]:
        why = _ordinary(ctx, page, label)
        if why is not None:
            fix = "rename the page (or remove it)" if role == "title" else "remove the alias"
            yield ctx.finding("ordinary-name", page.path, None, f"{role} '{label}' is {why}: {fix}", target=label)


def _ordinary(ctx: LintContext, page: Named, label: str) -> str | None:
    """Why `label` names nothing ("a function word"...), or None when it may be a name."""
    words = _WORDS.findall(label)
    if not words or len(label) < 2:
        return None  # a letter ("C", "A") says too little either way
    if all(function_word(w) for w in words):
        return "a function word"
    if len(words) > 1 or any(ch.isdigit() for ch in label) or label.isupper() or \
            any(ch.isupper() for ch in label[1:]) or not label.isalpha():
        return None  # a phrase or a name by its shape: judged where it is proposed, not here
    if kind_noun(label):
        return "a bare kind noun"
    if not common_word(label) or not page.sources:
        return None  # a word no list knows, or a person's page with no source to read
    for source in page.sources:
        use = ctx.raw_texts.names(source)
        if use is None or use.writes_as_name(label) or use.heads(label):
            return None
    return "a common word none of the page's sources writes as a name"


RULE = Rule(
    "ordinary-name",
    "warning",
    "a page titled or aliased with an ordinary word (a function word, a bare kind noun, a common word its "
    "sources never write as a name)",
    needs_schema=True,
    check=ordinary_names,
    at=lambda ctx, path: named_at(ctx, path, _page),
)
