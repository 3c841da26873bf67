"""A raw source as it is now, against what capture recorded: whether an anchor citing its lines still holds.

An anchor holds when its source is still what was captured (its sha256, or its text's for a PDF or a web
page, is the source ledger's; a file the ledger does not know is taken as it is) and the lines it names are
still there and not blank; else it drifted. `wikic eval` counts anchors with it, and the static site marks a
drifted citation with it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from wikic.errors import VaultError
from wikic.vault.formats.anchors import Cited
from wikic.vault.formats.sources import SourceEntry
from wikic.vault.paths import read_inside


class RawFile:
    """A raw source as it is now: its text (None: gone or unreadable) and whether it is still what was
    captured (its sha256 against the source ledger's; a file the ledger does not know is taken as it is)."""

    def __init__(self, root: Path, path: str, expected: str | None) -> None:
        self.path = path
        try:
            data = read_inside(root, root / path)
        except (OSError, VaultError):
            data = None
        self.sha256 = hashlib.sha256(data).hexdigest() if data is not None else None
        self.edited = data is None or (expected is not None and self.sha256 != expected)
        try:
            self.text = data.decode("utf-8-sig") if data is not None else None
        except UnicodeDecodeError:
            self.text = None
        self._lines = self.text.split("\n") if self.text is not None else []

    def quote(self, cited: Cited) -> str | None:
        """The lines `cited` names, as the file holds them now; None when they are not there (past its end, or
        blank)."""
        if cited.start < 1 or cited.end < cited.start or cited.end > len(self._lines):
            return None
        text = "\n".join(self._lines[cited.start - 1 : cited.end]).strip()
        return text or None

    def holds(self, cited: Cited) -> bool:
        """Whether an anchor citing `cited` holds: the file is still what was captured and the lines are still
        there (else the anchor drifted)."""
        return not self.edited and self.quote(cited) is not None


def expected_sha256(ledger: Mapping[str, SourceEntry]) -> dict[str, str]:
    """raw path -> the sha256 the source ledger recorded at capture: of the file, and of the text made from it
    (a PDF's or a page's text, which its claims cite)."""
    out: dict[str, str] = {}
    for path, entry in ledger.items():
        if entry.sha256 is not None:
            out[path] = entry.sha256
        if entry.text_path is not None and entry.text_sha256 is not None:
            out[entry.text_path] = entry.text_sha256
    return out
