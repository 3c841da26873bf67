"""The overview at 10,000 pages stays under its size bound and shows a bounded part of the wiki (its timing is
measured by `bench/hubs_bench.py`, not here); its groups come from the link graph, or tags when it is thin."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from wikic.hubs.groups import group_pages
from wikic.hubs.overview import LIMITS, MAX_CHARS, overview_brief, render_overview
from wikic.hubs.view import HubView
from wikic.pages.log_file import read_rows, row
from wikic.vault.formats.mentions import Mention, Said
from wikic.vault.load import FileInfo, Vault
from wikic.vault.model import Heading, Link, Note
from wikic.vault.schema_md import parse

TAGS = ["retrieval", "embeddings", "agents", "memory", "evaluation", "tooling", "llm", "indexing"]
SCHEMA = "# Wiki Schema\n## Domain\nRetrieval systems\n## Taxonomy Tags\n" + "".join(f"- #{t}\n" for t in TAGS)
KINDS = (("entity", "entities"), ("concept", "concepts"), ("comparison", "comparisons"), ("query", "queries"))


def _path(i: int, long: bool) -> str:
    folder = KINDS[i % 4][1]
    deep = "/deeply/nested/folder-with-a-long-name" if long else ""
    return f"{folder}{deep}/page-{i:05d}{'-with-a-much-longer-file-name-than-usual' if long else ''}.md"


def _view(tmp_path: Path, n: int, *, long: bool, linked: bool = True) -> HubView:
    """A vault of `n` subject pages, each linking five others (`linked`), with titles, leads, open questions,
    names waiting and a long log: as long as a compiled page lets them be (`long`), or ordinary ones."""
    schema = parse(SCHEMA)
    files: dict[str, FileInfo] = {}
    notes: dict[str, Note] = {}
    planned: dict[str, str] = {}
    stems = [_path(i, long).rsplit("/", 1)[1][:-3] for i in range(n)]
    for i in range(n):
        path = _path(i, long)
        kind = KINDS[i % 4][0]
        title = f"Subject {i} " + ("with a title as long as a compiled page's may be " * 3 if long else "")
        links = [Link("wikilink", stems[(i * 7 + k * 13 + 1) % n], "", None, 12 + k, 1, "[[x]]")
                 for k in range(5 if linked else 0)]
        headings = [Heading(title, 1, 9), Heading("Key facts", 2, 14)]
        if i % 10 == 0:
            headings.append(Heading("Open questions", 2, 20))
        fm = {"title": title, "type": kind, "tags": [TAGS[i % len(TAGS)]], "updated": f"2026-11-{1 + i % 28:02d}"}
        notes[path] = Note(path, fm, 7, {}, links, headings, [], [], 30, 8)
        files[path] = FileInfo(path, 1000, 0)
        lead = ("It is a subject that a long lead describes at great length, " * (6 if long else 1)).strip()
        planned[path] = (f"---\ntitle: x\n---\n# {title}\n\n<!-- wikic:begin summary sha=000000000000 -->\n{lead}\n"
                         "<!-- wikic:end summary -->\n\n## Open questions\n\n- What does it cost at "
                         f"{'a scale nobody has measured yet, ' * (4 if long else 1)}{i}?\n- Who runs it?\n")
    mentions = {f"entity:n{i}": Mention("entity", f"Name {i} " + ("x" * 100 if long else ""), (), "",
                                        {f"raw/articles/a{i}.md": Said()}) for i in range(500)}
    log_links = ", ".join(f"[[{stems[k]}|{'A long label ' * (8 if long else 1)}]]" for k in range(40))
    log = "\n".join(row(dt.date(2026, 11, 1), "ingest", f"[[sources/s{k}|Source {k}]]",
                        f"created {log_links}; updated {log_links}; 40,000 tokens") for k in range(50))
    vault = Vault(tmp_path, schema, files, notes)
    return HubView(tmp_path, schema, vault, planned, {}, mentions, read_rows(log))


def test_the_overview_of_10000_pages_stays_under_its_bound_and_shows_a_bounded_part(tmp_path: Path) -> None:
    view = _view(tmp_path, 10_000, long=False)
    text = render_overview(view, None)
    assert len(text) <= 20_000  # what the default limits give for ordinary names
    groups = re.findall(r"^### (.+) \(([\d,]+) pages?\)$", text, re.M)
    limits = LIMITS[0]
    assert 2 <= len(groups) <= limits.groups
    # every subject page (filed answers aside) is in a group, shown or counted
    assert sum(int(n.replace(",", "")) for _, n in groups) + _smaller(text) == 7_500
    subjects = text.split("## Main subjects", 1)[1].split("## Latest changes", 1)[0]
    assert subjects.count("\n- [[") <= limits.groups * (limits.per_group + 1)
    changes = text.split("## Latest changes", 1)[1].split("## Open questions", 1)[0]
    assert changes.count("\n- 2026-11-01 · ") == limits.changes
    questions = text.split("## Open questions", 1)[1].split("## Counts", 1)[0]
    assert questions.count("\n- ") <= limits.questions + limits.waiting + 1
    assert "| Entities | 2,500 |" in text and "| Names waiting for a page | 500 |" in text
    brief = overview_brief(text)
    assert brief[0].startswith("This wiki covers Retrieval systems.") and len(brief) == len(groups) + 1


def test_the_overview_of_10000_pages_with_the_longest_names_stays_under_its_bound(tmp_path: Path) -> None:
    text = render_overview(_view(tmp_path, 10_000, long=True), None)
    assert len(text) <= MAX_CHARS + 1_000  # the blocks within MAX_CHARS, their markers and headings besides


def test_a_thin_graph_groups_pages_by_their_first_tag(tmp_path: Path) -> None:
    view = _view(tmp_path, 400, long=False, linked=False)
    topics = [p for p in view.subjects if view.kind(p) != "query"]
    groups = group_pages(topics, view.outbound, view.inbound, view.tags, lambda p: view.kind(p), view.title)
    assert {g.by for g in groups} == {"tags"}
    # filed answers are in no group: their tags (memory, indexing) head none
    assert sorted(g.label for g in groups) == ["Agents", "Embeddings", "Evaluation", "LLM", "Retrieval", "Tooling"]
    assert sum(len(g.pages) for g in groups) == len(topics)


def test_groups_are_the_same_every_time(tmp_path: Path) -> None:
    first = render_overview(_view(tmp_path, 2_000, long=False), None)
    assert render_overview(_view(tmp_path, 2_000, long=False), None) == first


def _smaller(text: str) -> int:
    found = re.search(r"^[\d,]+ smaller groups? \(([\d,]+) pages?\)", text, re.M)
    return int(found.group(1).replace(",", "")) if found else 0
