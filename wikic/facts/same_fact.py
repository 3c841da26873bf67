"""When two claims state one fact: the compiler writes them as one line with both sources' anchors, and lint
reports a page that states one twice (`repeated-claim`).

Two claim texts state one fact in the same words: case, links, articles, the copula and inflection aside,
the same words in the same order, with the same numbers and names and the same polarity. A paraphrase is
not matched here (no measure of meaning tells "is easy to run" from "is hard to run", `bench/same_fact.py`):
the composed prose says it once, citing both claims.
"""

from __future__ import annotations

import functools
import re

from wikic.text.specifics import specifics
from wikic.text.terms import negated, statement
from wikic.vault.formats.claims import normal_text

_LINK = re.compile(r"\[\[(?:[^\[\]|\n]*\|)?([^\[\]\n]*)\]\]")


def unlinked(text: str) -> str:
    """`text` with each wikilink read as its text (`[[acme|Acme]]` -> `Acme`)."""
    return _LINK.sub(r"\1", text)


@functools.lru_cache(maxsize=65_536)
def fact_keys(text: str) -> tuple[str, tuple[object, ...]]:
    """The two ways a claim text is compared: its words as written (`normal_text`), and its statement words,
    specifics and polarity. Two texts state one fact when either key is equal: a page's claims are grouped
    by these keys instead of compared pair by pair. Kept for the texts seen last: a page's claims are
    compared with each new claim a run brings it, and a long page would otherwise be read again each time."""
    return normal_text(text), _stated(text)


def same_fact(a: str, b: str) -> bool:
    """Whether claim texts `a` and `b` state one fact in the same words."""
    words_a, fact_a = fact_keys(a)
    words_b, fact_b = fact_keys(b)
    return words_a == words_b or fact_a == fact_b


def _stated(text: str) -> tuple[object, ...]:
    plain = unlinked(text)
    return statement(plain), specifics(plain), negated(plain)
