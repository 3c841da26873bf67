"""Words as search and quote anchoring compare them.

`tokenize` gives the terms of the palace's BM25 index and of the relevance test in query: stemmed content
words for alphabetic scripts, character bigrams for CJK (no spaces to cut at), and adjacent word pairs.
`words` gives the words quote anchoring matches on: letters and digits (each Han or kana character a word of
its own), folded by NFKC and case, with where each one is in the text. `statement` gives the words two
claims must share, in order, to be one statement, and `negated` whether a text denies what it states.
"""

from __future__ import annotations

import functools
import re
import threading
import unicodedata
from collections.abc import Iterable, Iterator, Sequence, Set as AbstractSet

import snowballstemmer

from wikic.text.scripts import CJK, UNSPACED

# CJK scripts have no spaces: overlapping character bigrams are the standard lexical unit for them.
_TOKEN = re.compile(rf"[{CJK}]+|[^\W_]+", re.UNICODE)
_CJK_RUN = re.compile(rf"[{CJK}]")
_BREAK = re.compile(r"[.!?;:,()\[\]\"\n|]")

# Function words carry no topic: dropping them keeps "when did we…" from ranking by "we".
STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have having
    he her here hers herself him himself his how i if in into is it its itself just let me more most my myself
    no nor not now of off on once only or other our ours ourselves out over own same she should so some such
    than that the their theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your yours yourself
    yourselves s t d ll m re ve don didn doesn isn wasn weren won wouldn shouldn couldn""".split()
)

# The same for Chinese: pronouns, question words and connectives, as the bigrams they produce. Without this,
# "我们…" in a question ranks every page that says "我们" above the one the question is about.
CJK_STOP_BIGRAMS = frozenset(
    """我们 你们 他们 她们 它们 咱们 什么 哪个 哪些 哪里 怎么 怎样 为什 什么 这个 那个 这些 那些 一个 一些
    因为 所以 但是 如果 可以 没有 自己 时候 就是 还是 已经 的是 是的 不是 也是 就会 这样 那样 然后 而且 或者
    还有 以及 之后 之前 请问 吗？ 是否""".split()
)

# A Snowball stemmer keeps the word it is cutting in itself: each thread gets its own (quotes are anchored on
# several threads at once, and one shared stemmer cut one thread's word with another's: IndexError).
_stemmers = threading.local()


@functools.lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    stemmer = getattr(_stemmers, "english", None)
    if stemmer is None:
        stemmer = _stemmers.english = snowballstemmer.stemmer("english")
    return str(stemmer.stemWord(word))


def stem(word: str) -> str:
    """An English word's Snowball stem ("running", "runs" and "run" are "run"); other words as they are."""
    return _stem(word) if word.isascii() and word.isalpha() else word


def tokenize(text: str) -> list[str]:
    """Lexical terms of `text`: stemmed non-stop words for alphabetic scripts, character bigrams for CJK,
    and word pairs (adjacent content words) so that a query's phrases outrank scattered word matches."""
    terms: list[str] = []
    prev: str | None = None
    text = unicodedata.normalize("NFKC", text).lower()
    last_end = 0
    for match in _TOKEN.finditer(text):
        run = match.group()
        if _BREAK.search(text, last_end, match.start()):
            prev = None  # phrases do not cross sentence or clause boundaries
        last_end = match.end()
        if _CJK_RUN.match(run):
            prev = None
            if len(run) == 1:
                terms.append(run)
            else:
                pairs = (run[i : i + 2] for i in range(len(run) - 1))
                terms.extend(p for p in pairs if p not in CJK_STOP_BIGRAMS)
        elif run not in STOP_WORDS and (len(run) > 1 or run.isdigit()):
            term = _stem(run) if run.isascii() and run.isalpha() else run
            terms.append(term)
            if prev is not None:
                terms.append(f"{prev} {term}")
            prev = term
    return terms


_WORD = re.compile(rf"[{UNSPACED}]|[^\W_{UNSPACED}]+")


def fold(word: str) -> str:
    """A word as quotes are compared: case and compatibility forms (full-width letters, ligatures) folded."""
    if word.isascii():
        return word.lower()
    return unicodedata.normalize("NFKC", word).casefold()


def words(text: str) -> Iterator[tuple[str, int, int]]:
    """(folded word, start, end) for each word of `text`, in order."""
    for match in _WORD.finditer(text):
        yield fold(match.group()), match.start(), match.end()


# Words whose absence or presence never changes what a claim states: articles, the copula, relative pronouns.
_FILLER = frozenset("a an the is are was were be been being its it this that these those which who".split())
# A claim that holds one of these denies what the same words without it assert ("Chroma is not fast").
_NEGATIONS = frozenset(
    """not no never without cannot nor neither none nothing nobody nowhere don didn doesn isn wasn weren won
    wouldn shouldn couldn aren hasn haven hadn mustn needn 不 没 没有 未 无 非 別 别 ない ず""".split()
)


def statement(text: str) -> tuple[str, ...]:
    """The words of a claim that say what it states, in order: folded and stemmed, fillers (articles, the
    copula) left out. Two claims with the same statement words say one thing in the same words; the order
    counts ("trades memory for speed" is not "trades speed for memory")."""
    out = []
    for word, _, _ in words(text):
        if word in _FILLER:
            continue
        out.append(_stem(word) if word.isascii() and word.isalpha() else word)
    return tuple(out)


def negated(text: str) -> bool:
    """Whether `text` holds a negation ("not", "never", "doesn't", "不", "ない"...)."""
    return any(word in _NEGATIONS for word, _, _ in words(text.replace("n't", " not")))


def opens_with(said: Sequence[str], openings: Iterable[tuple[str, ...]], skip: AbstractSet[str] = frozenset()) -> bool:
    """Whether the words `said` (as `words` folds them), past any leading words of `skip`, open with one of
    `openings` ("Now, let me…" opens with ("let", "me") past "now")."""
    start = 0
    while start < len(said) and said[start] in skip:
        start += 1
    return any(tuple(said[start : start + len(opening)]) == opening for opening in openings)
