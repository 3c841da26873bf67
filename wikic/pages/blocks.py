"""Compiler-owned blocks inside pages, so text a person wrote or edited is never overwritten.

Everything the compiler writes into a page body sits between a begin and an end marker comment (their
format is `wikic/vault/formats/markers.py`'s). The begin marker's `sha` is the hash of the block body as the
compiler wrote it. On the next compile a block is replaced only if its body still hashes to `sha`; a block
a person changed is left exactly as it is. Text outside the markers is never touched.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from wikic.vault.formats.markers import BEGIN, PREFIX, begin_line, begin_prefix, end_line


def digest(body: str) -> str:
    return hashlib.sha256(body.strip("\n").encode("utf-8")).hexdigest()[:12]


def render_block(key: str, body: str) -> str:
    body = body.strip("\n")
    return f"{begin_line(key, digest(body))}\n{body}\n{end_line(key)}"


@dataclass
class Merge:
    text: str
    kept: list[str]  # keys of blocks left alone because a person edited them
    replaced: list[str]
    added: list[str]


def find_block(text: str, key: str) -> tuple[int, int, str, str] | None:
    """(start, end, recorded sha, body) of the block `key` in `text`, or None."""
    # Only lines that start with this key's own begin marker can be it: looking for that text is far
    # cheaper than matching every marker of the page (a compile looks up thousands of blocks).
    prefix = begin_prefix(key)
    at = text.find(prefix)
    while at >= 0:
        m = BEGIN.match(text, at) if at == 0 or text[at - 1] == "\n" else None
        at = text.find(prefix, at + 1)
        if m is None or m.group(1) != key:
            continue
        end_marker = end_line(key)
        close = text.find(end_marker, m.end())
        if close < 0:
            return None  # a broken block is treated as human text
        body = text[m.end() + 1 : close].rstrip("\n") if m.end() < len(text) else ""
        return m.start(), close + len(end_marker), m.group(2), body
    return None


def block_keys(text: str) -> list[str]:
    return [m.group(1) for m in BEGIN.finditer(text)]


def merge_blocks(
    text: str, blocks: list[tuple[str, str, str | None]], *, order: Sequence[str] = ()
) -> Merge:
    """Put each (key, body, section heading) block into `text`.

    An existing block is replaced if untouched by a person, kept otherwise. A new block goes at the end of
    its `## section` (created if missing: before the first section that `order`, the page's layout, puts
    after it) or, with no section, right after the page's `# Title` line; section "" is the end of the page.
    """
    kept: list[str] = []
    replaced: list[str] = []
    added: list[str] = []
    for key, body, section in blocks:
        found = find_block(text, key)
        rendered = render_block(key, body)
        if found is not None:
            start, end, sha, current = found
            if digest(current) != sha:
                kept.append(key)
                continue
            if text[start:end] != rendered:
                text = text[:start] + rendered + text[end:]
                replaced.append(key)
            continue
        text = _insert(text, rendered, section, order)
        added.append(key)
    return Merge(text, kept, replaced, added)


def remove_block(text: str, key: str) -> tuple[str, bool]:
    """`text` without the block `key`, and without its `## section` heading if nothing else is left under
    it. Returns (the text, whether the block was kept because a person edited it)."""
    found = find_block(text, key)
    if found is None:
        return text, False
    start, end, sha, body = found
    if digest(body) != sha:
        return text, True
    before, after = text[:start].rstrip("\n"), text[end:].lstrip("\n")
    heading = before.rsplit("\n", 1)[-1]
    closing = tuple(begin_prefix(key) for key in _CLOSING_BLOCKS)  # the page's machinery: no section's text
    if heading.startswith("## ") and (not after.strip() or after.startswith(("## ", "# ", *closing))):
        before = before[: len(before) - len(heading)].rstrip("\n")  # the section held only this block
    text = before + ("\n\n" + after if after.strip() else "")
    return _tidy(text), False


def _insert(text: str, rendered: str, section: str | None, order: Sequence[str] = ()) -> str:
    lines = text.split("\n")
    if section == "":
        return _tidy(text.rstrip("\n") + "\n\n" + rendered)
    if section is None:
        title = next((i for i, line in enumerate(lines) if line.startswith("# ")), None)
        at = (title + 1) if title is not None else len(lines)
        # after the title and any blocks already there
        while at < len(lines) and (lines[at].strip() == "" or lines[at].startswith(PREFIX)):
            if lines[at].startswith(PREFIX + "begin"):
                key = lines[at].split()[2]
                close = next((j for j in range(at, len(lines)) if lines[j] == end_line(key)), at)
                at = close + 1
            else:
                at += 1
        new = [rendered, ""] if at > 0 and lines[at - 1].strip() == "" else ["", rendered, ""]
        lines[at:at] = new
        return _tidy("\n".join(lines))
    head = f"## {section}"
    start = next((i for i, line in enumerate(lines) if line.strip() == head), None)
    if start is None:
        later = set(order[order.index(section) + 1 :]) if section in order else set()
        before = next((i for i, line in enumerate(lines) if line.startswith("## ") and line[3:].strip() in later),
                      None)
        if before is None:
            before = _trailing_machinery(lines)
        if before is not None:
            lines[before:before] = [head, "", rendered, ""]
            return _tidy("\n".join(lines))
        while lines and lines[-1].strip() == "":
            lines.pop()
        lines.extend(["", head, "", rendered, ""])
        return _tidy("\n".join(lines))
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].startswith("## ") or lines[i].startswith("# ")), len(lines)
    )
    while end > start + 1 and lines[end - 1].strip() == "":
        end -= 1
    lines[end:end] = ["", rendered]
    return _tidy("\n".join(lines))


def _trailing_machinery(lines: list[str]) -> int | None:
    """Where the page's closing machine block starts (the block no reader sees, last on a page), if it has
    one: a new section goes before it."""
    last = len(lines) - 1
    while last >= 0 and not lines[last].strip():
        last -= 1
    if last < 0 or not lines[last].startswith(PREFIX + "end "):
        return None
    key = lines[last][len(PREFIX + "end ") :].split()[0]
    if key not in _CLOSING_BLOCKS:
        return None
    start = next((i for i in range(last, -1, -1) if lines[i].startswith(begin_prefix(key))), None)
    return start


_CLOSING_BLOCKS = ("claims",)


def _tidy(text: str) -> str:
    # only the end of the file is normalised: blank lines a person put elsewhere stay as they are
    return text.rstrip("\n") + "\n"
