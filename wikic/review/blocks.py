"""Whether a proposal and a person changed the same part of a page since the proposal was made.

A page is read as its parts: the frontmatter, each compiler block (`<!-- wikic:begin KEY ... -->` to its end
line) by its key, and the text between blocks, which is a person's. A part the proposal changes (before ->
after) and that is no longer what the proposal was made against (before -> now), unless both made it the
same, is a conflict: that page is left out of the accept, never overwritten. Every other edit of a person
is kept by the compile that applies the proposal, as a recompile keeps it.
"""

from __future__ import annotations

import re

from wikic.vault.formats.markers import PREFIX, end_line

_BEGIN = re.compile(rf"^{re.escape(PREFIX)}begin (\S+) sha=[0-9a-f]+ -->$")


def parts(text: str) -> dict[str, str]:
    """The page's parts by name: "frontmatter", "block:KEY" for each compiler block (its body), and
    "text:N" for the N-th stretch of text outside blocks."""
    out: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    if lines and lines[0] == "---":
        end = next((k for k in range(1, len(lines)) if lines[k] in ("---", "...")), None)
        if end is not None:
            out["frontmatter"] = "\n".join(lines[1:end])
            i = end + 1
    stretch: list[str] = []
    n = 0
    while i < len(lines):
        m = _BEGIN.match(lines[i])
        closing = end_line(m.group(1)) if m else ""
        close_at = next((k for k in range(i + 1, len(lines)) if lines[k] == closing), None) if m else None
        if m is None or close_at is None:
            stretch.append(lines[i])
            i += 1
            continue
        out[f"text:{n}"] = "\n".join(stretch).strip()
        n, stretch = n + 1, []
        out[f"block:{m.group(1)}"] = "\n".join(lines[i + 1 : close_at])
        i = close_at + 1
    out[f"text:{n}"] = "\n".join(stretch).strip()
    return out


def conflicts(before: str | None, after: str | None, now: str | None) -> bool:
    """Whether the proposal's change of a page (`before` -> `after`) meets a change made since (`before` ->
    `now`) in the same part. A page made by the proposal and made since by someone else conflicts unless
    they are the same; one removed since, too."""
    if now in (before, after):
        return False
    if before is None or after is None or now is None:
        return True
    b, a, c = parts(before), parts(after), parts(now)
    for name in set(b) | set(a) | set(c):
        mine, base, theirs = a.get(name), b.get(name), c.get(name)
        if mine != base and theirs != base and mine != theirs:
            return True
    return False
