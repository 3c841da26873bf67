"""index.md's text, built here and nowhere else: one section per page type, alphabetical entries
`- [[link]] — summary`. Edits are surgical so text a person added to index.md survives. (The journal,
`journal.py`, is what writes it to disk.)"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wikic.resources import index_skeleton
from wikic.vault.layout import PAGE_FOLDERS

_ENTRY = re.compile(r"^\s*[-*+]\s+!?\[\[([^\]|#]+)")


def section_titles() -> dict[str, str]:
    """Built-in page type -> its index.md heading, from the vault skeleton (templates/vault/index.md)."""
    headings = index_skeleton().headings
    if len(headings) != len(PAGE_FOLDERS):
        raise ValueError(
            f"templates/vault/index.md must have one '## heading' per page type ({', '.join(PAGE_FOLDERS)}), "
            "in that order"
        )
    return dict(zip(PAGE_FOLDERS, headings, strict=True))


def section_title(page_type: str) -> str:
    return section_titles().get(page_type, page_type.capitalize() + "s")


@dataclass(frozen=True)
class Entry:
    page_type: str
    link: str  # link text, e.g. "openai" or "entities/openai"
    summary: str

    def render(self) -> str:
        summary = " ".join(self.summary.split())
        return f"- [[{self.link}]] — {summary}" if summary else f"- [[{self.link}]]"


def listed_links(text: str) -> set[str]:
    """The link texts of an index.md's entries, lower-cased (Obsidian links are case-insensitive)."""
    return {m.group(1).strip().lower() for line in text.split("\n") if (m := _ENTRY.match(line))}


def bare_index() -> str:
    """What index.md starts from when there is none: its title line alone (sections come with entries)."""
    return index_skeleton().title + "\n"


def render_index(entries: list[Entry], types: list[str]) -> str:
    """A whole index.md for a fresh vault or a rebuild."""
    out = [index_skeleton().title, ""]
    for page_type in types:
        out.append(f"## {section_title(page_type)}")
        out.extend(
            e.render() for e in sorted((e for e in entries if e.page_type == page_type), key=lambda e: e.link.lower())
        )
    return "\n".join(out) + "\n"


def add_entries(text: str, entries: list[Entry], types: list[str]) -> str:
    """Insert entries into their sections, keeping each section's list alphabetical. A missing section is
    created where the standard order (`types`) puts it: before the next standard section present, else at
    the end."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    order = list(dict.fromkeys([*types, *sorted({e.page_type for e in entries} - set(types))]))

    def section_start(page_type: str) -> int | None:
        heading = f"## {section_title(page_type)}".lower()
        return next((i for i, line in enumerate(lines) if line.strip().lower() == heading), None)

    for entry in sorted(entries, key=lambda e: (order.index(e.page_type), e.link.lower())):
        start = section_start(entry.page_type)
        if start is None:
            later = [s for t in order[order.index(entry.page_type) + 1 :] if (s := section_start(t)) is not None]
            if later:
                at = min(later)
                lines[at:at] = [f"## {section_title(entry.page_type)}", entry.render()]
                continue
            if lines and lines[-1].strip() and not lines[-1].startswith("#"):
                lines.append("")
            lines.append(f"## {section_title(entry.page_type)}")
            lines.append(entry.render())
            continue
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("#")), len(lines))
        position = start + 1
        for i in range(start + 1, end):
            m = _ENTRY.match(lines[i])
            if m:
                if m.group(1).strip().lower() > entry.link.lower():
                    position = i
                    break
                position = i + 1
        lines.insert(position, entry.render())
    return "\n".join(lines) + "\n"


def remove_lines(text: str, line_numbers: set[int]) -> str:
    """Drop whole entry lines (1-based), keeping everything else as it was."""
    lines = text.split("\n")
    kept = [line for number, line in enumerate(lines, start=1) if number not in line_numbers or not _ENTRY.match(line)]
    return "\n".join(kept)


def with_entries(text: str | None, entries: list[Entry], types: list[str]) -> str:
    """index.md (`text`, None when there is none) with the `entries` it does not list yet added."""
    text = text if text is not None else bare_index()
    listed = listed_links(text)
    missing = [e for e in entries if e.link.lower() not in listed]
    return add_entries(text, missing, types) if missing else text


def upsert_entry(text: str | None, entry: Entry, types: list[str]) -> str:
    """index.md (`text`, None when there is none) with `entry` listed: its old line replaced, or added."""
    text = text if text is not None else bare_index()
    pattern = re.compile(rf"^\s*[-*+]\s+\[\[{re.escape(entry.link)}(?:\|[^\]]*)?\]\].*$", re.MULTILINE | re.IGNORECASE)
    if pattern.search(text):
        return pattern.sub(lambda _: entry.render(), text, count=1)
    return add_entries(text, [entry], types)
