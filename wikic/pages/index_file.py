"""index.md's text, built here and nowhere else: a line leading to the overview under the title, then one
section per page type (Entities, Concepts, Comparisons, Queries, Sources), each opening with how many pages
it lists, its entries alphabetical, `- [[link]] — lead`. Edits are surgical so text a person added to
index.md survives, and so does an entry line a person rewrote. (The journal, `journal.py`, is what writes
it to disk.)"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from wikic.resources import index_skeleton
from wikic.vault.layout import OVERVIEW_FILE, PAGE_FOLDERS

_ENTRY = re.compile(r"^\s*[-*+]\s+!?\[\[([^\]|#]+)")
_COUNT = re.compile(r"^\*[\d,]+ pages?\*$")
_OVERVIEW_LINK = re.compile(rf"\[\[{re.escape(OVERVIEW_FILE[:-3])}(?:\.md)?(?:[|#][^\]]*)?\]\]", re.IGNORECASE)
OVERVIEW_LINE = (f"Start with the [[{OVERVIEW_FILE[:-3]}]]: what this wiki covers, its main subjects and what "
                 "changed lately.")


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


def count_line(n: int) -> str:
    return f"*{n:,} page{'' if n == 1 else 's'}*"


def bare_index() -> str:
    """What index.md starts from when there is none: its title line alone (sections come with entries)."""
    return index_skeleton().title + "\n"


def render_index(entries: list[Entry], types: list[str], *, overview: bool = False) -> str:
    """A whole index.md for a fresh vault or a rebuild (with no entry, the skeleton itself)."""
    out = [index_skeleton().title, ""]
    if overview:
        out += [OVERVIEW_LINE, ""]
    for page_type in types:
        mine = sorted((e for e in entries if e.page_type == page_type), key=lambda e: e.link.lower())
        out.append(f"## {section_title(page_type)}")
        if mine:
            out.append(count_line(len(mine)))
        out.extend(e.render() for e in mine)
    return "\n".join(out) + "\n"


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def add_entries(text: str, entries: list[Entry], types: list[str]) -> str:
    """Insert entries into their sections, keeping each section's list alphabetical. A missing section is
    created where the standard order (`types`) puts it: before the next standard section present, else at
    the end."""
    lines = _lines(text)
    order = list(dict.fromkeys([*types, *sorted({e.page_type for e in entries} - set(types))]))
    headings = {t: f"## {section_title(t)}".lower() for t in order}

    def section_starts() -> dict[str, int | None]:
        """Each page type's heading line (the first, when index.md has several)."""
        first: dict[str, int] = {}
        for i, line in enumerate(lines):
            if (stripped := line.strip()).startswith("#"):
                first.setdefault(stripped.lower(), i)
        return {t: first.get(heading) for t, heading in headings.items()}

    # found once, then moved down as lines are inserted above them: a run adds hundreds of entries to an
    # index of thousands of lines
    starts = section_starts()
    after: tuple[str, int] | None = None  # (page type, line) of the entry inserted last by the scan below
    for entry in sorted(entries, key=lambda e: (order.index(e.page_type), e.link.lower())):
        start = starts[entry.page_type]
        if start is None:
            after = None
            later = [s for t in order[order.index(entry.page_type) + 1 :] if (s := starts[t]) is not None]
            if later:
                at = min(later)
                lines[at:at] = [f"## {section_title(entry.page_type)}", entry.render()]
            else:
                if lines and lines[-1].strip() and not lines[-1].startswith("#"):
                    lines.append("")
                lines.append(f"## {section_title(entry.page_type)}")
                lines.append(entry.render())
            starts = section_starts()  # a new heading: found again, whatever other type it may also name
            continue
        first = start + 1
        if first < len(lines) and _COUNT.match(lines[first].strip()):
            first += 1  # the section's count stays right under its heading
        if after is not None and after[0] == entry.page_type:
            # entries come in order: no entry above the one inserted last sorts after this one
            first = after[1] + 1
        end = next((i for i in range(first, len(lines)) if lines[i].startswith("#")), len(lines))
        position = first
        for i in range(first, end):
            m = _ENTRY.match(lines[i])
            if m:
                if m.group(1).strip().lower() > entry.link.lower():
                    position = i
                    break
                position = i + 1
        lines.insert(position, entry.render())
        after = (entry.page_type, position)
        starts = {t: s + 1 if s is not None and s >= position else s for t, s in starts.items()}
    return "\n".join(lines) + "\n"


