"""The overview's main subjects: the subject pages grouped, each group led by its best-linked pages.

Groups are communities of the link graph between subject pages (Louvain, seeded, so a vault gives the same
groups every time). Finding communities in a 10,000-page graph takes seconds, and the overview shows only a
few pages of each group: so communities are found among the CORE best-linked pages, and every other page
joins the group most of its links lead to. A group is named by the tag most of its pages carry, else by the
page most of its pages are linked with, else by the pages it opens with: never by a page it is not about. When
the graph is too thin to say anything (most pages link to no other), the pages are grouped by their first tag
instead, and a page without one by its type.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

CORE = 400  # pages whose links decide the communities
MIN_LINKED_SHARE = 0.5  # below this share of pages with a link to another subject page, the graph is too thin
MIN_GROUP = 2  # a community smaller than this joins no group of its own


@dataclass(frozen=True)
class Group:
    label: str
    pages: tuple[str, ...]  # best-linked first
    by: str  # "links" or "tags"


def rank(pages: Sequence[str], inbound: Mapping[str, int], title: Callable[[str], str]) -> list[str]:
    """Best-linked first (inbound links from other subject pages), then by title."""
    return sorted(pages, key=lambda p: (-inbound.get(p, 0), title(p).casefold(), p))


def group_pages(
    pages: Sequence[str],
    outbound: Mapping[str, frozenset[str]],
    inbound: Mapping[str, int],
    tags: Callable[[str], list[str]],
    kind_label: Callable[[str], str],
    title: Callable[[str], str],
) -> list[Group]:
    """The groups of `pages`, largest first. `tags(p)`: a page's tags, `kind_label(p)`: the name of its type
    (a group of untagged pages), `title(p)`: its title."""
    if not pages:
        return []
    members = frozenset(pages)
    neighbours: dict[str, set[str]] = {p: set() for p in pages}
    for page in pages:
        for target in outbound.get(page, ()):
            if target in members and target != page:
                neighbours[page].add(target)
                neighbours[target].add(page)
    linked = sum(1 for p in pages if neighbours[p])
    if linked >= 2 and linked >= MIN_LINKED_SHARE * len(pages):
        groups = _by_links(pages, neighbours, inbound, tags, title)
        if groups:
            return groups
    return _by_tags(pages, inbound, tags, kind_label, title)


def _by_links(
    pages: Sequence[str],
    neighbours: Mapping[str, set[str]],
    inbound: Mapping[str, int],
    tags: Callable[[str], list[str]],
    title: Callable[[str], str],
) -> list[Group]:
    import networkx as nx

    degree = {p: len(neighbours[p]) for p in pages}
    core = sorted(pages, key=lambda p: (-degree[p], p))[:CORE]
    core_set = set(core)
    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(core)
    graph.add_edges_from((p, q) for p in core for q in sorted(neighbours[p]) if q in core_set and p < q)
    found = nx.community.louvain_communities(graph, seed=0)
    communities = sorted((sorted(c) for c in found if len(c) >= MIN_GROUP), key=lambda c: (-len(c), c[0]))
    if not communities:
        return []
    home = {p: n for n, community in enumerate(communities) for p in community}
    # every other page joins the group most of its neighbours are in (ties: the larger, earlier group)
    pending = [p for p in sorted(pages) if p not in home]
    for _ in range(2):  # a second pass reaches pages whose neighbours joined in the first
        left = []
        for page in pending:
            votes = Counter(home[q] for q in neighbours[page] if q in home)
            if votes:
                home[page] = min(votes, key=lambda n: (-votes[n], n))
            else:
                left.append(page)
        pending = left
    members: dict[int, list[str]] = {}
    for page, n in home.items():
        members.setdefault(n, []).append(page)
    groups = [
        Group("", tuple(rank(members[n], inbound, title)), "links") for n in sorted(members, key=lambda n: n)
    ]
    if pending:
        groups.append(Group("Not linked yet", tuple(rank(pending, inbound, title)), "links"))
    return _labelled(groups, neighbours, tags, title)


def _by_tags(
    pages: Sequence[str],
    inbound: Mapping[str, int],
    tags: Callable[[str], list[str]],
    kind_label: Callable[[str], str],
    title: Callable[[str], str],
) -> list[Group]:
    buckets: dict[str, list[str]] = {}
    for page in pages:
        mine = tags(page)
        buckets.setdefault(tag_label(mine[0]) if mine else kind_label(page), []).append(page)
    return sorted(
        (Group(label, tuple(rank(members, inbound, title)), "tags") for label, members in buckets.items()),
        key=lambda g: (-len(g.pages), g.label.casefold()),
    )


def tag_label(tag: str) -> str:
    """A tag as a heading: 'vector-database' -> 'Vector database'."""
    # a short tag is an acronym more often than a word ("llm", "rag", "api")
    spaced = tag.replace("-", " ").replace("_", " ").replace("/", " / ")
    words = [w.upper() if len(tag) <= 3 else w for w in spaced.split()]
    text = " ".join(words)
    return text[:1].upper() + text[1:] if text else tag


def _labelled(
    groups: list[Group],
    neighbours: Mapping[str, set[str]],
    tags: Callable[[str], list[str]],
    title: Callable[[str], str],
) -> list[Group]:
    """Each community named by what it is about: the tag most of its pages carry, else the page most of its
    other pages are linked with (its subject), else the titles it opens with. A group is never named by a page
    it is not about (the best-linked page of the whole wiki may be linked with one of its pages only). Two
    groups never share a name. Largest first."""
    groups = sorted(groups, key=lambda g: (g.label == "Not linked yet", -len(g.pages), g.pages[0]))
    used: set[str] = set()
    out = []
    for group in groups:
        label = group.label
        if not label:
            counted = Counter(t for p in group.pages for t in dict.fromkeys(tags(p)))
            common = min(counted, key=lambda t: (-counted[t], t)) if counted else None
            if common and counted[common] * 2 >= len(group.pages):
                label = tag_label(common)
            else:
                label = _subject(group.pages, neighbours, title) or _opening(group.pages, title)
            if label.casefold() in used:
                label = f"{label}: {_opening(group.pages, title)}"
        used.add(label.casefold())
        out.append(Group(label, group.pages, group.by))
    return out


def _subject(pages: Sequence[str], neighbours: Mapping[str, set[str]], title: Callable[[str], str]) -> str | None:
    """The title of the page of `pages` (best-linked first) linked with most of the others, when it is linked
    with at least half of them and two or more: what ties the group together."""
    members = set(pages)
    best = max(pages, key=lambda p: len(neighbours.get(p, set()) & members))  # the first of the most linked
    linked = len(neighbours.get(best, set()) & members)
    return title(best) if linked >= 2 and linked * 2 >= len(pages) - 1 else None


def _opening(pages: Sequence[str], title: Callable[[str], str]) -> str:
    """A group named by the pages it opens with: "Note and Linked mentions", "Note, Linked mentions and
    others"."""
    first = [title(p) for p in pages[:2]]
    if len(pages) <= 2:
        return " and ".join(first)
    return f"{', '.join(first)} and others"
