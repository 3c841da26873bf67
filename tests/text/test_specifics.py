"""The specifics of a text: what does not depend on a lexicon is read once per text, and what a lexicon finds
ordinary is taken out of it after; the answer is the one reading each word against the lexicon gives."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given, settings, strategies as st

from wikic.text import specifics as sp
from wikic.text.specifics import Specifics, specifics


def _reference(text: str, lexicon: str | None) -> Specifics:
    """The specifics as first read: each capitalised word that starts a sentence looked up in the lexicon where
    it is met."""
    text = unicodedata.normalize("NFKC", text)
    numbers: set[tuple[float, str]] = set()
    for match in sp._NUMBER.finditer(text):
        whole = re.sub(r"[,_'\u00a0\u202f]", "", match.group(1))
        value = float(f"{whole}.{match.group(2)}") if match.group(2) else float(whole)
        unit = sp._unit_after(text, match.end())
        scale = {"thousand": 1e3, "million": 1e6, "billion": 1e9}.get(unit)
        numbers.add((value * scale, "") if scale else (value, unit))
    numbers |= sp._number_words(text) | sp._cjk_numbers(text)
    words: set[str] = set()
    for match in sp._WORD.finditer(text):
        word = match.group().rstrip(".")
        low = word.casefold()
        if low in sp.MONTHS and word[:1].isupper():
            numbers.add((float(sp.MONTHS[low]), ""))
            continue
        if low in sp.UNITS or low in sp._WORD_NUMBERS or low in sp._SCALES:
            continue
        if sp._CODE_LIKE.search(word) or (word.isupper() and len(word) > 1):
            words.add(low)
        elif word[:1].isupper() and low not in sp._COMMON:
            before = text[: match.start()].rstrip()
            starts = not before or before[-1] in ".!?:;\n。！？：；\"'“(" or before.endswith("- ")
            if lexicon is not None and starts and sp.ordinary(word, lexicon):
                continue
            words.add(low)
    return Specifics(frozenset(numbers), frozenset(words))


_PIECES = st.sampled_from([
    "Queries", "queries", "Acme", "acme", "The", "May", "may", "Oslo", "40", "1,200", "2.5", "ten thousand", "ms",
    "v2.1", "GPT-4", "pgVector", "API", "一万", ". ", "? ", ": ", "; ", "\n", " ", "  ", "\u00a0", "- ", "(", "“",
    "Searches", "searching", "Cutting", "cut", "Ｑueries", "é", "Éclair", "éclair",
])
_TEXTS = st.lists(_PIECES, max_size=14).map(" ".join) | st.lists(_PIECES, max_size=14).map("".join)


@settings(max_examples=200, deadline=None)
@given(_TEXTS, st.none() | _TEXTS)
def test_specifics_are_those_of_the_word_by_word_reading(text: str, lexicon: str | None) -> None:
    assert specifics(text, lexicon=lexicon) == _reference(text, lexicon)
    assert specifics(text) == _reference(text, None)  # read once, asked again without a lexicon


def test_a_capitalised_word_starting_a_sentence_is_no_name_where_the_source_writes_it_in_lower_case() -> None:
    text = "Queries take 12 ms. Acme runs them."
    assert specifics(text).words == {"queries", "acme"}
    assert specifics(text, lexicon="Most queries are short. Acme says so.").words == {"acme"}
    assert specifics(text, lexicon="Acme said: Queries are short.").words == {"queries", "acme"}


def test_a_word_after_white_space_of_any_kind_starts_a_sentence_as_the_text_before_it_says() -> None:
    for text in ("Acme \n Queries run.", "Acme\t\tQueries run.", "Acme.\n\nQueries run.", "Queries run.",
                 "Acme: \u2003Queries run.", "x - Queries run."):
        assert specifics(text, lexicon="most queries run") == _reference(text, "most queries run"), text
