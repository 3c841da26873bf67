"""What the wiki says when the model declines: the context's own sentences that match the question.

A small model can reply "not in the wiki" with the answering sentence right in its context. Code then looks
for that sentence itself, so the reader is shown what the wiki says, quoted and cited, never passed off as
an answer the model composed. A sentence of a context item (a page, or a raw passage) is quoted only when
it matches the question on three counts:

- **Its subject.** The question must name what it is about: a capitalised name or an identifier
  ("Quillstore", "GPT-4", "API"), or the title or an alias of a context page written in it. Every such
  name must be in the sentence, or be the title or an alias of the page the sentence is on. A question that
  names nothing quotes nothing: "how many writes per second?" could be about anything the context holds.
- **Its words.** The sentence holds at least half of the question's other content words (the terms
  search uses: stemmed, stop words dropped, CJK bigrams; light verbs such as "use" or "handle" too when
  there are others), each weighed by how rare it is among the context's sentences; a word the context
  never writes weighs the most. (A CJK bigram the context never
  writes is left out: bigrams that straddle two words are noise of the cutting, not of the question.)
  A question that asks what or who its subject is ("What is Quillstore?", "Quillstore 是什么？") has no
  such words: a sentence that opens by saying what the subject is ("Quillstore is ...") matches it, and so
  does the lead of the subject's page (the sentence that opens a page says what its subject is).
- **A figure, where one is asked for.** A question asking how many, how much, how long, when, or which
  year or version ("多少", "几", "何时", "哪个版本") is matched only by a sentence stating a number, date
  or version that the question does not itself hold.

A question that compares subjects ("How is Backlinks different from Outgoing links?", "the difference
between A and B", "A vs B", "A 和 B 有什么区别") asks about each of them side by side: its cue words
("different", "compare", "区别") are not content words, a sentence need only be about one of the subjects
compared (named in it, or the title or an alias of its page), one that relates two of them ranks first, and
with no other content words, a sentence saying what a subject is or relating two of them matches. Every
subject compared must be shown by at least one sentence, or nothing is quoted: one side of a comparison
does not answer it.

At most three sentences are shown, best first, each with its item's citation. Sentences are found with
`wikic/text/sentences.py`, terms are `wikic/text/terms.py`'s, figures and names `wikic/text/specifics.py`'s.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from wikic.query.attribution import HEADING_OR_ROW
from wikic.query.citations import CitationCheck, check_text
from wikic.query.retrieve import ContextItem, Retrieval, question_terms
from wikic.text.scripts import CJK
from wikic.text.sentences import sentence_spans
from wikic.text.specifics import specifics
from wikic.text.terms import words
from wikic.vault.formats.anchors import strip_anchors

MAX_QUOTES = 3
MIN_SHARE = 0.5  # of the question's weighed content words, for a sentence to match at all
NEAR_BEST = 0.75  # ... and of the best sentence's share, for a weaker one to be shown beside it
MAX_SENTENCE_CHARS = 500  # longer "sentences" are unpunctuated runs of text, not something to quote

# Questions that ask for a figure; the cue's own words ("many", "year", "版本") are not content words.
_ASKS_FIGURE = re.compile(
    r"\bhow\s+(?:many|much|long|often|old|soon|far)\b|\bwhen\b|\bin\s+which\s+year\b"
    r"|\b(?:what|which)\s+(?:year|date|day|month|version|release|percentage|number)\b"
    r"|多少|几|何时|什么时候|哪年|哪一年|多久|多长|什么版本|哪个版本|哪一版|いつ|いくつ|何年|何回|何人|몇|언제",
    re.IGNORECASE,
)
# "What is X?", "Quillstore 是什么？": no content word beside the name; a sentence saying "X is ..." matches.
_DEFINES = re.compile(r"^\W*(?:what|who)\s+(?:is|are|was|were)\s|是什么|是谁|とは", re.IGNORECASE)
# Questions that compare subjects; the cue's own words ("different", "区别") are not content words.
_COMPARES = re.compile(
    r"\b(?:differ(?:s|ed|ent|ently|ence|ences)?|distinguish(?:es|ed)?|compar(?:e|es|ed|ing|ison|isons)"
    r"|contrast(?:s|ed)?|versus|vs|similar(?:ity|ities)?|alike|unlike)\b"
    r"|区别|區別|不同|差别|差別|差异|差異|比较|比較|对比|對比|相比|違い|차이",
    re.IGNORECASE,
)
_COPULAS = frozenset({"is", "are", "was", "were", "是"})
# Words that open a request without naming anything ("Describe Quillstore", "List its versions"): written
# here in lower case so that `specifics` reads them, capitalised at the start of a question, as ordinary.
_OPENERS = "describe explain list name tell give show summarize summarise compare define please according"
# Verbs that carry no topic of their own ("What license does Quillstore use?" asks about a license): left
# out of the content words when the question has others.
_LIGHT = frozenset(
    question_terms("use have get make need take do work run handle support provide offer mean call come keep "
                   "let say include contain allow become go")
)
_MARKUP = re.compile(r"^(?:[-*+>]\s+|\d{1,3}[.)]\s+)+")
_CJK_CHAR = re.compile(rf"[{CJK}]")
QUOTED_MARK = (
    "> [!quote] Quoted from the wiki, not an answer: the model found no answer in its context, so these are "
    "the wiki's own sentences that match the question.\n\n"
)


@dataclass(frozen=True)
class Quote:
    text: str  # the sentence on one line: anchors and list markers left out, links checked
    path: str  # the context item it is from
    link: str  # that item's link, as an answer cites it
    kind: str  # page | raw
    title: str
    score: float  # the share of the question's weighed content words it holds
    line_start: int | None = None  # raw passages: the sentence's lines in the raw file
    line_end: int | None = None

    @property
    def citation(self) -> str:
        """`[[openai]]`, or `[[raw/articles/x.md]] L7-L8` for a raw passage."""
        if self.line_start is None:
            return self.link
        end = self.line_end if self.line_end is not None else self.line_start
        return f"{self.link} L{self.line_start}" + (f"-L{end}" if end != self.line_start else "")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text, "path": self.path, "link": self.link, "kind": self.kind,
                               "title": self.title, "score": round(self.score, 3)}
        if self.line_start is not None:
            out["lines"] = [self.line_start, self.line_end]
        return out


@dataclass(frozen=True)
class _Sentence:
    item: ContextItem
    text: str  # as shown
    words: tuple[str, ...]  # folded, in order
    terms: frozenset[str]
    line_start: int | None
    line_end: int | None
    order: int
    lead: bool = False  # the sentence that opens its page


Name = tuple[str, ...]


def quote_context(retrieval: Retrieval, limit: int = MAX_QUOTES) -> list[Quote]:
    """The context's sentences that match the question (see the module docstring), best first."""
    question = retrieval.question
    if not retrieval.items or limit <= 0:
        return []
    names = subject_names(question, retrieval.items)
    if not names:
        return []
    compared = compared_subjects(question, names)
    name_terms = {t for name in names for t in question_terms(" ".join(name))}
    cue_free = _ASKS_FIGURE.sub(" , ", question)
    if compared:
        cue_free = _COMPARES.sub(" , ", cue_free)
    wanted = question_terms(cue_free) - name_terms
    if wanted - _LIGHT:
        wanted -= _LIGHT
    figure = _ASKS_FIGURE.search(question) is not None
    asked_numbers = specifics(question).numbers
    check = CitationCheck(retrieval.items, retrieval.resolver)
    candidates = [s for i, item in enumerate(retrieval.items) for s in _sentences(item, i, check)]
    if not candidates:
        return []
    weights = _weights(wanted, candidates)
    total = sum(weights.values())
    defines = total <= 0 and (_DEFINES.search(question) is not None or bool(compared))
    if total <= 0 and not defines:
        return []  # only names: a sentence that merely mentions the subject does not match the question

    scored: list[_Scored] = []
    for sentence in candidates:
        if compared:
            about = tuple(i for i, group in enumerate(compared) if _about_any(sentence, group))
            if not about:
                continue
            named = sum(any(_holds(sentence.words, name) for name in group) for group in compared)
        else:
            named = sum(_holds(sentence.words, name) for name in names)
            if named < len(names) and not _about(sentence.item, names, sentence.words):
                continue
            about = ()
        if defines:
            says_what = any(_says_what(sentence, name) for name in names)
            share = 1.0 if says_what or len(about) > 1 else 0.0
        else:
            share = sum(w for t, w in weights.items() if t in sentence.terms) / total
        if share < MIN_SHARE:
            continue
        if figure and not (specifics(sentence.text).numbers - asked_numbers):
            continue
        scored.append(_Scored(share, len(about), named, sentence, about))
    scored.sort(key=lambda x: (-x.share, -x.relates, -x.named, x.sentence.order))
    chosen = _chosen(scored, limit, len(compared))
    return [Quote(s.text, s.item.path, s.item.link, s.item.kind, s.item.title, x.share, s.line_start, s.line_end)
            for x in chosen for s in (x.sentence,)]


