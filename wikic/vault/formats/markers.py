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


def block(key: str) -> re.Pattern[str]:
    """The whole block `key`, from its begin line to its end line (MULTILINE, DOTALL)."""
    return re.compile(rf"^{re.escape(begin_prefix(key))}sha=[0-9a-f]+ -->\n.*?^{re.escape(end_line(key))}$",
                      re.MULTILINE | re.DOTALL)
