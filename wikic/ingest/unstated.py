"""What a Markdown source holds that states nothing, so no quote is anchored to it: its fenced code blocks
(an example, a command, a program's output: shown, not said), its headings and the title lines of its callouts
(`## Show backlinks`, `> [!warning] Interoperability`: labels over what follows), its comments
(`<!-- ... -->`, `%% ... %%`: hidden from its reader) and the quotes indented under a list's steps (a
tutorial's "Create a note with the following text:", then the text to type: an example, not a statement).

A fence may sit inside a quote or a callout (`> ```md`) or a list item (indented); it ends at its closing
fence (the same character, at least as many, nothing after) or where its quote ends. A fence never closed
is read as text: a source cut short, or a message whose closing fence was lost, would otherwise lose all it
says after it. Comments are looked for outside code, where they are comments, and read as the vault's parser
reads them: closed on their line, or a block opened at the start of a line; an opener closed nowhere, or one
mid-line whose closer is on a later line, is text ("a value with %% in it" hides nothing).
"""

from __future__ import annotations

import re

from wikic.vault.comments import comment_spans

# a line's quote markers (how deep in quotes it is), its indent, and the fence that may open there
_FENCE = re.compile(r"((?:[ \t]*>)*)[ \t]*(`{3,}|~{3,})(.*)")
_QUOTE_MARKERS = re.compile(r"(?:[ \t]*>)*")
_CALLOUT_TITLE = re.compile(r"(?:[ \t]*>)+[ \t]*\[![^\]\n]+\][-+]?")
_BLOCK_COMMENT = re.compile(r" {0,3}(<!--|%%)")
_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\S")
_NESTED_QUOTE = re.compile(r"[ \t]{2,}>")  # a quote indented under a list item: a step's example


def unstated_spans(text: str, start: int = 0) -> list[tuple[int, int]]:
    """The character spans of `text` from `start` on that state nothing (fenced code, headings, callout
    titles, comments, the examples a list's steps quote), in order and apart."""
    code: list[tuple[int, int]] = []
    titles: list[tuple[int, int]] = []
    fence: tuple[int, str, int] | None = None  # (where it opened, its run of ` or ~, how deep in quotes)
    examples: list[tuple[int, int]] = []
    in_item = False  # the lines read last belong to a list item
    quoted: bool | None = None  # the quote indented under it is an example (None: no such quote open)
    at = start
    for line in text[start:].split("\n"):
        end = at + len(line)
        if fence is None:
            in_item, quoted = _step_example(line, in_item, quoted)
            if quoted:
                examples.append((at, end))
        if fence is not None:
            opened, run, depth = fence
            if _depth(line) < depth:
                code.append((opened, at - 1))  # its quote ended, and the fence with it
                fence = None
            else:
                closing = _FENCE.fullmatch(line)
                if closing and _depth(closing.group(1)) == depth and closing.group(2)[0] == run[0] and \
                        len(closing.group(2)) >= len(run) and not closing.group(3).strip():
                    code.append((opened, end))
                    fence = None
                at = end + 1
                continue
        opening = _FENCE.fullmatch(line)
        if opening and not (opening.group(2)[0] == "`" and "`" in opening.group(3)):
            fence = (at, opening.group(2), _depth(opening.group(1)))
        elif (">" in line and _CALLOUT_TITLE.match(line)) or ("#" in line and _HEADING.match(line)):
            titles.append((at, end))
        at = end + 1
    return apart(code + titles + examples + _comments(text, start, code))


def _step_example(line: str, in_item: bool, quoted: bool | None) -> tuple[bool, bool | None]:
    """Whether the text is in a list item after `line`, and whether `line` is in a quote indented under one:
    a tutorial's "Create a note with the following text:" and the text to type, which the source shows and
    does not state. A callout there (`> [!note]`) says something, and is read as text."""
    if not line.strip():
        return in_item, quoted
    if in_item and _NESTED_QUOTE.match(line):
        if quoted is None:
            quoted = not _CALLOUT_TITLE.match(line)
        return True, quoted
    if _LIST_ITEM.match(line):
        return True, None
    return in_item and line[:1] in (" ", "\t"), None


def _depth(line: str) -> int:
    """How deep in quotes `line` is: the quote markers it opens with."""
    return _QUOTE_MARKERS.match(line).group().count(">")  # type: ignore[union-attr]  # matches every line


def _comments(text: str, start: int, code: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The comments of `text` from `start` on, code blanked first (a `%%` in a program is no comment), as the
    vault's parser reads them: one closed on its line, or a block opened at a line's start (`<!--` or `%%`)
    and closed on a later line; an opener closed nowhere, or mid-line with its closer on another line, is text."""
    pieces: list[str] = []
    done = start
    for a, b in code:
        pieces += (text[done:a], " " * (b - a))
        done = b
    plain = "".join(pieces) + text[done:]
    blocks: list[tuple[int, int]] = []
    at = skip = 0
    closed = {"<!--": True, "%%": True}  # False once an opener of a kind found no closer: no later one will
    for line in plain.split("\n"):
        opening = _BLOCK_COMMENT.match(line) if at >= skip else None
        if opening is not None and closed[opening.group(1)]:
            closer = "-->" if opening.group(1) == "<!--" else "%%"
            close = plain.find(closer, at + opening.end())
            closed[opening.group(1)] = close >= 0
            if close > at + len(line):  # closed on a later line: a block (one closed on its line is inline)
                blocks.append((at + opening.start(1), close + len(closer)))
                skip = close + len(closer)
        at += len(line) + 1
    return [(a + start, b + start) for a, b in apart(comment_spans(plain) + blocks)]


def apart(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """`spans` in order, those that overlap or touch made one."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out
