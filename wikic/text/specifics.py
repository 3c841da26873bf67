"""The specifics of a text: its numbers (with their units), its dates (month names count as their numbers),
its versions and code-like identifiers, and its proper names (capitalised words, except the few that start
any sentence). What a claim's quote must state (`wikic/text/support.py`), and what two claims stating one
fact must share (`wikic/facts/same_fact.py`).

Numbers are read however they are written: full-width characters, thousands separators, number words ("ten
thousand", "一万") and unit spellings ("ms", "milliseconds") aside; names are folded (NFKC, case).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:[,_'\u00a0\u202f]\d{3})+|\d+)(?:\.(\d+))?(?!\.\d)")
_UNIT_AFTER = re.compile(r"\s*(%|[a-zA-Z\u00b5]{1,12}\b)")
_WORD = re.compile(r"[^\W_][\w.+\-/]*[\w+]|[^\W_]", re.UNICODE)
_CODE_LIKE = re.compile(r"(?=.*\d)(?=.*[a-zA-Z])|[a-z][A-Z]|[A-Za-z]\.[A-Za-z]")
# compiled here, not by `re`'s own cache: `ordinary` compiles a pattern per word, which pushes these out of it
_SEPARATORS = re.compile(r"[,_'\u00a0\u202f]")
_LATIN_WORD = re.compile(r"[a-zA-Z]+")

MONTHS = {
    name: i
    for i, names in enumerate(
        [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
         ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
         ("november", "nov"), ("december", "dec")],
        start=1,
    )
    for name in names
}
UNITS = {
    "%": "percent", "percent": "percent", "per": "", "pct": "percent",
    "ms": "ms", "millisecond": "ms", "milliseconds": "ms", "s": "s", "sec": "s", "secs": "s", "second": "s",
    "seconds": "s", "min": "min", "mins": "min", "minute": "min", "minutes": "min", "h": "h", "hr": "h",
    "hrs": "h", "hour": "h", "hours": "h", "kb": "kb", "mb": "mb", "gb": "gb", "tb": "tb", "k": "thousand",
    "m": "million", "b": "billion", "bn": "billion",
}
_WORD_NUMBERS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40,
    "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
_CJK_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "兩": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_CJK_SMALL = {"十": 10, "百": 100, "千": 1000}
_CJK_LARGE = {"万": 10_000, "萬": 10_000, "亿": 100_000_000, "億": 100_000_000}
_CJK_NUMBER = re.compile(f"[{''.join(_CJK_DIGITS)}{''.join(_CJK_SMALL)}{''.join(_CJK_LARGE)}]+")
# Words that start sentences capitalised without being names.
_COMMON = frozenset(
    "a an the this that these those it its they their there here he she his her we our you your i in on at "
    "for from to of by with as and or but if when while after before since until both each every all some "
    "many most no not one two also however because although though since unless whether once only just even "
    "yet still instead rather thus hence therefore meanwhile today later now first next finally unlike like than "
    "then so such which who whose what where why how "
    "is are was were be been has have had do does did can could will would may might must should".split()
)


@dataclass(frozen=True)
class Specifics:
    numbers: frozenset[tuple[float, str]]  # (value, unit or "")
    words: frozenset[str]  # proper names and code-like identifiers, folded


def specifics(text: str, *, lexicon: str | None = None) -> Specifics:
    """The numbers and names of `text`. A capitalised word that starts a sentence may be an ordinary word
    ("Queries take..."): with `lexicon` (the source's text) it counts as a name unless the source writes it
    in lower case and never capitalised mid-sentence; without one it always counts (strict)."""
    strict, names, starting = _read(text)
    if lexicon is None or not starting:
        return strict
    return Specifics(strict.numbers, names | {low for word, low in starting if not ordinary(word, lexicon)})


# A quote, a claim and a page's names are asked about again for each statement citing it or on the page: what
# does not depend on a lexicon (a source's whole text, not kept here) is kept for the texts asked about last.
@lru_cache(maxsize=4096)
def _read(text: str) -> tuple[Specifics, frozenset[str], tuple[tuple[str, str], ...]]:
    """(the specifics of `text` without a lexicon, its words a lexicon leaves names, and each capitalised word
    that starts a sentence, which one may find ordinary, with its folded form)."""
    text = unicodedata.normalize("NFKC", text)
    numbers: set[tuple[float, str]] = set()
    for match in _NUMBER.finditer(text):
        whole = _SEPARATORS.sub("", match.group(1))
        value = float(f"{whole}.{match.group(2)}") if match.group(2) else float(whole)
        unit = _unit_after(text, match.end())
        scale = {"thousand": 1e3, "million": 1e6, "billion": 1e9}.get(unit)
        numbers.add((value * scale, "") if scale else (value, unit))
    numbers |= _number_words(text) | _cjk_numbers(text)
    words: set[str] = set()
    starting: list[tuple[str, str]] = []
    for match in _WORD.finditer(text):
        word = match.group().rstrip(".")
        low = word.casefold()
        if low in MONTHS and word[:1].isupper():  # "May 2025", not "may need"
            numbers.add((float(MONTHS[low]), ""))
            continue
        if low in UNITS or low in _WORD_NUMBERS or low in _SCALES:
            continue
        if _CODE_LIKE.search(word) or (word.isupper() and len(word) > 1):
            words.add(low)
        elif word[:1].isupper() and low not in _COMMON:
            if _starts_sentence(text, match.start()):
                starting.append((word, low))
            else:
                words.add(low)
    names = frozenset(words)
    strict = Specifics(frozenset(numbers), names.union(low for _, low in starting))
    return strict, names, tuple(dict.fromkeys(starting))


def _starts_sentence(text: str, at: int) -> bool:
    # looked back over the white space before `at` alone: asked of every capitalised word of a text
    while at > 0 and text[at - 1].isspace():
        at -= 1
    return at == 0 or text[at - 1] in ".!?:;。！？：；\"'“("


def _stem(word: str) -> str:
    """A crude English stem, enough to see "Cutting", "Hopes" and "Searches" in "cut", "hoping", "searching"."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiou":
        word = word[:-1]
    return word.rstrip("e") if len(word) > 3 else word


# Asked of the same few words against the same source for every claim and quote citing it: each answer is
# kept for the pairs asked about last (a source's text is held by its cache key while kept).
@lru_cache(maxsize=1024)
def ordinary(word: str, lexicon: str) -> bool:
    """Written in lower case somewhere in `lexicon` (in some inflection), and never capitalised except where
    a sentence starts."""
    low = word.casefold()
    stem = _stem(low)
    if not any(_stem(w) == stem for w in set(re.findall(rf"(?<![\w-]){re.escape(stem[:3])}[a-z]*", lexicon))):
        return False
    for match in re.finditer(rf"(?<![\w-]){re.escape(word)}(?![\w-])", lexicon):
        if not _starts_sentence(lexicon, match.start()):
            return False
    return True


def _unit_after(text: str, end: int) -> str:
    match = _UNIT_AFTER.match(text, end)
    if not match:
        return ""
    return UNITS.get(match.group(1).casefold(), "")


def _number_words(text: str) -> set[tuple[float, str]]:
    """"ten thousand", "twenty-five", "three hundred" as numbers."""
    out: set[tuple[float, str]] = set()
    tokens = _LATIN_WORD.findall(text.casefold())
    i = 0
    while i < len(tokens):
        if tokens[i] not in _WORD_NUMBERS and tokens[i] not in _SCALES:
            i += 1
            continue
        total = current = 0
        seen = False
        start = i
        while i < len(tokens) and (tokens[i] in _WORD_NUMBERS or tokens[i] in _SCALES or (tokens[i] == "and" and seen)):
            token = tokens[i]
            if token in _WORD_NUMBERS:
                current += _WORD_NUMBERS[token]
                seen = True
            elif token in _SCALES:
                current = max(current, 1) * _SCALES[token]
                if _SCALES[token] >= 1000:
                    total += current
                    current = 0
                seen = True
            i += 1
        if seen and tokens[start:i] != ["one"]:  # "one team", "one of": a determiner, not a figure
            out.add((float(total + current), ""))
    return out


def _cjk_numbers(text: str) -> set[tuple[float, str]]:
    """一万 = 10000, 两千五百 = 2500, 二十 = 20, 三 = 3."""
    out: set[tuple[float, str]] = set()
    for match in _CJK_NUMBER.finditer(text):
        total = section = digit = 0
        for char in match.group():
            if char in _CJK_DIGITS:
                digit = _CJK_DIGITS[char]
            elif char in _CJK_SMALL:
                section += (digit or 1) * _CJK_SMALL[char]
                digit = 0
            else:
                total += (section + digit) * _CJK_LARGE[char]
                section = digit = 0
        out.add((float(total + section + digit), ""))
    return out