@dataclass(frozen=True)
class _Scored:
    share: float
    relates: int  # how many of the compared subjects it is about (comparisons only)
    named: int  # how many names (or, comparing, subjects) the sentence itself writes
    sentence: _Sentence
    about: tuple[int, ...]  # the compared subjects it is about


def _chosen(scored: list[_Scored], limit: int, subjects: int) -> list[_Scored]:
    """The sentences shown, best first: those near the best, one of a near-duplicate pair; comparing, the
    best about each subject first, and none at all when a subject has none."""
    if not scored:
        return []
    picked: list[_Scored] = []
    shown: list[set[str]] = []

    def take(x: _Scored) -> None:
        picked.append(x)
        shown.append(set(x.sentence.words))

    for subject in range(subjects):
        if any(subject in x.about for x in picked):
            continue
        best = next((x for x in scored if subject in x.about), None)
        if best is None:
            return []  # one side of a comparison does not answer it
        if len(picked) < limit:
            take(best)
    top = scored[0].share
    for x in scored:
        if x.share < top * NEAR_BEST or len(picked) >= limit:
            break
        if x in picked or any(_same(set(x.sentence.words), other) for other in shown):
            continue  # a page's claim and the raw sentence it was drawn from: one is enough
        take(x)
    order = {id(x): i for i, x in enumerate(scored)}
    return sorted(picked, key=lambda x: order[id(x)])


