"""overview.md: what the wiki covers, its main subjects grouped, its latest changes, its open questions and
its counts, written by code from the vault (no model call) on every ingest.

It stays the same size whatever the wiki's: a few groups, a few pages in each (the best-linked, each with
its lead), the last few changes, the first few questions; the rest is counted and left to index.md. Each
part is a compiler block (`wikic/pages/blocks.py`): a part a person edited is kept as they left it, and
text they wrote around the blocks is never touched.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from wikic.hubs.blocks import place
from wikic.hubs.groups import Group, group_pages
from wikic.hubs.source_page import waiting_for
from wikic.hubs.view import SOURCE_TYPE, HubView
from wikic.pages.index_file import section_title
from wikic.pages.log_file import LogRow
from wikic.pages.render import clean_text
from wikic.vault.formats.markers import MARKER_LINE
from wikic.vault.layout import INDEX_FILE, LOG_FILE, OVERVIEW_FILE
from wikic.vault.lead import plain_line, shorten
from wikic.vault.page_layout import QUESTIONS, role_of
from wikic.vault.schema_md import Schema
from wikic.vault.state import open_proposals

TITLE = "# Overview"
MAX_CHARS = 40_000  # the overview's blocks together never exceed this, whatever the wiki's size
QUESTIONS_PER_PAGE = 2
LEAD = 160  # characters of a page's lead shown beside it


class Limits(NamedTuple):
    """How much of the wiki the overview shows; the rest is counted, and left to index.md and log.md."""

    groups: int = 8
    per_group: int = 6
    changes: int = 10
    links_per_change: int = 6
    questions: int = 10
    waiting: int = 8


# Tried in turn until the blocks fit MAX_CHARS (long titles, long paths: the last one always does).
LIMITS = (Limits(), Limits(8, 3, 5, 3, 5, 4), Limits(5, 1, 3, 1, 3, 2))

SECTIONS = ("Main subjects", "Latest changes", "Open questions", "Counts")
_KEYS = {"about": None, "subjects": "Main subjects", "changes": "Latest changes", "questions": "Open questions",
         "counts": "Counts"}
_LINK = re.compile(r"\[\[([^\[\]|\n]+?)(?:\|([^\[\]\n]*))?\]\]")
_KEPT_NOTES = ("created ", "updated ", "composed ", "cited ")
_OLD_COUNTS = re.compile(r"^\d[\d,]* (?:created|updated|cited)$")
_PENDING = re.compile(r"^\d[\d,]* pending$")


def block_key(part: str) -> str:
    return f"overview:{part}"


def overview_parts(view: HubView) -> dict[str, str]:
    """Each block of the overview (about, subjects, changes, questions, counts), within MAX_CHARS."""
    groups = _groups(view)
    fixed = {"about": _about(view), "counts": _counts(view)}
    parts: dict[str, str] = {}
    for limits in LIMITS:
        parts = {
            "about": fixed["about"],
            "subjects": _subjects(view, groups, limits),
            "changes": _changes(view, limits),
            "questions": _questions(view, limits),
            "counts": fixed["counts"],
        }
        if sum(len(text) for text in parts.values()) <= MAX_CHARS:
            break
    return parts


def render_overview(view: HubView, current: str | None) -> str:
    """overview.md's new text: `current` (None: there is none) with every block brought up to date."""
    body = current if current is not None and current.strip() else TITLE + "\n"
    blocks = [(block_key(part), text, _KEYS[part]) for part, text in overview_parts(view).items()]
    return place(body, blocks, order=SECTIONS)


# -- the parts ------------------------------------------------------------------------------------------------


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _topics(view: HubView) -> list[str]:
    """The pages the main subjects are drawn from: subject pages, filed answers aside."""
    return [p for p in view.subjects if view.kind(p) != "query"]


def domain(schema: Schema) -> str:
    """SCHEMA.md's Domain: its first paragraph (what follows is guidance for the model)."""
    body = next((text for heading, text in schema.sections.items() if heading.strip().casefold() == "domain"), "")
    first = body.strip().split("\n\n", 1)[0] if body.strip() else schema.domain
    return shorten(" ".join(first.split()), 300).rstrip(".")


