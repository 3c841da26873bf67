"""`wikic wake-up`: the context a new session needs, built by code from the pages, with no model call.

In order, as far as the token budget goes: who the user is (identity.md), what the wiki covers when asked
(overview.md: its domain and main subjects), their instructions and preferences (the items on their own page),
the active projects with their latest decisions, then the most important recent memories of any kind. Every
group names the page it comes from as a [[link]] (and each memory of the last group its own), so an assistant
can read more through MCP (`read_page`). A memory whose subject waits for its page (below SCHEMA.md's
threshold: the user's own page after their first session) is there too, linking the source that said it; a
project waiting for its page has no group of its own, its memories rank among the recent ones. Items are
ranked by `rank.score`; ties fall back to page path and order, so a vault gives the same briefing every time
(for a given date). The text never exceeds the budget, as counted by the token estimate ingest uses.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic.context import VaultContext
from wikic.errors import UsageError
from wikic.memory.item_index import Memories, PageMemory, load_memories
from wikic.memory.rank import score
from wikic.text.tokens import estimate_tokens
from wikic.vault.formats.memory_items import VERIFIED
from wikic.vault.layout import IDENTITY_FILE, OVERVIEW_FILE, require_vault
from wikic.vault.paths import read_text_inside

DEFAULT_BUDGET = 900
MIN_BUDGET = 20
ACTIVE_DAYS = 30  # a project with a decision or event this recent is active
MAX_PROJECTS = 5
DECISIONS_PER_PROJECT = 3
DECISIONS_FOR_ONE_PROJECT = 10
LINE_TOKENS = 8  # the least a memory's line takes ("- 2026-11-30 · " and a word)


@dataclass
class Section:
    title: str
    link: str | None  # the page the whole group is on (None: each item names its own)
    lines: list[str] = field(default_factory=list)
    items: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Briefing:
    as_of: dt.date
    budget: int
    text: str
    tokens: int
    identity: str
    user_page: str | None
    sections: list[Section]
    left_out: int  # memories that did not fit the budget

    def to_dict(self) -> dict[str, Any]:
        return {
            "as_of": self.as_of.isoformat(), "budget": self.budget, "tokens": self.tokens, "identity": self.identity,
            "user_page": self.user_page, "left_out": self.left_out,
            "sections": [{"title": s.title, "link": s.link, "items": s.items} for s in self.sections],
            "text": self.text,
        }


def wake_up(
    context: VaultContext,
    *,
    budget: int = DEFAULT_BUDGET,
    project: str | None = None,
    as_of: dt.date | None = None,
    overview: bool = False,
) -> Briefing:
    """The briefing for a new session, within `budget` tokens. `project`: that project's decisions and
    memories instead of every active project's; `overview`: what the wiki covers and its main subjects
    (overview.md), right after who the user is."""
    root = Path(context.root).resolve()
    require_vault(root)
    if budget < MIN_BUDGET:
        raise UsageError(f"a briefing needs a budget of at least {MIN_BUDGET} tokens, not {budget}")
    as_of = as_of or dt.date.today()
    memories = load_memories(context, waiting=True)
    focus = _project(memories, project) if project else None
    plan = _plan(memories, as_of, focus)
    return _fit(plan, memories, as_of, budget, _overview(root) if overview else [])


def _overview(root: Path) -> list[str]:
    """overview.md in a few lines (`hubs.overview.overview_brief`); none when there is no overview, and
    VaultError when it leads outside the vault."""
    from wikic.hubs.overview import overview_brief

    try:
        text = read_text_inside(root, root / OVERVIEW_FILE)
    except (OSError, UnicodeDecodeError):
        return []
    return overview_brief(text) if text is not None else []


def _project(memories: Memories, name: str) -> str:
    wanted = name.strip().casefold().removeprefix("[[").removesuffix("]]")
    for m in memories.items:
        if m.path != memories.user_page and not m.waiting and wanted in (
            m.title.casefold(),
            m.link.casefold(),
            m.path.casefold(),
            m.path[:-3].casefold(),
            m.path.rsplit("/", 1)[-1][:-3].casefold(),
        ):
            return m.path
    known = sorted({m.title for m in memories.items if m.path != memories.user_page and not m.waiting})
    raise UsageError(f"no project {name!r} with memories in this vault",
                     hint=f"known: {', '.join(known[:20])}" if known else "no page has memories yet")


def _ranked(items: Sequence[PageMemory], as_of: dt.date) -> list[PageMemory]:
    return sorted(items, key=lambda m: (-score(m.item, as_of), m.path, m.index))


def _plan(memories: Memories, as_of: dt.date, focus: str | None) -> list[tuple[Section, list[PageMemory]]]:
    """The groups of the briefing, in the order they are filled, each with its memories best first."""
    mine = [m for m in memories.items if memories.about_user(m)]
    user_link = memories.user_link  # none while their page waits: each of its memories links its source
    groups: list[tuple[Section, list[PageMemory]]] = [
        (Section("Instructions", user_link), _ranked([m for m in mine if m.item.kind == "instruction"], as_of)),
        (Section("Preferences", user_link), _ranked([m for m in mine if m.item.kind == "persona"], as_of)),
    ]
    shown = {id(m) for _, group in groups for m in group}
    by_page: dict[str, list[PageMemory]] = {}
    for m in memories.items:
        if not memories.about_user(m) and not m.waiting and m.item.kind == "episodic":
            by_page.setdefault(m.path, []).append(m)
    if focus is not None:
        projects = [focus] if focus in by_page else []
        per_project = DECISIONS_FOR_ONE_PROJECT
    else:
        recent = as_of - dt.timedelta(days=ACTIVE_DAYS)
        latest = {path: max(m.item.latest for m in items) for path, items in by_page.items()}
        projects = sorted((p for p in by_page if latest[p] >= recent), key=lambda p: (-latest[p].toordinal(), p))[
            :MAX_PROJECTS
        ]
        per_project = DECISIONS_PER_PROJECT
    for path in projects:
        newest = sorted(by_page[path], key=lambda m: (-m.item.latest.toordinal(), -m.index))[:per_project]
        first = newest[0]
        groups.append((Section(f"Project: {first.title}", first.link), newest))
        shown |= {id(m) for m in newest}
    rest = [m for m in memories.items if id(m) not in shown and (focus is None or m.path == focus)]
    groups.append((Section("Recent memories", None), _ranked(rest, as_of)))
    return groups


def _line(m: PageMemory, with_link: bool) -> str:
    verified = f" ({VERIFIED})" if m.item.verified else ""
    link = f" [[{m.link}]]" if with_link else ""
    return f"- {m.item.date.isoformat()} · {m.item.text}{verified}{link}"


def _fit(plan: list[tuple[Section, list[PageMemory]]], memories: Memories, as_of: dt.date, budget: int,
         wiki: list[str]) -> Briefing:
    lines: list[str] = [f"# Briefing ({as_of.isoformat()})"]
    used = [0]  # the tokens of the text so far

    def fits(more: list[str]) -> bool:
        # Joining can merge a run of newlines and round CJK once: a candidate that cannot fit even so is
        # refused without counting the whole text again (most of them, once the budget is nearly spent).
        if used[0] + estimate_tokens("\n".join(more)) - 4 > budget:
            return False
        total = estimate_tokens("\n".join(lines + more) + "\n")
        if total > budget:
            return False
        used[0] = total
        return True

    if not fits([]):
        lines = []
    identity = memories.identity.text
    who = identity or f"({IDENTITY_FILE} is empty: the user has not said who they are)"
    if memories.user_link is not None:
        who += f"\nTheir page: [[{memories.user_link}]]"
    head = ["", "## Who the user is", ""]
    for n, line in enumerate(who.split("\n")):  # as much of the identity as fits, line by line
        candidate = (head if n == 0 else []) + [line]
        if not fits(candidate):
            break
        lines.extend(candidate)
    sections: list[Section] = []
    if wiki:
        covers = Section("What the wiki covers", OVERVIEW_FILE[:-3])
        head = ["", f"## {covers.title} ([[{covers.link}]])", ""]
        for line in wiki:  # as much of the overview as fits, line by line
            candidate = ([] if covers.lines else head) + [line]
            if not fits(candidate):
                break
            lines.extend(candidate)
            covers.lines.append(line)
        if covers.lines:
            sections.append(covers)
    shown = 0
    for section, group in plan:
        opened = False
        # every line takes at least LINE_TOKENS: no more of a group than could ever fit is tried
        for m in group[: budget // LINE_TOKENS]:
            line = _line(m, section.link is None)
            heading = ["", f"## {section.title}" + (f" ([[{section.link}]])" if section.link else ""), ""]
            candidate = [line] if opened else [*heading, line]
            if not fits(candidate):
                continue
            shown += 1
            lines.extend(candidate)
            if not opened:
                sections.append(section)
                opened = True
            section.lines.append(line)
            section.items.append(
                {
                    "kind": m.item.kind,
                    "date": m.item.date.isoformat(),
                    "text": m.item.text,
                    "page": m.path,
                    "link": f"[[{m.link}]]",
                    "waiting": m.waiting,
                    "score": round(score(m.item, as_of), 4),
                    "verified": m.item.verified,
                }
            )
    text = "\n".join(lines) + "\n" if lines else ""
    left_out = sum(len(group) for _, group in plan) - shown
    return Briefing(as_of, budget, text, estimate_tokens(text), identity, memories.user_page, sections, left_out)