def compared_subjects(question: str, names: list[Name]) -> list[list[Name]]:
    """The subjects a question compares, each as its names (a name inside another is the same subject:
    "Backlinks" and "Backlinks plugin"); empty unless the question compares two or more."""
    if not _COMPARES.search(question):
        return []
    groups: list[list[Name]] = []
    for name in names:
        group = next((g for g in groups if any(_holds(n, name) or _holds(name, n) for n in g)), None)
        if group is None:
            groups.append([name])
        else:
            group.append(name)
    return groups if len(groups) > 1 else []


def render_quotes(quotes: Iterable[Quote]) -> str:
    """The reply shown for quoted sentences: the label, then one cited sentence per line."""
    lines = [f"- “{q.text}” — {q.citation}" for q in quotes]
    return QUOTED_MARK + "\n".join(lines)


def subject_names(question: str, items: Iterable[ContextItem]) -> list[tuple[str, ...]]:
    """What the question names, each as its folded words: capitalised names and identifiers, and the
    titles and aliases of the context pages written in it."""
    items = list(items)
    lexicon = "\n".join(item.text for item in items) + "\n" + _OPENERS
    found: list[tuple[str, ...]] = []
    asked = [w for w, _, _ in words(question)]
    for item in items:
        if item.kind != "page":
            continue
        for label in (item.title, *item.aliases):
            name = tuple(w for w, _, _ in words(label))
            if name and _holds(asked, name) and name not in found:
                found.append(name)
    for word in sorted(specifics(question, lexicon=lexicon).words):
        name = tuple(w for w, _, _ in words(word))
        if name and not any(_holds(known, name) for known in found):
            found.append(name)
    return found


