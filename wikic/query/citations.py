"""The citation check: every link in an answer must reach something that was in the model's context.

The model is told to cite with the exact links of the context headers. Code then checks each `[[...]]`:
a link that reaches a context item (by Obsidian's resolution, or by the item's title or an alias, which
Obsidian itself would not resolve) is rewritten to the item's canonical link; any other link (a page that
was not in the context, an invented one, a path out of the vault) is unlinked to its plain text and
reported. Embeds (`![[x]]`) become plain links: an answer must not transclude pages.

`AnswerFilter` applies the check to a stream, so the terminal shows checked text as it arrives: text is
passed through at once, except a possible link, held until its `]]` arrives (or until it is clearly no
link). It also drops a leading `<think>...</think>` block and recognises the "not in the wiki" sentinel.
Given the context's sentences (`attribution.Copies`), it also reads each sentence of the answer as it ends:
a sentence copied from a context item cites that item (its link is written before the sentence's closing
punctuation when the model cited none of the items that hold the sentence), and the links that sit inside
the copied words are the page's own links, not citations (nor removed citations, when they led outside the
context). For that, a sentence's closing punctuation and the white space after it are held until the next
sentence starts: a character or two.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wikic.query.retrieve import ANSWER_SOURCE, ContextItem
from wikic.text.sentences import sentence_breaks
from wikic.vault.resolve import Resolver, fold_name

if TYPE_CHECKING:
    from wikic.query.attribution import Copies

# What the model replies, alone, when the context does not answer the question.
SENTINEL = "NOT_IN_WIKI"
_ANCHOR_SUFFIX = re.compile(r":L?\d+(?:-L?\d+)?$")
_MAX_LINK = 300  # a "[[" with no "]]" within this many characters is not a link
# What may still turn out to end a sentence, at the end of the text so far: its closing punctuation and the
# white space after it (or a new line that may open a numbered list item).
_MAY_END = re.compile(r"(?:[.!?。！？；]+[\"'”’)\]]*)?\s*(?:\n[ \t]*\d{0,3}(?:[.)][ \t]*)?)?$")
_CLOSING = re.compile(r"[.!?。！？；]+$")
_LOOK_BACK = 16


@dataclass(frozen=True)
class Citation:
    path: str
    link: str  # as written in the checked answer, e.g. "[[openai]]"
    kind: str  # page | raw
    title: str

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "link": self.link, "kind": self.kind, "title": self.title}


class CitationCheck:
    """Checks links against the context items; remembers what was cited and what was removed."""

    def __init__(self, items: Iterable[ContextItem], resolver: Resolver | None) -> None:
        self.items = list(items)
        self.by_path = {item.path: item for item in self.items}
        self.by_label: dict[str, ContextItem] = {}
        for item in self.items:
            for label in (item.title, *item.aliases, item.ref, item.path):
                self.by_label.setdefault(fold_name(label.strip()), item)
        self.resolver = resolver
        self.cited: dict[str, Citation] = {}
        self.rejected: list[str] = []

    def find(self, target: str) -> tuple[ContextItem | None, bool]:
        """(the context item `target` reaches, whether only by its title or an alias), or (None, False)."""
        target = target.replace("\\", "").strip()
        target = _ANCHOR_SUFFIX.sub("", target.split("#", 1)[0]).strip()
        if not target:
            return None, False
        if self.resolver is not None:
            found = self.resolver.resolve(ANSWER_SOURCE, target).path
            if found in self.by_path:
                return self.by_path[found], False
            if found is not None:
                return None, False  # a real file, but not one the model was shown
        item = self.by_label.get(fold_name(target))
        return item, item is not None and fold_name(target) not in (fold_name(item.ref), fold_name(item.path))

    def link(self, inner: str) -> str:
        """The replacement for `[[inner]]`."""
        return self.checked(inner)[0]

    def checked(self, inner: str, *, cite: bool = True) -> tuple[str, ContextItem | None]:
        """The replacement for `[[inner]]`, and the context item it reaches (None: removed, and reported).
        `cite`: record the item as cited now (else the caller cites it, or not, once it knows)."""
        target, bar, alias = inner.replace("\\|", "|").partition("|")
        item, by_label = self.find(target)
        shown = _plain(alias if bar and alias.strip() else target.split("#", 1)[0])
        if item is None:
            self.rejected.append(f"[[{inner}]]")
            return shown, None
        if cite:
            self.cite(item)
        if bar and alias.strip() and fold_name(alias.strip()) != fold_name(item.ref):
            return f"[[{item.ref}|{_plain(alias)}]]", item
        if by_label:
            # "[[Sam Altman]]" reaches no file in Obsidian: link the page, keep the words the model chose
            return f"[[{item.ref}|{_plain(target)}]]", item
        return item.link, item

    def cite(self, item: ContextItem) -> None:
        self.cited.setdefault(item.path, Citation(item.path, item.link, item.kind, item.title))

    def unreject(self, inner: str) -> None:
        """`[[inner]]` was a link inside words copied from a page: the page's link, not a removed citation."""
        if f"[[{inner}]]" in self.rejected:
            self.rejected.remove(f"[[{inner}]]")

    @property
    def citations(self) -> list[Citation]:
        return list(self.cited.values())


