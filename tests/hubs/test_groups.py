"""The overview's groups are named by what they are about, never by a page they are not about."""

from __future__ import annotations

from wikic.hubs.groups import Group, _labelled

PAGES = ("excluded-files", "command-palette", "linked-mentions", "note", "backlinks")  # best-linked first


def _title(page: str) -> str:
    return page.replace("-", " ").capitalize()


def _label(links: list[tuple[str, str]], tags: dict[str, list[str]] | None = None) -> str:
    neighbours: dict[str, set[str]] = {p: set() for p in PAGES}
    for a, b in links:
        neighbours[a].add(b)
        neighbours[b].add(a)
    (group,) = _labelled([Group("", PAGES, "links")], neighbours, lambda p: (tags or {}).get(p, []), _title)
    return group.label


def test_a_group_is_named_by_the_page_most_of_its_pages_are_linked_with() -> None:
    # the best-linked page of the wiki is linked with one page of the group: the group is not about it
    links = [("excluded-files", "note"), ("command-palette", "backlinks"), ("linked-mentions", "backlinks"),
             ("note", "backlinks")]
    assert _label(links) == "Backlinks"
    # a tag most of its pages carry names it first
    assert _label(links, {p: ["links"] for p in PAGES[:3]}) == "Links"


def test_a_group_no_page_ties_together_is_named_by_the_pages_it_opens_with() -> None:
    links = [("excluded-files", "note"), ("command-palette", "linked-mentions")]
    assert _label(links) == "Excluded files, Command palette and others"