def _sentences(item: ContextItem, order: int, check: CitationCheck) -> Iterable[_Sentence]:
    text = item.text
    # a page shown from its heading: its first sentence is the lead, which says what the page is about
    lead = item.kind == "page" and text.startswith("# ")
    for start, end in sentence_spans(text):
        raw = text[start:end]
        if HEADING_OR_ROW.match(raw) or raw.endswith("…"):
            continue  # a heading states nothing; a row needs its table; "…" is where a passage was cut
        shown = " ".join(strip_anchors(_MARKUP.sub("", raw)).split())
        if not shown or len(shown) > MAX_SENTENCE_CHARS:
            continue
        shown = check_text(shown, check)  # a link to what the model was not shown becomes plain text
        first = last = None
        if item.kind == "raw" and item.line_start is not None:
            first = item.line_start + text.count("\n", 0, start)
            last = item.line_start + text.count("\n", 0, end)
        yield _Sentence(item, shown, tuple(w for w, _, _ in words(shown)), frozenset(question_terms(shown)),
                        first, last, order, lead)
        lead = False


def _weights(terms: set[str], sentences: list[_Sentence]) -> dict[str, float]:
    """Each content word's weight: rarer among the context's sentences weighs more (smoothed idf)."""
    n = len(sentences)
    out: dict[str, float] = {}
    for term in terms:
        df = sum(term in s.terms for s in sentences)
        if df == 0 and _CJK_CHAR.search(term):
            continue
        out[term] = 1.0 + math.log((n + 1) / (df + 1))
    return out


def _holds(seq: Iterable[str] | tuple[str, ...] | list[str], name: tuple[str, ...]) -> bool:
    """`name`'s words appear in `seq`, one after another."""
    seq = list(seq)
    size = len(name)
    return any(tuple(seq[i : i + size]) == name for i in range(len(seq) - size + 1))


def _labels(item: ContextItem) -> list[Name]:
    """What a page is about, as folded words: its title and aliases (a raw passage is about nothing named)."""
    if item.kind != "page":
        return []
    return [tuple(w for w, _, _ in words(label)) for label in (item.title, *item.aliases)]


def _names_it(sentence: tuple[str, ...], labels: list[Name], name: Name) -> bool:
    return _holds(sentence, name) or any(_holds(label, name) for label in labels)


def _about(item: ContextItem, names: list[Name], sentence: tuple[str, ...]) -> bool:
    """Every name is in the sentence or is what its page is about (the page's title or an alias)."""
    labels = _labels(item)
    return bool(labels) and all(_names_it(sentence, labels, name) for name in names)


def _about_any(sentence: _Sentence, names: list[Name]) -> bool:
    """One of `names` is in the sentence or is what its page is about."""
    labels = _labels(sentence.item)
    return any(_names_it(sentence.words, labels, name) for name in names)


def _says_what(sentence: _Sentence, name: Name) -> bool:
    """The sentence says what `name` is: it opens "Name is ...", or it is the lead of the page about it."""
    return _defines(sentence.words, name) or (sentence.lead and any(label == name for label in _labels(sentence.item)))


def _defines(sentence: tuple[str, ...], name: tuple[str, ...]) -> bool:
    """The sentence opens with the name and a copula: "Quillstore is an embedded database"."""
    words = sentence[1:] if sentence[:1] == ("the",) else sentence
    size = len(name)
    return words[:size] == name and len(words) > size and words[size] in _COPULAS


def _same(a: set[str], b: set[str]) -> bool:
    return bool(a and b) and len(a & b) / len(a | b) >= 0.8

