"""Claim anchors: how a page cites the raw lines a claim comes from, written and read in one place.

The compiler writes an anchor after each claim, as an inline footnote whose file part is a wikilink:

    - OpenAI is based in San Francisco. ^[[[raw/articles/x.md|x.md]] L24-L27]

Obsidian shows it as a footnote whose link opens the source, and lists the page among the raw file's
backlinks. The link's target is the file's vault path, which reaches that file and no other whatever is
added to the vault later; its text is the file name, or the whole path when another raw file has the same
name. The line range after the link stays machine-readable. In a table cell the link's pipe is written
`\\|`, as every link in a table.

Pages written by earlier versions carry plain anchors, `^[raw/articles/x.md:L24-L27]`: every reader of
anchors (`find_anchors`) takes both forms, and a raw path a wikilink cannot hold (brackets, `|`, `#`,
`^`, markup characters) is still written in the plain form.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from functools import lru_cache

# "raw/articles/x.md:L3-L5": how a plan's anchor is spelled (`wikic.compile.plan.Anchor.__str__`) and stored.
_SPEC = re.compile(r"^(?P<path>[^\n]+?):L(?P<start>\d+)(?:-L(?P<end>\d+))?$")
_LINKED = (
    r"\^\[\[\[(?P<lpath>[^\[\]|\n]+?)\\?(?:\|(?P<label>[^\[\]\n]*))?\]\]"
    r" L(?P<lstart>\d+)(?:-L(?P<lend>\d+))?\]"
)
_PLAIN = r"\^\[(?P<ppath>[^\[\]\n]+?):L(?P<pstart>\d+)(?:-L(?P<pend>\d+))?\]"
ANCHOR = re.compile(f"{_LINKED}|{_PLAIN}")
_WITH_SPACE = re.compile(rf"[ \t]*(?:{_LINKED}|{_PLAIN})")
# What a wikilink target cannot hold, or what would make the page's links depend on the parser (code,
# math, HTML, comments, escapes, character references).
_UNLINKABLE = re.compile(r"[\[\]|#^\\`$<>\x00-\x1f\x7f]|%%|&(?:#\d+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")


@dataclass(frozen=True)
class Cited:
    """The raw file and 1-based inclusive line range an anchor points at."""

    path: str
    start: int
    end: int

    @property
    def lines(self) -> str:
        return f"L{self.start}" if self.start == self.end else f"L{self.start}-L{self.end}"

    @property
    def spec(self) -> str:
        return f"{self.path}:{self.lines}"


def parse_spec(spec: str) -> Cited | None:
    """'raw/articles/x.md:L3-L5' -> Cited('raw/articles/x.md', 3, 5); None for anything else."""
    m = _SPEC.match(spec.strip())
    if not m:
        return None
    start = int(m.group("start"))
    return Cited(m.group("path"), start, int(m.group("end") or start))


def linkable(path: str) -> bool:
    """Whether `path` can be the target of a wikilink that reads the same to Obsidian and both parsers."""
    return bool(path) and not _UNLINKABLE.search(path) and path == path.strip()


def render(spec: str, *, label: str | None = None, in_table: bool = False) -> str:
    """The anchor for a plan's anchor spec. `label` is the link text (default: the file name)."""
    cited = parse_spec(spec)
    if cited is None or not linkable(cited.path):
        return f"^[{spec}]"
    text = posixpath.basename(cited.path) if label is None else label
    if not text or text == cited.path or not linkable(text):
        return f"^[[[{cited.path}]] {cited.lines}]"
    pipe = "\\|" if in_table else "|"
    return f"^[[[{cited.path}{pipe}{text}]] {cited.lines}]"


def _cited(m: re.Match[str]) -> Cited:
    linked = m.group("lpath") is not None
    path = m.group("lpath" if linked else "ppath").strip()
    start = int(m.group("lstart" if linked else "pstart"))
    end = m.group("lend" if linked else "pend")
    return Cited(path, start, int(end) if end else start)


def find_anchors(text: str) -> list[tuple[re.Match[str], Cited]]:
    """Every anchor in `text`, of either form, with what it cites."""
    return [(m, _cited(m)) for m in ANCHOR.finditer(text)] if "^[" in text else []


@lru_cache(maxsize=16_384)
def first_cited(text: str) -> Cited | None:
    """What the first anchor in `text` cites (None: no anchor). Kept for the texts seen last: a claim's
    citations are asked for their source again and again while a long page is rendered."""
    m = ANCHOR.search(text) if "^[" in text else None
    return _cited(m) if m is not None else None


def strip_anchors(text: str) -> str:
    """`text` without its anchors (search snippets, embeddings, one-line summaries): file names and line
    numbers are not what a passage is about."""
    return _WITH_SPACE.sub("", text) if "^[" in text else text


def plain_anchors(text: str) -> str:
    """`text` with every anchor in the plain form `^[raw/x.md:L3-L5]`: what a claim cites, without link
    syntax (a model shown a page must not copy a link to a file it was not shown)."""
    return ANCHOR.sub(lambda m: f"^[{_cited(m).spec}]", text) if "^[" in text else text
