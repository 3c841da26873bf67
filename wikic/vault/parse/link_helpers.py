"""markdown-it's link helpers, giving the same results in a fraction of the time on text full of brackets.

markdown-it reads a link's label by skipping one inline token at a time, each skip a method call even when its
end is cached: on a page of 100,000 `[` that is millions of calls, seconds of a lint. Its destination reader
looks at one character at a time, up to 32 nested `(` from every `[a](`. These two do what markdown-it's do,
step for step (the property tests in tests/vault/test_link_helpers.py hold them to it), reading the cache
directly and jumping over plain characters with a regular expression. `reference.py` gives them to its
parsers; this module imports markdown-it, so only a page that needs it loads it.
"""

from __future__ import annotations

import re
import types
from typing import TYPE_CHECKING

from markdown_it.common.utils import unescapeAll
from markdown_it.helpers import parseLinkTitle

if TYPE_CHECKING:
    from markdown_it.rules_inline import StateInline


def parse_link_label(state: StateInline, start: int, disable_nested: bool = False) -> int:
    """markdown-it's `parseLinkLabel`: where the label opened by the `[` at `start` ends, or -1."""
    old = state.pos
    src, end, cache, skip = state.src, state.posMax, state.cache, state.md.inline.skipToken
    pos = start + 1
    level = 1
    found = False
    while pos < end:
        marker = src[pos]
        if marker == "]":
            level -= 1
            if level == 0:
                found = True
                break
        before = pos
        after = cache.get(pos)  # what skipToken does first, without calling it
        if after is None:
            state.pos = pos
            skip(state)
            after = state.pos
        pos = after
        if marker == "[":
            if before == pos - 1:
                level += 1  # a "[" that is text, not the start of a token
            elif disable_nested:
                state.pos = old
                return -1
    state.pos = old
    return pos if found else -1


class Destination:
    """What `parse_link_destination` found: markdown-it's result, the same three fields."""

    __slots__ = ("ok", "pos", "str")

    def __init__(self, ok: bool = False, pos: int = 0, text: str = "") -> None:
        self.ok, self.pos, self.str = ok, pos, text


# An angle-bracket destination's text: anything but a line break or an angle bracket, or an escape pair.
_ANGLED = re.compile(r"(?:[^\n<>\\]|\\[\s\S])*")
# A plain destination's ordinary characters: no space, control character, parenthesis or backslash.
_PLAIN = re.compile(r"[^\x00-\x20\x7f()\\]*")
_MAX_LEVEL = 32  # markdown-it's bound on unclosed "(" in a destination
# Ordinary characters, each run ending in a "(": up to k + 1 of them (_OPENINGS[k]), so a destination reaching past
# the bound is given up in one search, not one step a parenthesis.
_OPENINGS = [re.compile(rf"(?:[^\x00-\x20\x7f()\\]*+\(){{1,{k}}}") for k in range(1, _MAX_LEVEL + 2)]


def parse_link_destination(string: str, pos: int, maximum: int) -> Destination:
    """markdown-it's `parseLinkDestination` of `string[pos:maximum]`."""
    start = pos
    if string.startswith("<", pos):
        end = _ANGLED.match(string, pos + 1, maximum).end()  # type: ignore[union-attr]  # "*" always matches
        if end < maximum and string[end] == ">":
            return Destination(True, end + 1, unescapeAll(string[start + 1 : end]))
        return Destination()
    level = 0
    while pos < maximum:
        opened = _OPENINGS[_MAX_LEVEL - level].match(string, pos, maximum)
        if opened is not None:
            level += string.count("(", pos, opened.end())
            if level > _MAX_LEVEL:
                return Destination()
            pos = opened.end()
        pos = _PLAIN.match(string, pos, maximum).end()  # type: ignore[union-attr]
        if pos >= maximum:
            break
        char = string[pos]
        if char == "\\":
            if pos + 1 < maximum:
                if string[pos + 1] == " ":
                    break
                pos += 2
            else:
                pos += 1
        elif char == "(":
            continue  # the openings found next
        elif char == ")":
            if level == 0:
                break
            level -= 1
            pos += 1
        else:
            break  # a space or a control character
    if start == pos or level != 0:
        return Destination()
    return Destination(True, pos, unescapeAll(string[start:pos]))


def helpers() -> types.ModuleType:
    """A stand-in for `markdown_it.helpers` holding these two and markdown-it's own title reader."""
    module = types.ModuleType("wikic_link_helpers")
    module.parseLinkLabel = parse_link_label  # type: ignore[attr-defined]
    module.parseLinkDestination = parse_link_destination  # type: ignore[attr-defined]
    module.parseLinkTitle = parseLinkTitle  # type: ignore[attr-defined]
    return module
