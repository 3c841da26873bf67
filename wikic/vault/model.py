"""Plain values the parser produces: links, headings, block ids, parse problems, notes.

They are tuples (NamedTuple) rather than dataclasses because a 10,000-page vault holds ~100,000 links and
the parse cache round-trips them through JSON; tuples keep that cheap.
"""

from __future__ import annotations

from typing import Any, NamedTuple

# Link kinds: what Obsidian reads as a link (docs/vault-format.md).
WIKILINK = "wikilink"
EMBED = "embed"
MDLINK = "mdlink"
FRONTMATTER = "frontmatter"


class Link(NamedTuple):
    kind: str  # wikilink | embed | mdlink | frontmatter
    target: str  # the path part as written ("" for [[#Heading]]); md links are percent-decoded
    subpath: str  # after the first '#', without it ("" when absent); "^id" for blocks
    alias: str | None
    line: int  # 1-based line in the file on disk
    column: int  # 1-based column of the link's first character
    raw: str  # the link as written


class Heading(NamedTuple):
    text: str
    level: int
    line: int


class Block(NamedTuple):
    id: str
    line: int


class Problem(NamedTuple):
    """Something the parser itself found wrong: becomes a lint finding."""

    rule: str  # lint rule id that reports it
    line: int | None
    message: str
    column: int = 1


class Note(NamedTuple):
    path: str  # vault-relative, '/'-separated, with extension
    frontmatter: dict[str, Any] | None  # None: no frontmatter block (or unusable)
    frontmatter_lines: int  # lines taken by the frontmatter block including both fences (0 if none)
    key_lines: dict[str, int]  # top-level frontmatter key -> 1-based line
    links: list[Link]
    headings: list[Heading]
    blocks: list[Block]
    problems: list[Problem]
    line_count: int
    body_text_start: int  # 1-based line where the body starts


def empty_note(path: str, problems: list[Problem]) -> Note:
    return Note(path, None, 0, {}, [], [], [], problems, 0, 1)
