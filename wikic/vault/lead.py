"""A page's lead as one line of plain text: what index.md and the overview say a page is.

A compiled page opens with its lead in the `summary` block (a definition the model composed and the code
checked, or the claim that says best what the subject is), anchors and block ids on it. The line shown for
the page elsewhere is that lead without its machinery: no anchors, no claim ids or comments, and no links
(an index entry's links would count as the index listing those pages, and go stale when they are renamed),
only their text, and not the claims a composed lead keeps folded under it. A page with no lead block (a
person's own, or one an earlier version wrote) is shown by its frontmatter `summary`, else its title.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from typing import Any

from wikic.text.code_spans import outside_code
from wikic.vault.comments import replace_comments
from wikic.vault.formats.anchors import strip_anchors
from wikic.vault.formats.markers import block
from wikic.vault.frontmatter import split_page

LEAD_KEY = "summary"  # the block a compiled page's lead sits in (named for what the frontmatter calls it)
MAX_LEAD = 200  # characters of a lead shown on one line
SUMMARY_CHARS = 300  # the frontmatter `summary` of a compiled page: its lead as one line, at most this long

_LEAD_BLOCK = block(LEAD_KEY)
_CLAIM_ID = re.compile(r"\s\^c[0-9a-f]{8}(?=\s|$)")
_BLOCK_ID = re.compile(r"\s\^[A-Za-z0-9-]+\s*$")
_WIKILINK = re.compile(r"!?\[\[([^\[\]|\n]*?)(?:\\?\|([^\[\]\n]*))?\]\]")
_MD_LINK = re.compile(r"!?\[([^\[\]\n]*)\]\([^()\n]*\)")
_CALLOUT = re.compile(r"^>\s*\[![^\]]*\][-+]?.*$", re.MULTILINE)
_CALLOUT_START = re.compile(r"^>\s*\[!", re.MULTILINE)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s")


def _callouts(text: str) -> Iterator[re.Match[str]]:
    """The callout titles of `text` (`_CALLOUT`'s matches, in order). A title whose match fails has no "]"
    after it, so no later one has either: the pattern alone tries each again to the text's end, quadratic time
    on a lead of callout titles left open."""
    pos = 0
    while (start := _CALLOUT_START.search(text, pos)) is not None:
        found = _CALLOUT.match(text, start.start())
        if found is None:
            return
        yield found
        pos = found.end()


def _without_callouts(text: str) -> str:
    pieces: list[str] = []
    done = 0
    for found in _callouts(text):
        pieces += (text[done : found.start()], " ")
        done = found.end()
    return "".join(pieces) + text[done:] if pieces else text


def plain_line(text: str) -> str:
    """Markdown as one line of plain text: anchors, claim ids, comments and link syntax taken off (a link
    reads as its label, or its target's name)."""
    text = replace_comments(text, lambda width: " ", across_lines=True)
    text = _without_callouts(text)
    text = strip_anchors(text)
    text = _CLAIM_ID.sub(" ", text)
    text = outside_code(text, _links_read)
    text = " ".join(line.lstrip("> ").removeprefix("- ") for line in text.split("\n"))
    return " ".join(_BLOCK_ID.sub("", text).split())


def _links_read(text: str) -> str:
    """Link syntax taken off `text`: a link reads as its label, or its target's name."""
    text = _WIKILINK.sub(lambda m: m.group(2) if m.group(2) else posixpath.basename(m.group(1).split("#")[0]), text)
    return _MD_LINK.sub(lambda m: m.group(1), text)


def safe_line(text: str) -> str:
    """One line of plain text that opens nothing in the Markdown it is put into: no link, comment, HTML tag
    or `%%` a person left unclosed on a page can reach the line's neighbours (the index, the overview)."""
    text = re.sub(r"\[{2,}|\]{2,}", lambda m: m.group(0)[0], text)
    return text.replace("<", "&lt;").replace("%%", "%")


def shorten(text: str, limit: int = MAX_LEAD) -> str:
    """`text` within `limit` characters: whole sentences when the first one fits, else cut at a word."""
    if len(text) <= limit:
        return text
    kept = ""
    for sentence in _SENTENCE_END.split(text):
        if len(kept) + len(sentence) + 1 > limit:
            break
        kept = f"{kept} {sentence}".strip()
    if kept:
        return kept
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:")
    return (cut or text[: limit - 1]) + "…"


def lead_of(data: dict[str, Any] | None, body: str, *, limit: int = MAX_LEAD) -> str:
    """The lead of a page whose frontmatter is `data` and body `body`, as one line of plain text."""
    found = _LEAD_BLOCK.search(body)
    if found is not None:
        inner = found.group(0).split("\n", 1)[1].rsplit("\n", 1)[0]
        callout = next(_callouts(inner), None)  # a composed lead keeps the claims it says folded under it
        text = safe_line(plain_line(inner[: callout.start()] if callout else inner))
        if text:
            return shorten(text, limit)
    data = data or {}
    summary = data.get("summary")
    if isinstance(summary, str) and summary.strip():
        return shorten(safe_line(plain_line(summary)), limit)
    title = data.get("title")
    return shorten(safe_line(" ".join(title.split())), limit) if isinstance(title, str) else ""


def page_lead(text: str, *, limit: int = MAX_LEAD) -> str:
    """The lead of the page `text` (frontmatter and body), as one line of plain text."""
    data, body = split_page(text)
    return lead_of(data, body, limit=limit)


def drifted_summary(data: dict[str, Any] | None, body: str) -> str | None:
    """The frontmatter `summary` the page's lead gives it, when its frontmatter says otherwise (a person
    edited the lead, and nothing rewrote the page since); None when they agree, or the page has no lead block
    (then its summary is what it is shown by)."""
    lead = lead_of(None, body, limit=SUMMARY_CHARS)  # '' with no lead block: nothing to go by
    if not lead:
        return None
    said = (data or {}).get("summary")
    return None if isinstance(said, str) and " ".join(said.split()) == lead else lead