def _plain(text: str) -> str:
    return " ".join(text.replace("[", "").replace("]", "").replace("|", "/").split())


def check_text(text: str, check: CitationCheck) -> str:
    """`text` with every link checked (the whole-text form of AnswerFilter's link stage)."""
    f = AnswerFilter(check, sentinel=False)
    return f.feed(text) + f.finish()


@dataclass(frozen=True)
class _Linked:
    start: int  # where the checked text shows it, counted from the start of the checked text
    end: int
    inner: str  # as the model wrote it
    item: ContextItem | None  # what it cites; None: removed


class AnswerFilter:
    """Feed streamed pieces, get back checked text that is safe to show now; `finish()` flushes the rest.
    `copies`: the context's sentences, for the citations of the sentences copied from them."""

    def __init__(self, check: CitationCheck, *, sentinel: bool = True, copies: Copies | None = None) -> None:
        self.check = check
        self.not_found = False
        self._watch_sentinel = sentinel
        self._started = False
        self._prefix = ""
        self._pending = ""
        self._out: list[str] = []
        self._copies = copies
        self._checked = 0  # characters the link stage has passed on
        self._linked: list[_Linked] = []  # the links of the sentence being read and of what follows it
        self._sentence = ""  # the checked text from the start of the sentence being read
        self._base = 0  # where it starts in the checked text
        self._shown = 0  # how much of it has been passed on

    @property
    def text(self) -> str:
        """Everything emitted so far."""
        return "".join(self._out)

    def feed(self, piece: str) -> str:
        if self.not_found:
            return ""
        if not self._started:
            self._prefix += piece
            ready = self._opening(final=False)
            if ready is None:
                return ""
            piece = ready
        return self._emit(self._cite(self._links(piece, final=False), final=False))

    def finish(self) -> str:
        if self.not_found:
            return ""
        text = ""
        if not self._started:
            ready = self._opening(final=True)
            if ready is None:
                return ""
            text = ready
        return self._emit(self._cite(self._links(text, final=True), final=True))

    def _emit(self, text: str) -> str:
        if text:
            self._out.append(text)
        return text

    def _opening(self, *, final: bool) -> str | None:
        """Decide what the reply starts with. None: hold (or, for the sentinel, swallow) the text so far."""
        while True:
            head = self._prefix.lstrip()
            if head.startswith("<think>"):
                end = head.find("</think>")
                if end < 0:
                    return None if not final else self._start("")
                self._prefix = head[end + len("</think>") :]
                continue
            if not head:
                return None if not final else self._start("")
            if not final and "<think>".startswith(head):
                return None
            if self._watch_sentinel:
                if head.upper().startswith(SENTINEL):
                    self.not_found = True
                    return None
                if not final and SENTINEL.startswith(head.upper()):
                    return None
            return self._start(head)

    def _start(self, text: str) -> str:
        self._started = True
        self._prefix = ""
        return text

    def _links(self, text: str, *, final: bool) -> str:
        pending = self._pending + text
        out: list[str] = []
        at = self._checked
        while True:
            i = pending.find("[[")
            if i < 0:
                keep = len(pending)
                if not final:
                    while keep > 0 and pending[keep - 1] in "[!":
                        keep -= 1  # may be the start of "[[" or "![["
                out.append(pending[:keep])
                at += keep
                pending = pending[keep:]
                break
            embed = i > 0 and pending[i - 1] == "!"
            out.append(pending[: i - 1] if embed else pending[:i])
            at += len(out[-1])
            close = pending.find("]]", i + 2)
            inner = pending[i + 2 : close] if close >= 0 else pending[i + 2 :]
            if close < 0 or "\n" in inner or len(inner) > _MAX_LINK:
                if close < 0 and not final and "\n" not in inner and len(inner) <= _MAX_LINK:
                    pending = pending[i - 1 if embed else i :]  # wait for the "]]"
                    break
                out.append("[")  # an unclosed "[[" is no link: keep the text, not the syntax
                at += 1
                pending = pending[i + 2 :]
                continue
            # with the sentence stage, a link is a citation once its sentence shows it is not copied text
            shown, item = self.check.checked(inner, cite=self._copies is None)
            out.append(shown)
            if self._copies is not None:
                self._linked.append(_Linked(at, at + len(shown), inner, item))
            at += len(shown)
            pending = pending[close + 2 :]
        self._pending = pending
        self._checked = at
        return "".join(out)

    def _cite(self, text: str, *, final: bool) -> str:
        """The sentence stage: each sentence copied from the context cites what it copies (see the module
        docstring); what may still close a sentence is held."""
        if self._copies is None:
            return text
        self._sentence += text
        out: list[str] = []
        while True:
            # A break is found once text follows it, so it lies in what is held or new: the search starts a
            # little before what is shown (the abbreviation and list-number checks look back that far), and
            # what it finds before what is shown, read without all it follows, was no break.
            start = max(0, self._shown - _LOOK_BACK)
            ends = next((b for b in sentence_breaks(self._sentence[start:])
                         if b[0] + start >= self._shown and not self._in_link(b[0] + start)), None)
            if ends is None:
                break
            end, following = ends[0] + start, ends[1] + start
            out.append(self._close(end, following))
            self._drop(following)
        if final:
            out.append(self._close(len(self._sentence.rstrip()), len(self._sentence)))
            self._drop(len(self._sentence))
            return "".join(out)
        held = _MAY_END.search(self._sentence, self._shown)
        upto = held.start() if held is not None else len(self._sentence)
        if upto > self._shown:
            out.append(self._sentence[self._shown : upto])
            self._shown = upto
        return "".join(out)

    def _close(self, end: int, following: int) -> str:
        """The sentence `self._sentence[:end]` has ended (the next starts at `following`): what is still to be
        shown up to the next, with the citation of the context item it copies where the model cited none of
        the items that hold it; its links' citations settled."""
        assert self._copies is not None
        sentence = self._sentence[:end]
        base = self._base
        linked = [link for link in self._linked if link.start >= base and link.end <= base + end]
        copies = self._copies.of(sentence, [(link.start - base, link.end - base) for link in linked])
        in_copy = copies[0].in_copy if copies else frozenset()
        cited: set[str] = set()
        for i, link in enumerate(linked):
            if i in in_copy:
                if link.item is None:
                    self.check.unreject(link.inner)
            elif link.item is not None:
                self.check.cite(link.item)
                cited.add(link.item.path)
        at, insert = end, ""
        if copies and not cited & {copy.item.path for copy in copies}:
            best = copies[0]
            self.check.cite(best.item)
            closing = _CLOSING.search(sentence)
            at = closing.start() if closing is not None else end
            insert = " " + best.item.link
        if at < self._shown:
            insert = ""  # held text is never shown before its sentence ends, so this does not happen
        at = max(at, self._shown)
        shown = self._sentence[self._shown : at] + insert + self._sentence[at:following]
        self._shown = following
        return shown

    def _in_link(self, at: int) -> bool:
        """`at` (in the sentence being read) is inside a link's text ("[[x|Dr. No]]"): no sentence ends there."""
        return any(link.start < self._base + at < link.end for link in self._linked)

    def _drop(self, upto: int) -> None:
        """The checked text before `upto` is settled: forget it."""
        self._sentence = self._sentence[upto:]
        self._base += upto
        self._shown = 0
        self._linked = [link for link in self._linked if link.end > self._base]
