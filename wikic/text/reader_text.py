"""Markdown as its reader sees it: a link shows its text, an embed of a file (an icon, an image) shows nothing,
emphasis marks are gone; inline code stays code, as written (what a reader saw there is the code itself). A
sentence quoted from a source keeps what its reader read ("With the Backlinks plugin, you can see…"), never
half of its syntax ("With the Backlinks [Core plugins|plugin]…"), even where it was cut inside a link.

Linear in the text: each pattern is a single pass with bounded lookahead inside a line.
"""

from __future__ import annotations

import posixpath
import re

from wikic.text.code_spans import code_spans

# ![[file.svg#icon]], ![[Note]]: what an embed shows is not words of the sentence
_EMBED = re.compile(r"!\[\[[^\[\]\n]*\]\]")
# [[target|label]], [[target#heading]], [[target]]: the label, else the target's name (a heading after " > ")
_WIKILINK = re.compile(r"\[\[([^\[\]|\n]*?)(?:\\?\|([^\[\]\n]*))?\]\]")
_IMAGE = re.compile(r"!\[[^\[\]\n]*\]\([^()\n]*\)")
_MD_LINK = re.compile(r"\[([^\[\]\n]*)\]\([^()\n]*\)")
_AUTOLINK = re.compile(r"<(https?://[^>\s]*)>")
_EMPHASIS = re.compile(r"\*\*|__|~~|==|(?<!\w)[*_](?=\w)|(?<=\w)[*_](?!\w)")
_CALLOUT_MARK = re.compile(r"^(\s*>\s*)\[![^\]\n]*\][-+]?[ \t]*", re.MULTILINE)
# a link the text was cut inside of, at its end: "using [[Internal links|internal", "see [the docs](https://"
_CUT_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]*)\Z")
_CUT_LINK = re.compile(r"(!?)\[([^\[\]\n]*)(?:\]\([^()\s]*)?\Z")
# a link the text begins inside of: "Create your first note|Create a note]] with the name…" (the label, or the
# target's name), and the one bracket a list marker's strip may have left before it
_CUT_START = re.compile(r"\A\[?([^\[\]\n|]*)(?:\\?\|([^\[\]\n]*))?\]\](?!\])")


def _wikilink(match: re.Match[str]) -> str:
    target, label = match.group(1), match.group(2)
    if label:
        return label
    note, _, heading = target.partition("#")
    name = posixpath.basename(note)
    heading = heading.lstrip("^")
    if name and heading:
        return f"{name} > {heading}"
    return name or heading


def reader_text(text: str) -> str:
    """`text` with its Markdown syntax as a reader of the rendered page sees it (line breaks kept); code spans
    are kept whole and untouched."""
    out, last = [], 0
    for start, end in code_spans(text):
        out += [_outside_code(text[last:start], start=last == 0), text[start:end]]
        last = end
    out.append(_outside_code(text[last:], end=True, start=last == 0))
    return "".join(out)


def _cut_link(match: re.Match[str]) -> str:
    if match.group(1):  # an embed shows no words, whole or cut
        return ""
    target, bar, label = match.group(2).partition("|")
    return label if bar else posixpath.basename(target.partition("#")[0]) if match.re is _CUT_WIKILINK else target


def _outside_code(text: str, end: bool = False, start: bool = False) -> str:
    """`text` (no code span in it) as its reader sees it; `end`: it ends the text, which may have been cut
    inside a link (a claim or a quote that stops short of the `]]`), read then as the link would be; `start`:
    it begins the text, which may begin inside one (past its `[[`)."""
    if start and "]]" in text:
        text = _CUT_START.sub(lambda m: m.group(2) or posixpath.basename(m.group(1).partition("#")[0]), text, count=1)
    if end and "[" in text:
        text = _CUT_WIKILINK.sub(_cut_link, text, count=1)
        text = _CUT_LINK.sub(_cut_link, text, count=1)
    text = _EMBED.sub("", text)
    text = _IMAGE.sub("", text)
    text = _WIKILINK.sub(_wikilink, text)
    text = _MD_LINK.sub(lambda m: m.group(1), text)
    text = _AUTOLINK.sub(lambda m: m.group(1), text)
    text = _CALLOUT_MARK.sub(lambda m: m.group(1), text)
    return _EMPHASIS.sub("", text)
