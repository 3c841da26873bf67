"""Claims the code finds in a source, for a name the model proposed but could not quote.

A small local model names the things a source is about well and copies its sentences badly: for Chroma it
writes the quote "Chroma is an open-source system for vector databases." where the source says "Chroma,
Qdrant and Milvus are three widely used open-source systems.", and the name ends with no anchored claim.
The code knows the source's sentences and where each name is written. So for a name that ends with no
anchored claim from a source, it takes the source's sentences that write the name (or another form of it:
"ChromaDB" for "Chroma", an alias the model gave), ranks them, and keeps the best few as claims whose text
is the sentence and whose quote is the sentence itself. They are the source's words, not the model's: a page
marks them (`by=sentence` in the claim's comment), and the support rule holds by construction.

A sentence opening with a pronoun ("It's similar to the Backlinks plugin…") is about what the sentence before
it is about: it is found for a name only when that sentence opens with the name.

Ranking: a sentence whose words the model's own (failed) quote nearly copies comes first, then one that
defines the subject ("X is a …", "X, an …", "X是一个…"), one that starts with the name (the name is its
subject), one that states specifics (numbers, versions), and one that names few other things; earlier in
the source breaks ties. Headings, table rows and the source's frontmatter are no sentences, and one that ends
with a colon ("Create a note with the following text:") leads into what follows and is no claim alone.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from wikic.text.reader_text import reader_text
from wikic.text.specifics import specifics
from wikic.text.terms import words

MAX_FOUND = 3  # sentences kept per name and source: a page gets the gist, not the source
MIN_WORDS = 4  # shorter is a fragment ("Chroma." under a list), not a claim
MAX_WORDS = 80  # longer is a paragraph the splitter could not cut (a list without full stops)
# a sentence opening with one of these is about what the sentence before it is about
_BACK_REFERENCE = frozenset({"it", "its", "they", "their", "them", "this", "these", "those", "he", "she", "his",
                             "her", "它", "其", "他", "她", "这"})
_ARTICLES = frozenset({"a", "an", "the"})
NEAR_COPY = 0.5  # share of words the model's quote has in common with a sentence it was meant to copy

_CLOSING = ".!?。！？…\"'”’»」』)"
# what closes the markup a sentence's last words are in: emphasis marks, a link's end with its target
_CLOSING_MARKUP = re.compile(r"\]\([^()\s]*\)|\]\]|\\\]|[*_~=\]]")  # `\]`: an escaped bracket
# What a definition says right after the name: "is a", "was an", "is one of", "(BM25), a ..."
_DEFINES = re.compile(
    r"^\s*(?:\([^)]{1,80}\)\s*)?(?:,\s*(?:an?|the)\s+[^,]{3,120},\s*)?(?:is|are|was|were)\s+(?:an?|one|the)\b"
    r"|^\s*(?:\([^)]{1,80}\)\s*)?,\s*(?:an?|the)\s+\w"
    r"|^\s*(?:是|为|乃)\s*(?:一个|一种|一款|一套|一家|一位|一项|一门|一类|开源)"
    r"|^\s*[，,]\s*(?:一个|一种|一款|一套|一家)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Sentence:
    """One sentence of a source: its word range in the anchor index and its text as the source writes it."""

    first: int
    last: int
    words: tuple[str, ...]
    text: str
    introduces: bool = False  # it ends with a colon: it leads into a list or an example, and says nothing alone


@dataclass(frozen=True)
class Found:
    sentence: Sentence
    defines: bool  # the sentence says what the subject is
    score: float


def clean(text: str) -> str:
    """A sentence as a claim's text: one line, as its reader sees it (a link shows its text, an embed of a file
    shows nothing, emphasis marks dropped, code kept as code: `reader_text`)."""
    return " ".join(reader_text(text).split())


def form_at(words_: Sequence[str], form: tuple[str, ...]) -> int | None:
    """Where `form` starts in `words_` (whole words, in order), or None."""
    n = len(form)
    for i in range(len(words_) - n + 1):
        if tuple(words_[i : i + n]) == form:
            return i
    return None


def _defines(sentence: Sentence, form_at: int, form: tuple[str, ...]) -> bool:
    """The sentence opens with the name (after an article: "An alias is an alternative name for a note.")
    and goes on to say what it is."""
    if form_at != 0 and not (form_at == 1 and sentence.words[0] in _ARTICLES):
        return False
    # the text after the name's last word, as written: found again by the words' own order
    rest = sentence.text
    for word in form:
        at = rest.casefold().find(word)
        if at < 0:
            return False
        rest = rest[at + len(word) :]
    return bool(_DEFINES.match(rest))


def rank(
    sentences: Sequence[Sentence],
    forms: Sequence[tuple[str, ...]],
    *,
    tried: Sequence[str] = (),
    others: Sequence[tuple[str, ...]] = (),
) -> list[Found]:
    """The sentences that write one of `forms`, best first. `tried`: the quotes the model proposed for the
    name (the sentence one of them nearly copies wins); `others`: the forms of the other names of the same
    plan (a sentence listing many things says little about each)."""
    tried_words = [[w for w, _, _ in words(q)] for q in tried if q.strip()]
    out: list[Found] = []
    for order, sentence in enumerate(sentences):
        if not MIN_WORDS <= len(sentence.words) <= MAX_WORDS or sentence.introduces:
            continue
        hits = [(at, form) for form in forms if (at := form_at(sentence.words, form)) is not None]
        if not hits:
            continue
        if sentence.words[0] in _BACK_REFERENCE and not (
                order and any(form_at(sentences[order - 1].words, form) == 0 for form in forms)):
            continue  # "It's similar to the Backlinks plugin…": about what the sentence before is about
        at, form = min(hits)
        defines = _defines(sentence, at, form)
        copied = max(
            (difflib.SequenceMatcher(None, t, sentence.words, autojunk=False).ratio() for t in tried_words),
            default=0.0,
        )
        said = specifics(sentence.text)
        crowd = sum(1 for other in others if other not in forms and form_at(sentence.words, other) is not None)
        score = (
            (4 * copied if copied >= NEAR_COPY else 0.0)
            + (3.0 if defines else 0.0)
            + (2.0 if at == 0 else 1.0 if at < 4 else 0.0)
            + min(2, len(said.numbers)) * 0.75
            - min(3, crowd) * 0.5
            - order * 0.01
        )
        out.append(Found(sentence, defines, score))
    out.sort(key=lambda f: -f.score)
    return out


def best(found: Sequence[Found], limit: int = MAX_FOUND) -> list[Found]:
    """The `limit` best sentences, in the order the source writes them (a page reads better that way)."""
    return sorted(found[:limit], key=lambda f: f.sentence.first)


def closing(text: str, end: int) -> int:
    """`end` moved past the sentence's closing punctuation (a full stop, a closing quote or bracket) and the
    markup its last words close (emphasis, a link's `]]` or `](target)`), so a sentence that ends inside
    either ("… using _internal links_.") is never cut there."""
    while True:
        while end < len(text) and text[end] in _CLOSING:
            end += 1
        past = end
        while found := _CLOSING_MARKUP.match(text, past):
            past = found.end()
        if past == end or (past < len(text) and text[past].isalnum()):
            return end  # no markup, or marks inside a word (`snake_case`, `a=b`): the sentence ends here
        end = past
