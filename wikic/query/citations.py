"""The citation check: every link in an answer must reach something that was in the model's context.

The model is told to cite with the exact links of the context headers. Code then checks each `[[...]]`:
a link that reaches a context item (by Obsidian's resolution, or by the item's title or an alias, which
Obsidian itself would not resolve) is rewritten to the item's canonical link; any other link (a page that
was not in the context, an invented one, a path out of the vault) is unlinked to its plain text and
reported. Embeds (`![[x]]`) become plain links: an answer must not transclude pages.

`AnswerFilter` applies the check to a stream, so the terminal shows checked text as it arrives: text is
passed through at once, except a possible link, held until its `]]` arrives (or until it is clearly no
link). It also drops a leading `<think>...</think>` block and recognises the "not in the wiki" sentinel.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from wikic.query.retrieve import ANSWER_SOURCE, ContextItem
from wikic.vault.resolve import Resolver, fold_name

# What the model replies, alone, when the context does not answer the question.
SENTINEL = "NOT_IN_WIKI"
_ANCHOR_SUFFIX = re.compile(r":L?\d+(?:-L?\d+)?$")
_MAX_LINK = 300  # a "[[" with no "]]" within this many characters is not a link


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
        target, bar, alias = inner.replace("\\|", "|").partition("|")
        item, by_label = self.find(target)
        shown = _plain(alias if bar and alias.strip() else target.split("#", 1)[0])
        if item is None:
            self.rejected.append(f"[[{inner}]]")
            return shown
        self.cited.setdefault(item.path, Citation(item.path, item.link, item.kind, item.title))
        if bar and alias.strip() and fold_name(alias.strip()) != fold_name(item.ref):
            return f"[[{item.ref}|{_plain(alias)}]]"
        if by_label:
            # "[[Sam Altman]]" reaches no file in Obsidian: link the page, keep the words the model chose
            return f"[[{item.ref}|{_plain(target)}]]"
        return item.link

    @property
    def citations(self) -> list[Citation]:
        return list(self.cited.values())


def _plain(text: str) -> str:
    return " ".join(text.replace("[", "").replace("]", "").replace("|", "/").split())


def check_text(text: str, check: CitationCheck) -> str:
    """`text` with every link checked (the whole-text form of AnswerFilter's link stage)."""
    f = AnswerFilter(check, sentinel=False)
    return f.feed(text) + f.finish()


class AnswerFilter:
    """Feed streamed pieces, get back checked text that is safe to show now; `finish()` flushes the rest."""

    def __init__(self, check: CitationCheck, *, sentinel: bool = True) -> None:
        self.check = check
        self.not_found = False
        self._watch_sentinel = sentinel
        self._started = False
        self._prefix = ""
        self._pending = ""
        self._out: list[str] = []

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
        return self._emit(self._links(piece, final=False))

    def finish(self) -> str:
        if self.not_found:
            return ""
        text = ""
        if not self._started:
            ready = self._opening(final=True)
            if ready is None:
                return ""
            text = ready
        return self._emit(self._links(text, final=True))

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
        while True:
            i = pending.find("[[")
            if i < 0:
                keep = len(pending)
                if not final:
                    while keep > 0 and pending[keep - 1] in "[!":
                        keep -= 1  # may be the start of "[[" or "![["
                out.append(pending[:keep])
                pending = pending[keep:]
                break
            embed = i > 0 and pending[i - 1] == "!"
            out.append(pending[: i - 1] if embed else pending[:i])
            close = pending.find("]]", i + 2)
            inner = pending[i + 2 : close] if close >= 0 else pending[i + 2 :]
            if close < 0 or "\n" in inner or len(inner) > _MAX_LINK:
                if close < 0 and not final and "\n" not in inner and len(inner) <= _MAX_LINK:
                    pending = pending[i - 1 if embed else i :]  # wait for the "]]"
                    break
                out.append("[")  # an unclosed "[[" is no link: keep the text, not the syntax
                pending = pending[i + 2 :]
                continue
            out.append(self.check.link(inner))
            pending = pending[close + 2 :]
        self._pending = pending
        return "".join(out)
