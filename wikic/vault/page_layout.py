"""The sections each page type has, in order: what SCHEMA.md's `## Page Layouts` declares (a default for each
built-in type otherwise), and which section a claim belongs in.

    ## Page Layouts
    - entity: Key facts, History, Relations, Contradictions, Open questions
    - concept: How it works, Variants, Trade-offs, History, Related, Contradictions, Open questions

Every page opens with its lead (what the subject is), then its sections in this order, under these headings:
the headings a reader meets on a page are the layout's, never the model's words. A section's name says what
it holds: History (claims that no longer hold), Relations or Related (the pages it relates to, each once),
Contradictions (claims that disagree, both sides), Open questions, Comparison (a comparison's table); any
other name holds claims. A claim the model files under a name that is not one of its page's sections goes to
the nearest one by name, else to the first section that holds claims.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import lru_cache

from wikic.vault.slug import slugify

LEAD_BLOCK = "summary"  # the compiler block of a page's lead (named for what the frontmatter calls it)
CLAIMS, HISTORY, RELATED, CONTRADICTIONS, QUESTIONS, TABLE = (
    "claims", "history", "related", "contradictions", "questions", "table",
)
_ROLES = {
    "history": HISTORY, "relations": RELATED, "related": RELATED, "related pages": RELATED, "see also": RELATED,
    "contradictions": CONTRADICTIONS, "disagreements": CONTRADICTIONS, "open questions": QUESTIONS,
    "questions": QUESTIONS, "comparison": TABLE, "table": TABLE,
}

DEFAULT_LAYOUTS: dict[str, tuple[str, ...]] = {
    "entity": ("Key facts", "History", "Relations", "Contradictions", "Open questions"),
    "concept": ("How it works", "Variants", "Trade-offs", "History", "Related", "Contradictions", "Open questions"),
    "comparison": ("Comparison", "Key facts", "When to pick each", "History", "Related", "Contradictions"),
}
# A page type SCHEMA.md adds, with no layout of its own, reads like an entity.
FALLBACK = DEFAULT_LAYOUTS["entity"]

# Words of a model's own section name that say which section it means ("Limitations" is a trade-off).
_HINTS = {
    "How it works": "how works work working mechanism architecture design overview definition definitions method "
                    "methods process usage use uses internals algorithm layers layer steps loop pipeline "
                    "components parts structure basics principle principles what",
    "Variants": "variants variant types type kinds kind versions flavours flavors forms implementations examples "
                "families family alternatives options versus vs exact approximate choosing choice models "
                "libraries tools products",
    "Trade-offs": "trade tradeoffs trade-offs limits limitations limit drawbacks costs cost pros cons advantages "
                  "disadvantages weaknesses strengths performance risks risk failure failures pitfalls problems "
                  "caveats concerns dimensions size speed accuracy recall",
    "When to pick each": "when pick choose which recommendation recommendations verdict",
    "Key facts": "facts overview details background about features properties summary history",
}
# Words of a claim itself that say which section it belongs in, when the name it was filed under does not.
_SAID = {
    "Trade-offs": "tradeoff tradeoffs trade-off trade-offs drawback drawbacks downside downsides limitation "
                  "limitations slower costly expensive cheaper risk risks fails failure failures pitfall pitfalls",
    "Variants": "variant variants flavour flavours flavors alternative alternatives",
    "When to pick each": "choose pick prefer recommended",
}
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@lru_cache(maxsize=1024)  # asked of every section for every claim of a page rendered
def role_of(section: str) -> str:
    """What a section holds, read from its name."""
    return _ROLES.get(" ".join(_WORD.findall(section.casefold())), CLAIMS)


def section_key(section: str) -> str:
    """The compiler block that holds a section's text on a page (`section:key-facts`)."""
    return f"section:{slugify(section) or 'notes'}"


@dataclass(frozen=True)
class Layout:
    kind: str
    sections: tuple[str, ...]

    @property
    def claim_sections(self) -> tuple[str, ...]:
        return tuple(s for s in self.sections if role_of(s) == CLAIMS)

    def with_role(self, role: str) -> str | None:
        """The layout's section that holds `role`, if it has one."""
        return next((s for s in self.sections if role_of(s) == role), None)

    def named(self, heading: str) -> str | None:
        """The layout's section a page heading names (case and punctuation aside), if any."""
        wanted = " ".join(_WORD.findall(heading.casefold()))
        return next((s for s in self.sections if " ".join(_WORD.findall(s.casefold())) == wanted), None)

    def section_for(self, proposed: str | None, said: str = "") -> str:
        """The claim section a claim filed under `proposed` belongs in: that section (names compared without
        case or punctuation), the nearest by name, one whose usual words the name uses, one whose usual words
        the claim itself (`said`) uses, else the first."""
        own = self.claim_sections or ("Key facts",)
        wanted = " ".join(_WORD.findall((proposed or "").casefold()))
        folded = {" ".join(_WORD.findall(s.casefold())): s for s in own}
        if wanted in folded:
            return folded[wanted]
        if wanted:
            close = difflib.get_close_matches(wanted, list(folded), n=1, cutoff=0.75)
            if close:
                return folded[close[0]]
        for words, hints in ((set(wanted.split()), _HINTS), (set(_WORD.findall(said.casefold())), _SAID)):
            hinted = [s for s in own if words & set(hints.get(s, "").split())]
            if hinted:
                return max(hinted, key=lambda s: len(words & set(hints[s].split())))
        return own[0]


def layout_for(layouts: dict[str, tuple[str, ...]], kind: str) -> Layout:
    return Layout(kind, layouts.get(kind) or DEFAULT_LAYOUTS.get(kind) or FALLBACK)