def _about(view: HubView) -> str:
    covers = domain(view.schema)
    said = (f"This wiki covers {covers}." if covers
            else "This wiki has no domain yet (say it under `## Domain` in SCHEMA.md).")
    topics = len(_topics(view))
    answers = sum(1 for p in view.subjects if view.kind(p) == "query")
    sources = sum(1 for p in view.vault.pages if view.kind(p) == SOURCE_TYPE)
    if not topics and not answers:
        return f"{said} Nothing is compiled yet: drop sources into `raw/` and run `wikic ingest`."
    holds = f"It holds {_plural(topics, 'page')} on its subjects"
    holds += f", built from {_plural(sources, 'source')}" if sources else ""
    holds += f", and {_plural(answers, 'filed answer')}" if answers else ""
    latest = view.rows[-1].date if view.rows else None
    when = f"; the latest change was on {latest}" if latest else ""
    return (f"{said} {holds}{when}. Every page is listed in the [[{INDEX_FILE[:-3]}]], and what each run did "
            f"in the [[{LOG_FILE[:-3]}]].")


def _groups(view: HubView) -> list[Group]:
    topics = _topics(view)
    if not topics:
        return []
    return group_pages(topics, view.outbound, view.inbound, view.tags, lambda p: section_title(view.kind(p)),
                       view.title)


def _subjects(view: HubView, groups: list[Group], limits: Limits) -> str:
    if not groups:
        return "No subject has a page yet."
    out: list[str] = []
    for group in groups[: limits.groups]:
        if out:
            out.append("")
        out.append(f"### {clean_text(group.label, 120)} ({_plural(len(group.pages), 'page')})")
        for page in group.pages[: limits.per_group]:
            lead = shorten(view.lead(page), LEAD)
            out.append(f"- {view.link(page)}" + (f" — {lead}" if lead else ""))
        more = len(group.pages) - limits.per_group
        if more > 0:
            out.append(f"- and {more:,} more in the [[{INDEX_FILE[:-3]}]]")
    rest = groups[limits.groups :]
    if rest:
        pages = sum(len(g.pages) for g in rest)
        out += ["", f"{_plural(len(rest), 'smaller group')} ({_plural(pages, 'page')}): "
                    + ", ".join(clean_text(g.label, 120) for g in rest[:12]) + (", …" if len(rest) > 12 else "")
                    + "."]
    return "\n".join(out)


def _alive(view: HubView) -> Callable[[str], bool]:
    resolver = view.resolver

    def alive(target: str) -> bool:
        return resolver.resolve(OVERVIEW_FILE, target.split("#", 1)[0]).path is not None

    return alive


def _relinked(text: str, alive: Callable[[str], bool], limit: int | None = None) -> str:
    """`text` with its links to files that are gone written as their labels, and its links after the
    first `limit` counted instead ("and 3 more")."""
    seen = 0

    def one(m: re.Match[str]) -> str:
        nonlocal seen
        target, label = m.group(1).strip(), m.group(2)
        if not alive(target):
            return label or target.rsplit("/", 1)[-1]
        seen += 1
        return m.group(0)

    out = _LINK.sub(one, text)
    if limit is not None and seen > limit:
        links = list(_LINK.finditer(out))
        cut = links[limit - 1].end()
        out = out[:cut] + f" and {seen - limit} more"
    return out


def _change(view: HubView, row: LogRow, alive: Callable[[str], bool], limits: Limits) -> str:
    target = row.target
    link = row.target_link
    if link is None and target in view.source_pages:  # a row of an earlier version names the raw file
        target = view.link(view.source_pages[target])
    elif link is None and target.endswith(".md") and view.exists(target):
        target = view.link(target)
    target = _relinked(target, alive)
    verbs = {"ingest": "ingested", "query": "answered", "invalidate": "ended a claim on",
             "confirm": "confirmed a lesson on"}
    said = f"{verbs.get(row.action, row.action)} {target}"
    parts = [p.strip() for p in re.split(r";\s|,\s(?=\d)", row.notes)]
    kept = [p for p in parts if p.startswith(_KEPT_NOTES)]
    kept += [f"{p.split()[0]} name{'' if p.split()[0] == '1' else 's'} waiting for another source"
             for p in parts if _PENDING.match(p)]
    old = [p for p in parts if _OLD_COUNTS.match(p)]  # a row of an earlier version: counts, no names
    if row.action == "compose":
        said = "wrote as prose"
        kept = [p.removeprefix("composed ") for p in kept]
    if kept:
        said += ": " + "; ".join(_relinked(p, alive, limits.links_per_change) for p in kept)
    elif old:
        said += ": " + ", ".join(old)
    return f"- {row.date} · {said}"