def recounted(text: str, types: list[str]) -> str:
    """`text` with each page type's section opening with the number of entries it lists, when it lists any
    (a person's own sections are left as they are)."""
    headings = {f"## {section_title(t)}".lower() for t in types}
    lines = _lines(text)
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if line.strip().lower() not in headings:
            continue
        if i < len(lines) and _COUNT.match(lines[i].strip()):
            i += 1  # the old count: replaced below
        end = next((j for j in range(i, len(lines)) if lines[j].startswith("#")), len(lines))
        listed = sum(1 for j in range(i, end) if _ENTRY.match(lines[j]))
        if listed:  # an empty section says so by having no entry
            out.append(count_line(listed))
    return "\n".join(out) + "\n"


def with_overview(text: str) -> str:
    """`text` with the line leading to the overview under its title, unless it links the overview already."""
    if _OVERVIEW_LINK.search(text):
        return text
    lines = _lines(text)
    title = next((i for i, line in enumerate(lines) if line.startswith("# ")), None)
    if title is None:
        return "\n".join([OVERVIEW_LINE, "", *lines]) + "\n"
    rest = lines[title + 1 :]
    while rest and not rest[0].strip():
        rest.pop(0)
    return "\n".join([*lines[: title + 1], "", OVERVIEW_LINE, "", *rest]) + "\n"


def without_entries(text: str, links: Collection[str], types: Collection[str] = ()) -> str:
    """`text` without the entries linking `links` (link texts, case aside): the pages a run removed."""
    wanted = {link.lower() for link in links}
    numbers = {n for n, line in enumerate(text.split("\n"), start=1)
               if (m := _ENTRY.match(line)) and m.group(1).strip().lower() in wanted}
    return remove_lines(text, numbers, types) if numbers else text


def remove_lines(text: str, line_numbers: set[int], types: Collection[str] = ()) -> str:
    """Drop whole entry lines (1-based), keeping everything else as it was (and the counts true)."""
    lines = text.split("\n")
    kept = [line for number, line in enumerate(lines, start=1) if number not in line_numbers or not _ENTRY.match(line)]
    out = "\n".join(kept)
    return recounted(out, list(types)) if types else out


def _replaced(text: str, entry: Entry, was: Collection[str] | None) -> str:
    """`text` with `entry`'s line rewritten, when the line there is one code wrote: its summary is one of
    `was` (what the entry said before the page changed), or `was` is None (always)."""
    pattern = re.compile(rf"^\s*[-*+]\s+\[\[{re.escape(entry.link)}(?:\|[^\]]*)?\]\](.*)$",
                         re.MULTILINE | re.IGNORECASE)
    found = pattern.search(text)
    if found is None:
        return text
    if was is not None:
        said = " ".join(found.group(1).strip().removeprefix("—").split())
        if said and said not in {" ".join(w.split()) for w in was}:
            return text  # a person's own words for the page
    return text[: found.start()] + entry.render() + text[found.end() :]


def with_entries(
    text: str | None,
    entries: list[Entry],
    types: list[str],
    *,
    was: Mapping[str, Collection[str]] | None = None,
    overview: bool = False,
) -> str:
    """index.md (`text`, None when there is none) with the `entries` it does not list yet added; an entry
    listed already is rewritten when `was` names it (link -> the summaries code gave it before) and its
    line still says one of them. `overview`: the vault has an overview, which the index leads to."""
    text = text if text is not None else bare_index()
    listed = listed_links(text)
    # one entry per page: the last one given for it (a run may plan a page's entry twice)
    entries = list({e.link.lower(): e for e in entries}.values())
    missing = [e for e in entries if e.link.lower() not in listed]
    new = add_entries(text, missing, types) if missing else text
    for entry in entries:
        if was is not None and entry.link in was and entry.link.lower() in listed:
            new = _replaced(new, entry, was[entry.link])
    if overview:
        new = with_overview(new)
    return recounted(new, types)


def upsert_entry(text: str | None, entry: Entry, types: list[str], *, overview: bool = False) -> str:
    """index.md (`text`, None when there is none) with `entry` listed: its old line replaced, or added."""
    text = text if text is not None else bare_index()
    new = _replaced(text, entry, None)
    if new == text and entry.link.lower() not in listed_links(text):
        new = add_entries(text, [entry], types)
    if overview:
        new = with_overview(new)
    return recounted(new, types)
