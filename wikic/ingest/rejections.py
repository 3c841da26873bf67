"""What a person rejected in review, kept in the vault so that it sticks: `.wikic/rejected.md`.

A readable list a person may edit, one rejection a line; the vault's `.gitignore` keeps it under version
control like the ledgers. Deleting a line undoes that rejection.

    - claim c1a2b3c4 from raw/articles/x.md L12: "Chroma is a graph database." (why: wrong; 2026-12-06)
    - page "Keeping" from raw/articles/x.md (why: a sentence opener; 2026-12-06)

A claim is matched by its source and content: the same source, and the same words (link syntax, case and
spacing aside), or a claim anchored on the same lines that says nearly the same (most of its content words),
so a new reply of the model does not bring a rejected claim back in other words. A page is matched by its
source and its name, in any of the name's forms.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path

from wikic.vault.formats.claims import normal_text
from wikic.vault.layout import STATE_DIR
from wikic.vault.names import same_subject
from wikic.vault.paths import read_text_inside
from wikic.vault.write import write_atomic

REJECTED_FILE = f"{STATE_DIR}/rejected.md"
_HEAD = (
    "# Rejected in review\n\n"
    "What a person rejected when reviewing a run (`wikic review reject`): the next runs of these sources do\n"
    "not propose it again. Delete a line to undo it.\n\n"
)
_CLAIM = re.compile(
    r'^- claim (?P<id>c[0-9a-f]{8}) from (?P<source>\S+) L(?P<start>\d+)(?:-L(?P<end>\d+))?: '
    r'"(?P<text>.*)"(?: \(why: (?P<why>.*?)(?:; (?P<day>\d{4}-\d{2}-\d{2}))?\))?\s*$'
)
_PAGE = re.compile(
    r'^- page "(?P<name>.+?)" from (?P<source>\S+)(?: \(why: (?P<why>.*?)(?:; (?P<day>\d{4}-\d{2}-\d{2}))?\))?\s*$'
)
NEAR = 0.6  # share of a rejected claim's content words a new claim on the same lines must hold to match it


@dataclass(frozen=True)
class RejectedClaim:
    id: str
    source: str
    start: int
    end: int
    text: str
    why: str = ""
    day: str = ""

    def line(self) -> str:
        lines = f"L{self.start}" if self.start == self.end else f"L{self.start}-L{self.end}"
        return f'- claim {self.id} from {self.source} {lines}: "{_one_line(self.text)}"{_why(self.why, self.day)}'


@dataclass(frozen=True)
class RejectedPage:
    name: str
    source: str
    why: str = ""
    day: str = ""

    def line(self) -> str:
        return f'- page "{_one_line(self.name)}" from {self.source}{_why(self.why, self.day)}'


@dataclass(frozen=True)
class Rejections:
    claims: tuple[RejectedClaim, ...] = ()
    pages: tuple[RejectedPage, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.claims or self.pages)

    def rejects_claim(self, source: str, start: int, end: int, text: str) -> RejectedClaim | None:
        """The rejection a claim of `source` anchored on lines `start`-`end` and saying `text` meets, or None."""
        from wikic.compile.page import content_words  # here: the rules of a vault without rejections cost nothing

        said = normal_text(text)
        words = content_words(said)
        for r in self.claims:
            if r.source != source:
                continue
            if normal_text(r.text) == said:
                return r
            overlaps = start <= r.end and r.start <= end
            theirs = content_words(normal_text(r.text))
            if overlaps and theirs and len(words & theirs) >= NEAR * len(theirs):
                return r
        return None

    def rejects_page(self, source: str, name: str) -> RejectedPage | None:
        return next((r for r in self.pages if r.source == source and same_subject(r.name, name)), None)


def load(root: Path) -> Rejections:
    """The vault's rejections; lines that are none are passed over (a person's notes in the file stay)."""
    text = read_text_inside(root, Path(root) / REJECTED_FILE)
    if not text:
        return Rejections()
    claims: list[RejectedClaim] = []
    pages: list[RejectedPage] = []
    for line in text.split("\n"):
        if m := _CLAIM.match(line):
            start = int(m["start"])
            claims.append(RejectedClaim(m["id"], m["source"], start, int(m["end"] or start), m["text"],
                                        m["why"] or "", m["day"] or ""))
        elif m := _PAGE.match(line):
            pages.append(RejectedPage(m["name"], m["source"], m["why"] or "", m["day"] or ""))
    return Rejections(tuple(claims), tuple(pages))


def add(root: Path, claims: list[RejectedClaim], pages: list[RejectedPage]) -> int:
    """Append rejections not recorded yet; returns how many were added."""
    path = Path(root) / REJECTED_FILE
    current = read_text_inside(root, path) or _HEAD
    present = set(current.split("\n"))
    new = [line for line in [*(c.line() for c in claims), *(p.line() for p in pages)] if line not in present]
    if new:
        text = current if current.endswith("\n") else current + "\n"
        write_atomic(path, text + "\n".join(new) + "\n", root=root)
    return len(new)


def today() -> str:
    return dt.date.today().isoformat()


def _one_line(text: str) -> str:
    return " ".join(text.split()).replace('"', "'")


def _why(why: str, day: str) -> str:
    parts = [p for p in (_one_line(why).replace(")", "]").replace(";", ","), day) if p]
    if not parts:
        return ""
    return f" (why: {'; '.join(parts)})" if why else f" (why: ; {day})"
