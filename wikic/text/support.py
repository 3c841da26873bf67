"""Does a claim say only what its quote says? A quote that exists in the source is not yet a quote that
supports the claim: a model can pair a true sentence with an invented number, date, version or name.

The specifics of a claim are its numbers (with their units), its dates (month names count as their
numbers), its versions and code-like identifiers, and its proper names (capitalised words, except the
few that start any sentence). Each must appear in the quote after normalising what legitimately differs
between two ways of writing the same thing: full-width characters, thousands separators, number words
("ten thousand", "一万"), unit spellings ("ms", "milliseconds"), and case. The name of the page the claim
is about may be left out of its quote (a source says "it" for the thing it is about). What the specifics
of a text are is `wikic/text/specifics.py`'s.

A claim can also say what no quote does in ordinary words: "The Command palette is a toolbar" on a quote that
says only "by opening the Command palette and running the … command". Its content words (nouns, verbs,
adjectives: every word but the function words, the subject's names, the nouns that only say what kind of
thing something is and a few verbs any paraphrase joins facts with), compared by their Snowball stems (so
"running" is "run"), must be in its quotes, all but a small share (`UNQUOTED_SHARE`, measured on the replies
of small models and the example vault: a paraphrase reorders and inflects the quote's words, an invention
brings its own). A word the source writes elsewhere weighs half a word no source writes. Chinese
and Japanese, written without spaces, are compared by character bigrams, as search compares them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from wikic.text.common_words import function_word, kind_noun
from wikic.text.reader_text import reader_text
from wikic.text.scripts import UNSPACED
from wikic.text.specifics import Specifics, specifics
from wikic.text.terms import CJK_STOP_BIGRAMS, STOP_WORDS, fold, stem, words

# The share of a claim's content words its quotes may lack: a paraphrase's own inflections and small words
# pass, an invented one ("toolbar") does not. Measured on Qwen2.5-Coder-1.5B's claims and composed sentences
# (docs/judge.md).
UNQUOTED_SHARE = 1 / 3
# Verbs a paraphrase joins facts with, which state nothing a quote must hold ("lets you", "is used to").
_GLUE = frozenset(stem(w) for w in "allow let enable help make use provide".split())
_UNSPACED_RUN = re.compile(f"[{UNSPACED}]+")
# Irregular English verbs, whose forms no suffix stripping joins ("ran" is "run", "kept" is "keep", "goes" is "go").
_IRREGULAR = {
    form: base
    for base, forms in {
        "be": "was were been", "begin": "began begun", "break": "broke broken", "bring": "brought",
        "build": "built", "buy": "bought", "choose": "chose chosen", "come": "came", "do": "did done",
        "draw": "drew drawn", "drive": "drove driven", "eat": "ate eaten", "fall": "fell fallen",
        "feel": "felt", "find": "found", "fly": "flew flown", "forget": "forgot forgotten", "get": "got gotten",
        "give": "gave given", "go": "goes went gone", "grow": "grew grown", "have": "had", "hear": "heard",
        "hold": "held", "keep": "kept", "know": "knew known", "lead": "led", "leave": "left", "lose": "lost",
        "make": "made", "mean": "meant", "meet": "met", "pay": "paid", "ride": "rode ridden", "rise": "rose risen",
        "run": "ran", "say": "said", "see": "saw seen", "sell": "sold", "send": "sent", "shut": "shut",
        "sit": "sat", "speak": "spoke spoken", "spend": "spent", "stand": "stood", "take": "took taken",
        "teach": "taught", "tell": "told", "think": "thought", "throw": "threw thrown", "understand": "understood",
        "win": "won", "write": "wrote written",
    }.items()
    for form in forms.split()
}


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


def unquoted(claim: str, quote: str, *, subject_names: Iterable[str] = (), source: str | None = None,
             share: float = UNQUOTED_SHARE) -> list[str]:
    """The content words of `claim` that `quote` does not hold, when they weigh more than `share` of its content
    words (empty: the claim says what it says in its quote's words; see the module docstring). A word that
    `source`, the whole text the quote comes from, writes elsewhere weighs half: the claim may name what the
    quote calls "it" or "we"; a word no source writes ("toolbar") weighs whole."""
    named = {term for name in subject_names for term in content_terms(name)}
    wanted = [term for term in dict.fromkeys(content_terms(claim)) if term not in named]
    held = set(content_terms(quote))
    missing = [term for term in wanted if term not in held]
    context = _source_terms(source) if source is not None and missing else frozenset()
    weight = sum(0.5 if term in context else 1.0 for term in missing)
    return missing if weight > share * len(wanted) + 1e-9 else []


@functools.lru_cache(maxsize=8)
def _source_terms(source: str) -> frozenset[str]:
    return frozenset(content_terms(source))


def content_terms(text: str) -> list[str]:
    """The content words of `text` as `unquoted` compares them: stemmed English words, other alphabetic words
    folded, and the character bigrams of Chinese and Japanese; function words, kind nouns, the glue verbs and
    numbers (the specifics check's) left out."""
    text = reader_text(text)
    out: list[str] = []
    for run in _UNSPACED_RUN.findall(text):
        out += [pair for pair in (run[i : i + 2] for i in range(len(run) - 1))
                if pair not in CJK_STOP_BIGRAMS and not any(function_word(c) for c in pair)]
    for word, _, _ in words(_UNSPACED_RUN.sub(" ", text)):
        if word.isdigit() or len(word) < 2 or word in STOP_WORDS or function_word(word) or kind_noun(word):
            continue
        term = stem(_IRREGULAR.get(word, word))
        if term not in _GLUE:
            out.append(term)
    return out
