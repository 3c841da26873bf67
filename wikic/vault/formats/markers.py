"""The marker comments around a compiler-owned block, written out once for the code that writes blocks
(`wikic/pages/blocks.py`) and the code that reads past them (the parser, fingerprints, search, query):

    <!-- wikic:begin facts:raw/articles/x.md sha=1a2b3c4d -->
    - A claim. ^[[[raw/articles/x.md|x.md]] L3-L5]
    <!-- wikic:end facts:raw/articles/x.md -->

Each marker is a one-line HTML comment: Obsidian does not show it, and it hides nothing else.
"""

from __future__ import annotations

import re

PREFIX = "<!-- wikic:"
_SHA = "[0-9a-f]{8,64}"

# A begin marker line: group 1 the block's key, group 2 the hash of its body as the compiler wrote it.
BEGIN = re.compile(rf"^{re.escape(PREFIX)}begin (\S+) sha=({_SHA}) -->$", re.MULTILINE)
# A begin or end marker line: machinery, not content.
MARKER_LINE = re.compile(rf"^{re.escape(PREFIX)}(?:begin \S+ sha={_SHA}|end \S+) -->$")


def begin_line(key: str, sha: str) -> str:
    return f"{PREFIX}begin {key} sha={sha} -->"


def begin_prefix(key: str) -> str:
    """The start of block `key`'s begin line, whatever its hash."""
    return f"{PREFIX}begin {key} "


def end_line(key: str) -> str:
    return f"{PREFIX}end {key} -->"


def marker_lines(key: str = r"\S+") -> re.Pattern[str]:
    """Every begin or end marker line (MULTILINE) whose key matches the regular expression `key`."""
    return re.compile(rf"^{re.escape(PREFIX)}(?:begin {key} sha=[0-9a-f]+|end {key}) -->$", re.MULTILINE)


class BlockPattern:
    """Block `key` whole, from its begin line to the first end line after it: group 1 is what lies between.
    Searched as the one pattern would be, in linear time: the pattern alone looks for an end line from every
    begin line it tries, to the text's end when there is none (a page of begin lines takes minutes), where a
    begin line with no end line after it means that no later one has one either."""

    def __init__(self, key: str) -> None:
        self._begin = re.compile(rf"^{re.escape(begin_prefix(key))}sha=[0-9a-f]+ -->\n", re.MULTILINE)
        self._end = re.compile(rf"^{re.escape(end_line(key))}$", re.MULTILINE)
        self._whole = re.compile(rf"{self._begin.pattern}(.*?){self._end.pattern}", re.MULTILINE | re.DOTALL)

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        begin = self._begin.search(text, pos)
        if begin is None or self._end.search(text, begin.end()) is None:
            return None
        return self._whole.match(text, begin.start())

    def sub(self, replacement: str, text: str) -> str:
        """`text` with every such block replaced by `replacement` (taken as it is: no group references)."""
        pieces: list[str] = []
        done = 0
        while (found := self.search(text, done)) is not None:
            pieces += (text[done : found.start()], replacement)
            done = found.end()
        return "".join(pieces) + text[done:] if pieces else text


def block(key: str) -> BlockPattern:
    """The whole block `key`, from its begin line to its end line."""
    return BlockPattern(key)
