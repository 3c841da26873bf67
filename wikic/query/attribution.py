"""Which context item an answer's sentence copies: a sentence copied from the context cites the item it copies.

A small model often answers with its context's own sentences, links and all, and cites nothing more: the
links inside a copied sentence ("... of the active [[note]]") are the page's links to other pages, not where
the sentence came from. So each sentence of an answer is compared with the context's sentences, both read as
a reader sees them (a link is its text; claim anchors and Markdown marks left out). A sentence copies a
context sentence when at least `MIN_WORDS` of its words are compared and `COPIED` of them are found in that
sentence, in the same order. A link of the answer whose words sit on a link of the context sentence is the
page's own link, inside the copied words; any other link is a citation the model added, and its words are
not compared. `citations.AnswerFilter` asks this of each sentence as it ends, while the answer streams.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from wikic.query.retrieve import ContextItem
from wikic.text.reader_text import reader_text
from wikic.text.sentences import sentence_spans
from wikic.text.terms import words
from wikic.vault.formats.anchors import strip_anchors

MIN_WORDS = 5  # fewer words compared say too little to tell where they came from ("It is a plugin.")
COPIED = 0.8  # of the sentence's words, found in a context sentence in order

_LINK = re.compile(r"!?\[\[[^\[\]\n]+\]\]")
# A heading states nothing, and a table row needs its table: neither is read as a sentence.
HEADING_OR_ROW = re.compile(r"^\s*(?:#{1,6}\s|\|)")


@dataclass(frozen=True)
class Copy:
    item: ContextItem  # the context item whose sentence the answer's sentence copies
    share: float  # of the answer sentence's compared words found there, in order
    in_copy: frozenset[int]  # the answer's links (by index) that sit on the context sentence's own links


@dataclass(frozen=True)
class _Read:
    words: tuple[str, ...]  # folded, in order
    link_of: tuple[int, ...]  # for each word, the index of the link it is the text of; -1: plain text


@dataclass(frozen=True)
class _Sentence:
    item: ContextItem
    order: int
    read: _Read


def read(text: str, links: Sequence[tuple[int, int]]) -> _Read:
    """The words of `text` a reader sees, each with the link (of `links`, spans in `text`) it belongs to."""
    found: list[str] = []
    link_of: list[int] = []

    def add(piece: str, link: int) -> None:
        for word, _, _ in words(reader_text(strip_anchors(piece))):
            found.append(word)
            link_of.append(link)

    last = 0
    for i, (start, end) in enumerate(links):
        add(text[last:start], -1)
        add(text[start:end], i)
        last = end
    add(text[last:], -1)
    return _Read(tuple(found), tuple(link_of))


def link_spans(text: str) -> list[tuple[int, int]]:
    """Where the wikilinks (and embeds) of `text` are."""
    return [m.span() for m in _LINK.finditer(text)]


class Copies:
    """The context's sentences, to tell which of them an answer's sentence copies."""

    def __init__(self, items: Iterable[ContextItem]) -> None:
        self.sentences: list[_Sentence] = []
        self._by_word: dict[str, list[int]] = defaultdict(list)
        for order, item in enumerate(items):
            for start, end in sentence_spans(item.text):
                text = item.text[start:end]
                if HEADING_OR_ROW.match(text):
                    continue
                sentence = _Sentence(item, order, read(text, link_spans(text)))
                if len(sentence.read.words) < MIN_WORDS:
                    continue
                for word in set(sentence.read.words):
                    self._by_word[word].append(len(self.sentences))
                self.sentences.append(sentence)

    def of(self, text: str, links: Sequence[tuple[int, int]]) -> list[Copy]:
        """The context items that hold a sentence `text` copies, the closest copy first (one per item).
        `links`: where the answer sentence's links are (their words sit on the page's links or are left out)."""
        if HEADING_OR_ROW.match(text):
            return []
        answer = read(text, links)
        plain = sum(1 for link in answer.link_of if link < 0)
        needed = COPIED * max(plain, MIN_WORDS)
        shared: dict[int, int] = defaultdict(int)
        for word in answer.words:
            for index in self._by_word.get(word, ()):
                shared[index] += 1
        best: dict[str, Copy] = {}
        order: dict[str, int] = {}
        for index, count in shared.items():
            if count < needed:
                continue  # cannot hold enough of the sentence's words, in any order
            sentence = self.sentences[index]
            found = _copy(answer, sentence)
            if found is None:
                continue
            path = sentence.item.path
            if path not in best or found.share > best[path].share:
                best[path] = found
                order[path] = sentence.order
        return sorted(best.values(), key=lambda c: (-c.share, order[c.item.path]))


def _copy(answer: _Read, sentence: _Sentence) -> Copy | None:
    """The copy `answer` makes of `sentence`, if it is one."""
    theirs = sentence.read
    matched: dict[int, int] = {}  # the answer's word -> the context sentence's word
    blocks = SequenceMatcher(None, answer.words, theirs.words, autojunk=False).get_matching_blocks()
    for a, b, size in blocks:
        for k in range(size):
            matched[a + k] = b + k
    in_copy = frozenset(
        answer.link_of[a] for a, b in matched.items() if answer.link_of[a] >= 0 and theirs.link_of[b] >= 0
    )
    compared = [a for a, link in enumerate(answer.link_of) if link < 0 or link in in_copy]
    if len(compared) < MIN_WORDS:
        return None
    share = sum(1 for a in compared if a in matched) / len(compared)
    return Copy(sentence.item, share, in_copy) if share >= COPIED else None
