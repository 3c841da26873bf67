"""Does a claim say only what its quote says? A quote that exists in the source is not yet a quote that
supports the claim: a model can pair a true sentence with an invented number, date, version or name.

The specifics of a claim are its numbers (with their units), its dates (month names count as their
numbers), its versions and code-like identifiers, and its proper names (capitalised words, except the
few that start any sentence). Each must appear in the quote after normalising what legitimately differs
between two ways of writing the same thing: full-width characters, thousands separators, number words
("ten thousand", "一万"), unit spellings ("ms", "milliseconds"), and case. The name of the page the claim
is about may be left out of its quote (a source says "it" for the thing it is about). What the specifics
of a text are is `wikic/text/specifics.py`'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from wikic.text.specifics import Specifics, specifics
from wikic.text.terms import fold


def unsupported(claim: str, quote: str, *, subject_names: Iterable[str] = (), source: str | None = None) -> list[str]:
    """The specifics of `claim` that `quote` does not state (empty: the quote supports the claim).
    `source`, the whole text the quote comes from, tells ordinary words that start a sentence from names."""
    said = specifics(quote)
    wanted = specifics(claim, lexicon=source)
    named = [specifics(name) for name in subject_names]
    allowed = {w for name in named for w in name.words}
    # a number in the subject's own name ("Part 0", "GPT 4") is the name, not a figure to prove
    allowed_numbers = {n for name in named for n in name.numbers}
    quote_text = fold(quote)
    missing: list[str] = []
    plain = {value for value, _ in said.numbers}
    for value, unit in sorted(wanted.numbers):
        if (
            (value, unit) in allowed_numbers
            or (value, unit) in said.numbers
            or (not unit and value in plain)
            or (unit and (value, "") in said.numbers and not _has_unit(said, value))
        ):
            continue
        missing.append(_show(value, unit))
    for word in sorted(wanted.words - said.words - allowed):
        # "Open-source" starting a claim is "open-source" inside the quote, "Similarity-search" is
        # "similarity search", and "Collections" is "collection"
        if not _written(word, quote_text):
            missing.append(word)
    return missing


def _forms(word: str) -> set[str]:
    forms = {word, word.replace("-", " ")}
    for form in list(forms):
        forms |= {form + "s", form + "es"}
        if form.endswith("s"):
            forms.add(form[:-1])
        if form.endswith("es"):
            forms.add(form[:-2])
    return forms


def _written(word: str, text: str) -> bool:
    """`word` (folded) is in `text` (folded) as a word, hyphens, spaces and a plural -s aside."""
    flat = text.replace("-", " ")
    return any(re.search(rf"(?<![\w-]){re.escape(form)}(?![\w-])", flat) for form in _forms(word))


def _has_unit(said: Specifics, value: float) -> bool:
    return any(v == value and u for v, u in said.numbers)


def _show(value: float, unit: str) -> str:
    number = f"{value:g}" if value < 1e15 else str(value)
    return f"{number} {unit}".strip()
