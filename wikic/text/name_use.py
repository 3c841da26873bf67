"""How a text uses words as names: which subjects it can stand behind, and which names it says are one.

A model proposes the names a wiki is built on; a careless one proposes the capitalised word that opens a
sentence ("Keeping the verbatim text means…" made "Keeping"), a bare kind noun ("Model"), a file name from an
embed, and the other names of the same source as aliases. The code decides from the text itself:

- **A name is a subject** when the text uses it as one. A word no list knows ("Quillstore", "Ollama"), one
  with digits or inner capitals ("BM25", "SQLite"), an acronym: yes. A word that is also an ordinary word
  ("Rust", "Go", "Keeping") only where the text writes it as a name: capitalised where no sentence starts (a
  heading in Title Case capitalises every word, and says nothing). Never a function word, a bare kind noun, or
  a file name. A phrase of ordinary words ("Outgoing links", "vector search") only as a term: the text defines
  it ("X is a …", "An alias is …"), heads a section with it, is titled by it, or writes it more than once.
- **An alias is the same subject** when it is another form of the name (case, spacing, hyphens, a singular
  or plural, a generic tail: `name_forms`), its acronym, or the text says so in so many words: "X (Y)", "Y
  (X)", "X, also called Y", "X, also known as Y", "X, formerly Y", "Y, short for X", "X，又称 Y", "X（Y）".

The text is read as its reader sees it: frontmatter, code blocks and comments are no prose; links read as
their text; embeds are no words (`reader_text.py`). One pass over the text, then set lookups.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from wikic.text.code_spans import blank_code
from wikic.text.common_words import VERY_COMMON, common_word, function_word, kind_noun, singular
from wikic.text.extract import source_aliases, source_title
from wikic.text.reader_text import reader_text
from wikic.text.terms import fold

# Why a proposed name is not a subject (counted in the ingest report, like refused claims).
FUNCTION_WORD = "function word"
KIND_NOUN = "kind noun"
ORDINARY_WORD = "ordinary word"  # the text writes it in lower case, never as a name
SENTENCE_OPENER = "sentence opener"  # a frequent word the text capitalises only where a sentence starts
NOT_A_TERM = "not a term"  # a phrase of ordinary words the text never defines, heads a section with or repeats
FILE_NAME = "file name"
PART_OF_A_NAME = "part of a longer name"  # "Brightline", which the text writes only in "Brightline Sync"
NAME_REASONS = (FUNCTION_WORD, KIND_NOUN, ORDINARY_WORD, SENTENCE_OPENER, NOT_A_TERM, FILE_NAME, PART_OF_A_NAME)

# Why an alias is not kept.
NOT_THE_SAME = "not stated as the same subject"
ANOTHER_SUBJECT = "another subject's name"
ANOTHER_PAGE = "another page's title or alias"
ALIAS_REASONS = (NOT_THE_SAME, ANOTHER_SUBJECT, ANOTHER_PAGE)

_EXTENSIONS = (r"\.(?:png|jpe?g|gif|svg|webp|bmp|ico|tiff?|pdf|md|txt|csv|json|ya?ml|html?|mp[34]|wav|ogg|webm|mov|"
               r"zip|canvas|base)")
_FILE = re.compile(
    _EXTENSIONS + r"(?:#\w+)?$|[/\\|]|[^\s#]#[^\s#]",  # "Settings#Excluded files": a link's target, no name
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_][\w'’-]*|\d[\w.-]*", re.UNICODE)
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_FENCE = re.compile(r"^\s*(```|~~~)")
_COMMENT = re.compile(r"<!--.*?-->|%%.*?%%", re.DOTALL)
_LIST_MARK = re.compile(r"^\s*(?:>\s*)*(?:[-*+]\s+(?:\[.\]\s+)?|\d+[.)]\s+)?")
_HEADING = re.compile(r"^\s*#{1,6}\s+(.*?)\s*#*\s*$")
# what may stand between a sentence's start and its first word: quotes, brackets, emphasis
_OPENING = set("\"'“‘«([*_`")
_QUOTES = set("\"“‘«")  # a word after an opening quote is capitalised as a quotation's first word, not as a name
_ENDS = set(".!?:;。！？：；")


def _frontmatter_lines(lines: list[str]) -> int:
    """How many lines a YAML frontmatter block at the top takes (0 when there is none)."""
    if not lines or lines[0].strip() != "---":
        return 0
    for n, line in enumerate(lines[1:], start=1):
        if line.strip() in ("---", "..."):
            return n + 1
    return 0


def _title_case(heading: str) -> bool:
    """Every longer word of the heading is capitalised ("Benchmarking Quillstore Against Its Peers")."""
    long = [w for w in _LATIN_WORD.findall(heading) if len(w) > 3]
    return len(long) >= 2 and all(w[0].isupper() for w in long)


@dataclass
class _Read:
    prose: list[str]  # the text's lines as its reader sees them, code blocks and frontmatter blank
    headings: list[str]


def _read(text: str) -> _Read:
    lines = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text).split("\n")
    skip = _frontmatter_lines(lines)
    prose, headings, fenced = [], [], None
    for n, line in enumerate(lines):
        fence = _FENCE.match(line)
        if n < skip:
            prose.append("")
        elif fenced is not None:
            prose.append("")
            if fence and fence.group(1) == fenced:
                fenced = None
        elif fence:
            fenced = fence.group(1)
            prose.append("")
        else:
            shown = blank_code(reader_text(line))
            heading = _HEADING.match(shown)
            if heading:
                headings.append(heading.group(1))
            prose.append(shown)
    return _Read(prose, headings)


class NameUse:
    """How one text uses its words: built once (one pass), then asked about any number of names."""

    def __init__(self, text: str, title: str | None = None, aliases: Iterable[str] = ()) -> None:
        """`title`: what the text is titled; `aliases`: the other names it gives itself (a source's
        frontmatter `aliases`)."""
        read = _read(text)
        self.title = title
        self.aliases = tuple(aliases)
        self._lower: set[str] = set()  # words (and their singulars) written in lower case
        self._as_name: set[str] = set()  # words written capitalised where no sentence starts
        self._openers: set[str] = set()  # words written capitalised where a sentence starts
        self._alone: set[str] = set()  # capitalised words written at least once with no capitalised neighbour
        self._headings = {self._key(h) for h in read.headings}
        self._prose = "\n".join(read.prose)
        self._folded = " " + " ".join(fold(w) for w in _WORD.findall(self._prose)) + " "
        for line in read.prose:
            self._scan(line)

    @classmethod
    def of_source(cls, text: str, frontmatter: Mapping[str, Any] | None, body: str, name: str) -> NameUse:
        """How the source `text` (its frontmatter and body read apart, its file named `name`) uses its words,
        titled as it titles itself, with the other names its frontmatter gives it."""
        return cls(text, title=source_title(frontmatter, body, name), aliases=source_aliases(frontmatter))

    @staticmethod
    def _key(phrase: str) -> str:
        return " ".join(fold(w) for w in _WORD.findall(phrase))

    def _scan(self, line: str) -> None:
        heading = _HEADING.match(line)
        if heading and _title_case(heading.group(1)):
            body = heading.group(1)
            for match in _WORD.finditer(body):  # every word is capitalised: only lower case tells anything
                word = match.group(0)
                if word.islower():
                    self._lower.add(word.casefold())
            return
        body = line[heading.start(1) :] if heading else line[_LIST_MARK.match(line).end() :]  # type: ignore[union-attr]
        found = list(_WORD.finditer(body))
        starts, last = [], 0
        for n, match in enumerate(found):
            between = body[last : match.start()]
            starts.append(n == 0 or between.rstrip()[-1:] in _QUOTES or
                          between.rstrip("".join(_OPENING) + " ")[-1:] in _ENDS)
            last = match.end()
        for n, match in enumerate(found):
            word = re.sub(r"['’]s$", "", match.group(0)).rstrip("'’-")
            if word[:1].isupper():
                (self._openers if starts[n] else self._as_name).add(word)
                if not any(_joined(body, found, starts, n, m) for m in (n - 1, n + 1)):
                    self._alone.add(word)
            elif word.islower():
                self._lower.add(word.casefold())
                self._lower.add(singular(word))

    # -- subjects -----------------------------------------------------------------------------------------

    def writes_as_name(self, word: str) -> bool:
        """`word` is written capitalised where no sentence starts."""
        return word in self._as_name or word.capitalize() in self._as_name

    def writes_in_lower_case(self, word: str) -> bool:
        low = word.casefold()
        return low in self._lower or singular(low) in self._lower

    def count(self, phrase: str) -> int:
        """How many times the prose writes `phrase` (as whole words; case and hyphens aside)."""
        key = self._key(phrase)
        return self._folded.count(f" {key} ") if key else 0

    def defines(self, phrase: str) -> bool:
        """A sentence of the text says what `phrase` is: "(A|An|The) phrase is/are/refers to/means …", or
        "phrase, a/an …"."""
        words = [re.escape(w) for w in _WORD.findall(phrase)]
        if not words:
            return False
        name = r"[\s\-]+".join(words) + r"s?"
        pattern = (rf"(?:^|[.!?:]\s+|\n\s*(?:[-*+]\s+)?)(?:(?:an?|the)\s+)?{name}\s*(?:\([^)\n]{{1,60}}\)\s*)?"
                   rf"(?:,\s*(?:an?|the)\s+\w|(?:is|are)\s+(?:an?|the|one)\b|refers?\s+to\b|means\b|是一)")
        return re.search(pattern, self._prose, re.IGNORECASE) is not None

    def is_term(self, phrase: str) -> bool:
        """The text uses `phrase` as a term: defines it, heads a section with it, is titled by it, or writes it
        more than once."""
        keys = self._forms(phrase)
        return self.titled(phrase) or self.heads(phrase) or self.defines(phrase) or \
            sum(self._folded.count(f" {k} ") for k in keys) > 1

    def _forms(self, phrase: str) -> set[str]:
        """The keys of `phrase` and of its singular (its last word made singular), without a leading article."""
        words = _WORD.findall(phrase)
        if len(words) > 1 and words[0].casefold() in ("the", "a", "an"):
            words = words[1:]
            phrase = " ".join(words)
        keys = {self._key(phrase)}
        if words:
            keys.add(self._key(" ".join([*words[:-1], singular(words[-1])])))
        return {k for k in keys if k}

    def titled(self, phrase: str) -> bool:
        """`phrase` (or its singular) is the text's title."""
        return self.title is not None and bool(self._forms(self.title) & self._forms(phrase))

    def heads(self, phrase: str) -> bool:
        """A heading of the text is `phrase`, or opens or ends with it ("Add an alias" does not: "alias" is
        inside it)."""
        keys = self._forms(phrase)
        return bool(keys & self._headings) or any(
            h.startswith(k + " ") or h.endswith(" " + k) for h in self._headings for k in keys)

    def refusal(self, name: str, *, concept: bool = False) -> str | None:
        """Why `name` is no subject of this text (one of NAME_REASONS), or None when it is one. A `concept` may
        be written in lower case ("vector search"), but only as a term."""
        name = name.strip()
        if _FILE.search(name) or self._only_in_file_names(name):
            return FILE_NAME
        words = [w.rstrip("'’-") for w in _WORD.findall(name)]
        if not words:
            return None
        if all(function_word(w) for w in words):
            return FUNCTION_WORD
        if len(words) == 1:
            return self._word_refusal(words[0], concept=concept)
        if any(_CJK.search(w) for w in words) or any(self._name_like(w) for w in words):
            return None
        # "Outgoing links plugin" is a term where the text writes "Outgoing links" as one
        base = " ".join(words[:-1]) if len(words) > 2 and kind_noun(words[-1]) else None
        if self.is_term(name) or (base and self.is_term(base)):
            return None
        # an idea may be named as the text writes it inside a sentence ("Plain vector search missed…"), not
        # by the words a sentence opens with ("Keeping the verbatim…") or a quoted example
        return None if concept and self.inside_sentence(name) else NOT_A_TERM

    def _only_in_file_names(self, name: str) -> bool:
        """The text writes `name` and only as part of a file's name or path ("SCHEMA" in "SCHEMA.md")."""
        found = [m for m in re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", self._prose, re.IGNORECASE)]
        return bool(found) and all(
            re.match(_EXTENSIONS + r"\b", self._prose[m.end():], re.IGNORECASE) is not None
            or self._prose[m.start() - 1 : m.start()] in ("/", "\\", ".")
            for m in found)

    def inside_sentence(self, phrase: str) -> bool:
        """The prose writes `phrase` (its last word in either number) in lower case after a word of the same
        sentence."""
        words = [re.escape(w.casefold()) for w in _WORD.findall(phrase)]
        if words:  # in either number: "embeddings" is written "an embedding vector"
            words[-1] = re.escape(singular(words[-1])) + "(?:s|es)?"
        joined = r"[\s-]+".join(words)
        pattern = rf"[a-z,;] +{joined}(?![\w-])"
        return bool(words) and re.search(pattern, self._prose) is not None

    def _name_like(self, word: str) -> bool:
        """A word that says "name" by its shape or by how the text writes it, or that no list knows."""
        if any(ch.isdigit() for ch in word) or word.isupper() or any(ch.isupper() for ch in word[1:]):
            return True
        if word[:1].isupper() and self.writes_as_name(word):
            return True
        return not common_word(word)

    def _word_refusal(self, word: str, *, concept: bool) -> str | None:
        """Why one word is no subject of this text, or None: by its shape first, then by how the text writes it."""
        decided, reason = _shape_refusal(word)
        if decided:
            return reason
        if kind_noun(word):  # a concept may be one ("Plugins"), where the text is about it
            return None if concept and self._about(word, concept=True) else KIND_NOUN
        if word.islower():
            return self._lower_case_refusal(word, concept=concept)
        return self._capitalised_refusal(word, concept=concept)

    def _about(self, word: str, *, concept: bool) -> bool:
        """The text is about `word`: it titles itself with it, heads a section with it, or (a concept) defines it."""
        return self.titled(word) or self.heads(word) or (concept and self.defines(word))

    def _lower_case_refusal(self, word: str, *, concept: bool) -> str | None:
        """A name styled in lower case ("uv", "pip") is a rare word, if a word at all."""
        if self.writes_as_name(word) or not common_word(word, VERY_COMMON):
            return None
        return None if self._about(word, concept=concept) else ORDINARY_WORD

    def _capitalised_refusal(self, word: str, *, concept: bool) -> str | None:
        if word[:1].isupper() and word not in self._alone and (word in self._as_name or word in self._openers):
            return PART_OF_A_NAME
        if word[:1].isupper() and self.writes_as_name(word):
            return None
        if self._about(word, concept=concept):
            return None  # the subject the text is about, or heads a section with
        if concept and not common_word(word, VERY_COMMON) and self.inside_sentence(word):
            return None  # an idea the text writes inside its sentences ("an embedding vector")
        if not common_word(word):
            return None  # a word no list knows is a name however the text also writes it ("install ollama")
        return ORDINARY_WORD if self.writes_in_lower_case(word) else SENTENCE_OPENER

    # -- aliases ------------------------------------------------------------------------------------------

    def own_alias(self, name: str, alias: str) -> bool:
        """`name` is the text's title and `alias` one of the other names the text gives itself."""
        return self.titled(name) and self._key(alias) in {self._key(a) for a in self.aliases}

    def states_same(self, name: str, alias: str) -> bool:
        """The text says in so many words that `alias` names what `name` names, or titles itself `name` and
        gives itself `alias` as another name."""
        if self.own_alias(name, alias):
            return True
        a, b = _loose(name), _loose(alias)
        patterns = [
            rf"{a}\s*[(（]\s*(?:also\s+(?:called|known\s+as)\s+|or\s+|aka\s+|formerly\s+)?{b}\s*[)）]",
            rf"{b}\s*[(（]\s*(?:also\s+(?:called|known\s+as)\s+|or\s+|aka\s+|formerly\s+)?{a}\s*[)）]",
            rf"{a},?\s+(?:also\s+(?:called|known\s+as|written(?:\s+as)?)|aka|a\.k\.a\.|"
            rf"formerly(?:\s+(?:called|known\s+as))?|now(?:\s+called)?|or)\s+[\"“']?{b}\b",
            rf"{b},?\s+(?:short|shorthand)\s+for\s+[\"“']?{a}\b",
            rf"{b},?\s+(?:also\s+(?:called|known\s+as)|aka|formerly(?:\s+(?:called|known\s+as))?)\s+[\"“']?{a}\b",
            rf"{a}\s*[，,]\s*(?:又称|又名|也叫|简称|原名)\s*{b}",
            rf"{b}\s*[，,]\s*(?:又称|又名|也叫|简称|原名)\s*{a}",
        ]
        return any(re.search(p, self._prose, re.IGNORECASE) for p in patterns)


def _shape_refusal(word: str) -> tuple[bool, str | None]:
    """(whether the word's shape decides, and the refusal it gives): CJK and acronyms are names unless they only
    say what kind of thing ("API", "模型"); digits, inner capitals or an unknown hyphened part make a name."""
    if _CJK.search(word) or (word.isupper() and len(word) > 1):
        return True, KIND_NOUN if kind_noun(word) else None
    shaped = any(ch.isdigit() for ch in word) or any(ch.isupper() for ch in word[1:])
    if shaped or ("-" in word and not all(common_word(part) for part in word.split("-") if part)):
        return True, None  # "nomic-embed-text": a word no list knows makes the whole a name
    return False, None


def _joined(body: str, found: list[re.Match[str]], starts: list[bool], n: int, m: int) -> bool:
    """Word `m` stands next to word `n` (only a space or a hyphen between) as part of one name with it: it is
    capitalised, and neither a function word ("The Milvus cluster") nor an ordinary word opening the sentence
    ("Using Milvus…")."""
    if not 0 <= m < len(found):
        return False
    word = found[m].group(0)
    if not word[:1].isupper() or function_word(word) or (starts[m] and common_word(word)):
        return False
    a, b = (found[m], found[n]) if m < n else (found[n], found[m])
    return body[a.end() : b.start()] in (" ", "-")


def _loose(name: str) -> str:
    """A pattern for `name` as a text may write it: any spacing or hyphens between its words."""
    words = [re.escape(w) for w in _WORD.findall(name)]
    return r"[\s\-‐]*".join(words) if words else re.escape(name)
