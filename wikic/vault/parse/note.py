"""Parse one note: frontmatter, links (with exact line and column), headings, block ids, problems.

The body goes to the fast scanner (`fast.py`) when it can take the page, after masking (`mask.py`) when
that makes it able to; every other page goes to markdown-it (`reference.py`).
"""

from __future__ import annotations

import bisect
import re
from itertools import accumulate
from typing import Any

from wikic.vault import frontmatter as fm
from wikic.vault.model import FRONTMATTER, Block, Link, Note, Problem, empty_note
from wikic.vault.parse.fast import WIKI_FIND, fast_eligible, scan_fast, split_target
from wikic.vault.parse.mask import mask_markup
from wikic.vault.parse.reference import scan_full

MAX_PAGE_BYTES = 8 * 1024 * 1024  # markdown-it reads ~0.5 MB/s of ordinary prose: 8 MB is ~20 s, not a hang

BLOCK_ID = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9-]+)[ \t]*$")
FM_WIKI = WIKI_FIND
# What `mask_markup` can blank out: code (fenced, indented, spans), math, escapes, references, HTML and Obsidian
# comments, autolinks. The characters are one search; the rest are looked for as text (an alternation with
# "^" in MULTILINE mode is tried at every character: 3x slower).
_MASKABLE_CHARACTER = re.compile(r"[`\\&<$]")


def _maskable(body: str) -> bool:
    return bool(
        _MASKABLE_CHARACTER.search(body) or "%%" in body or "~~~" in body or "\n    " in body
        or body.startswith("    ")
    )


def _blocks(text: str, skip: set[int] | frozenset[int], first: int, start: int) -> list[Block]:
    """Block ids (`^id` ending a line) from offset `start`, which opens 1-based line `first`; lines in `skip`
    (code, comments) hold none. Only lines holding a "^" are looked at."""
    out = []
    line, at = first - 1, start  # the 0-based line of offset `at`
    pos = text.find("^", start)
    while pos >= 0:
        line += text.count("\n", at, pos)
        at = pos
        end = text.find("\n", pos)
        if end < 0:
            end = len(text)
        if line not in skip:
            m = BLOCK_ID.search(text[text.rfind("\n", 0, pos) + 1 : end])  # a slice: "^" in a pattern only matches at 0
            if m:
                out.append(Block(m.group(1), line + 1))
        pos = text.find("^", end)
    return out


def _frontmatter_links(
    yaml_text: str, data: dict[str, Any], key_lines: dict[str, int], problems: list[Problem]
) -> list[Link]:
    """Quoted wikilinks in property values are links (Obsidian ≥1.4); unquoted ones are YAML lists, not links.
    `key_lines`: each key's file line."""
    links: list[Link] = []
    if "[[" not in yaml_text:
        return links
    # Where each link text stands in the block, in order: the same places a search for the text finds (such
    # a text holds no bracket but its own, so no other match of the pattern overlaps one), looked up rather
    # than searched for from each link on (a thousand links whose escaped text is nowhere in the block read
    # it a thousand times).
    found: dict[str, list[int]] = {}
    for m in FM_WIKI.finditer(yaml_text):
        found.setdefault(m.group(0), []).append(m.start())
    line_starts = [0, *accumulate(len(line) + 1 for line in yaml_text.split("\n"))]
    cursor = 0  # where the search for the next link starts

    def values(v: Any) -> Any:
        if isinstance(v, str):
            yield v
        elif isinstance(v, list):
            for item in v:
                yield from values(item)
        elif isinstance(v, dict):
            for item in v.values():
                yield from values(item)

    for key, value in data.items():
        if isinstance(value, list) and any(isinstance(x, list) for x in value):
            line = key_lines.get(key, 2)
            problems.append(
                Problem(
                    "frontmatter",
                    line,
                    f"'{key}' holds an unquoted wikilink: quote it (\"[[...]]\") or Obsidian ignores it",
                )
            )
        for text in values(value):
            for m in FM_WIKI.finditer(text):
                raw = m.group(0)
                line, col = 2, 1
                places = found.get(raw, [])
                k = bisect.bisect_left(places, cursor)  # the next occurrence after the previous link
                if k < len(places):
                    row = bisect.bisect_right(line_starts, places[k]) - 1
                    line, col = row + 2, places[k] - line_starts[row] + 1
                    cursor = places[k] + len(raw)
                path, sub = split_target(m.group(1))
                links.append(Link(FRONTMATTER, path, sub, m.group(2), line, col, raw))
    return links


def decode(path: str, data: bytes) -> tuple[str | None, list[Problem]]:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None, [Problem("encoding", None, "UTF-16 text: Markdown pages must be UTF-8")]
    if b"\x00" in data[:8192]:
        return None, [Problem("encoding", None, "binary file where a Markdown page is expected")]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, [Problem("encoding", line, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at line {line})")]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:  # past the first 8 KB: markdown-it reads each NUL as U+FFFD, so the lines must too
        text = text.replace("\x00", "\ufffd")
    return text, []


def parse_note(path: str, data: bytes, max_bytes: int = MAX_PAGE_BYTES) -> Note:
    text, problems = decode(path, data)
    if text is None:
        return empty_note(path, problems)
    split = fm.split(text)
    problems.extend(split.problems)
    data_fm: dict[str, Any] | None = None
    key_lines: dict[str, int] = {}
    links: list[Link] = []
    if split.yaml_text is not None and len(split.yaml_text) > fm.MAX_FRONTMATTER_CHARS:
        problems.append(
            Problem(
                "frontmatter",
                1,
                (
                    f"frontmatter is {len(split.yaml_text) // 1024} KB, over the {fm.MAX_FRONTMATTER_CHARS // 1024} "
                    "KB limit: not read"
                ),
            )
        )
    elif split.yaml_text is not None:
        parsed, key_lines = fm.parse_with_lines(split.yaml_text)
        problems.extend(parsed.problems)
        data_fm = parsed.data
        if data_fm:
            links.extend(_frontmatter_links(split.yaml_text, data_fm, key_lines, problems))
    line_count = text.count("\n") + (0 if text.endswith("\n") else 1)
    body_start = split.block_lines + 1
    if len(data) > max_bytes:
        problems.append(
            Problem(
                "page-too-long",
                None,
                (
                    f"page is {len(data) / (1024 * 1024):.1f} MB, over the {max_bytes / (1024 * 1024):g} MB parse "
                    "limit: its links were not read"
                ),
            )
        )
        return Note(path, data_fm, split.block_lines, key_lines, links, [], [], problems, line_count, body_start)
    offset = 0  # where the body starts: past the frontmatter's lines
    for _ in range(split.block_lines):
        offset = text.find("\n", offset) + 1 or len(text)
    body = text[offset:]
    fast = scan_fast(body, body_start) if fast_eligible(body) else None
    hidden: set[int] | frozenset[int] = frozenset()
    if fast is None and _maskable(body):
        marked = mask_markup(body)
        if marked is not None and fast_eligible(marked[0]):
            fast = scan_fast(marked[0], body_start, marked[1])
            if fast is not None:
                hidden = {body_start - 1 + k for k in marked[2]}
    if fast is not None:
        body_links, headings, body_problems = fast
    else:
        blanked = "\n" * split.block_lines + body if split.block_lines else text
        body_links, headings, body_problems, hidden = scan_full(blanked, body_start, text.split("\n"))
    links.extend(body_links)
    problems.extend(body_problems)
    blocks = _blocks(text, hidden, body_start, offset) if "^" in body else []
    return Note(path, data_fm, split.block_lines, key_lines, links, headings, blocks, problems, line_count, body_start)