def _changes(view: HubView, limits: Limits) -> str:
    if not view.rows:
        return "No change yet."
    alive = _alive(view)
    return "\n".join(_change(view, row, alive, limits) for row in reversed(view.rows[-limits.changes :]))


def _question_lines(text: str) -> list[str]:
    """The items under a page's Open questions heading, as plain text."""
    lines = text.split("\n")
    out: list[str] = []
    inside = False
    for line in lines:
        if line.startswith("## "):
            inside = role_of(line[3:].strip()) == QUESTIONS
            continue
        if line.startswith("# "):
            inside = False
            continue
        if inside and line.lstrip().startswith(("- ", "* ", "+ ")):
            said = clean_text(plain_line(line.lstrip()[2:]), LEAD)  # a person's words, made plain for the overview
            if said:
                out.append(said)
    return out


def _questions(view: HubView, limits: Limits) -> str:
    out: list[str] = []
    candidates = [
        p for p in view.subjects
        if any(h.level == 2 and role_of(h.text) == QUESTIONS for h in view.vault.notes[p].headings)
    ]
    candidates.sort(key=lambda p: (str(view.frontmatter(p).get("updated") or ""), p), reverse=True)
    for page in candidates:
        if len(out) >= limits.questions:
            break
        text = view.text(page) or ""
        for question in _question_lines(text)[:QUESTIONS_PER_PAGE]:
            out.append(f"- {view.link(page)}: {question}")
    waiting = _waiting(view, limits)
    if waiting:
        out.extend(waiting)
    return "\n".join(out) if out else "None recorded yet."


def _waiting(view: HubView, limits: Limits) -> list[str]:
    """Names the sources mention and no page explains yet (the mentions ledger), most mentioned first."""
    items = list(view.mentions.values())
    if not items:
        return []
    needed = view.schema.thresholds.get("entity_min_references", 2)
    items.sort(key=lambda i: (-len(i.sources), i.name.casefold()))
    out = []
    for item in items[: limits.waiting]:
        name = clean_text(plain_line(item.name), 120)
        by = [view.link(view.source_pages[s]) for s in sorted(item.sources) if s in view.source_pages]
        said = f"named by {', '.join(by[:3])}" if by else f"named by {_plural(len(item.sources), 'source')}"
        wait = waiting_for(item, needed)
        out.append(f"- Not explained yet: **{name}**, {said}; {wait}")
    more = len(items) - limits.waiting
    if more > 0:
        out.append(f"- and {_plural(more, 'more name')} waiting for another source")
    return out


def _counts(view: HubView) -> str:
    rows = ["| What | How many |", "|---|--:|"]
    kinds: dict[str, int] = {}
    for page in view.vault.pages:
        kinds[view.kind(page)] = kinds.get(view.kind(page), 0) + 1
    for kind in view.schema.page_folders:
        rows.append(f"| {section_title(kind)} | {kinds.get(kind, 0):,} |")
    contested = sum(1 for p in view.subjects if view.frontmatter(p).get("contested") is True)
    rows.append(f"| Sources compiled | {len(view.compiled):,} |")
    rows.append(f"| Names waiting for a page | {len(view.mentions):,} |")
    rows.append(f"| Contested pages | {contested:,} |")
    waiting = open_proposals(view.root)
    if waiting:
        rows.append(f"| Proposals waiting for review | {waiting:,} |")
    return "\n".join(rows)


def overview_brief(text: str) -> list[str]:
    """overview.md in a few lines, for a briefing: what the wiki covers, then each group of its main
    subjects with the links of the pages shown for it (no leads: a briefing counts its tokens)."""
    lines = [line for line in text.split("\n") if not MARKER_LINE.match(line)]
    out: list[str] = []
    section = ""
    group: list[str] = []

    def close() -> None:
        if group:
            out.append(group[0] + ": " + ", ".join(group[1:]) if len(group) > 1 else group[0])
            group.clear()

    for line in lines:
        if line.startswith("## "):
            close()
            section = line[3:].strip()
            continue
        if not section and line.strip() and not line.startswith("# "):
            out.append(line.strip())
        elif section == SECTIONS[0] and line.startswith("### "):
            close()
            group.append("- " + re.sub(r"\s*\([\d,]+ pages?\)$", "", line[4:].strip()))
        elif section == SECTIONS[0] and group and line.startswith("- [["):
            found = _LINK.search(line)
            if found:
                group.append(found.group(0))
    close()
    return out
