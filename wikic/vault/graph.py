"""The vault's link graph: a networkx MultiDiGraph keyed by vault-relative paths.

Nodes are every file (notes and attachments); an edge is one link occurrence, so two links between the
same pair keep their own line numbers. Links that resolve nowhere are kept beside the graph.

A link (not an embed) to a file in raw/ is a citation (a claim's anchor names the raw file it quotes):
such an edge is marked `citation`, counted apart, and never makes a raw file a "wanted page"; the page
graph that components, hubs, dead ends and isolated pages are computed on holds only links between pages.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Container, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

from wikic.vault.layout import RAW_DIR
from wikic.vault.load import Vault
from wikic.vault.model import EMBED, Link, Note
from wikic.vault.resolve import Resolver

if TYPE_CHECKING:
    import networkx as nx


def is_citation(link: Link, target: str | None) -> bool:
    """Whether `link` (resolved to `target`, None when it resolves nowhere) cites a raw source: a link, not
    an embed (an image shown from raw/assets cites nothing), to a file in raw/."""
    return link.kind != EMBED and (target or link.target).startswith(RAW_DIR + "/")


class Edge(NamedTuple):
    source: str
    link: Link
    target: str | None  # None: the link resolves nowhere
    candidates: tuple[str, ...]  # several files matched (ambiguous)


@dataclass
class LinkGraph:
    """Every link occurrence of a vault, resolved. The networkx graph is built on first use: lint's rules
    read the edges and never need it, and building it costs a second on a 100,000-link vault."""

    vault: Vault
    edges: list[Edge]
    resolver: Resolver
    by_source: dict[str, list[Edge]] = field(default_factory=dict)

    @cached_property
    def graph(self) -> nx.MultiDiGraph[str]:
        import networkx as nx

        graph: nx.MultiDiGraph[str] = nx.MultiDiGraph()
        _fill(graph, _node_attrs(self.vault), self.edges)
        return graph


def outbound_minimum(asked: int, pages: int) -> int:
    """How many other subject pages a subject page must link to, SCHEMA.md asking for `asked` (its
    min_outbound_links), in a wiki of `pages` subject pages: never more than it has besides the page (a wiki
    of one page links to none)."""
    return min(asked, pages - 1)


def outbound(lg: LinkGraph, page: str, subjects: Container[str]) -> set[str]:
    """The other subject pages `page` links to (a hub leads to pages and is led to: a link to one is no
    subject's)."""
    return {e.target for e in lg.by_source.get(page, [])
            if e.target is not None and e.target in subjects and e.target != page}


def linked_from_subjects(lg: LinkGraph, subjects: list[str]) -> set[str]:
    """Every file another subject page links to. Links from the hubs (index.md, overview.md, the source pages)
    do not count: they link every page by construction."""
    inbound: set[str] = set()
    for source in subjects:
        inbound.update(e.target for e in lg.by_source.get(source, []) if e.target and e.target != source)
    return inbound


def _node_attrs(vault: Vault) -> dict[str, dict[str, Any]]:
    node_attrs: dict[str, dict[str, Any]] = {}
    for path in vault.files:
        note = vault.notes.get(path)
        attrs: dict[str, Any] = {"kind": "note" if path.endswith(".md") else "attachment"}
        page_type = vault.page_type(path)
        if page_type:
            attrs["type"] = page_type
        if note is not None and note.frontmatter and isinstance(note.frontmatter.get("title"), str):
            attrs["title"] = note.frontmatter["title"]
        node_attrs[path] = attrs
    return node_attrs


def build(vault: Vault, resolver: Resolver | None = None) -> LinkGraph:
    resolver = resolver or vault.resolver or Resolver(vault.files)
    edges: list[Edge] = []
    by_source: dict[str, list[Edge]] = {}
    done = vault.resolved  # links resolved where their notes were parsed
    for source, note in vault.notes.items():
        if not note.links:
            by_source[source] = []
            continue
        mine = note_edges(note, done.get(source) or resolver.resolve_all(source, [link.target for link in note.links]))
        edges.extend(mine)
        by_source[source] = mine
    return LinkGraph(vault=vault, edges=edges, resolver=resolver, by_source=by_source)


def note_edges(note: Note, resolved: Sequence[tuple[str | None, tuple[str, ...]]]) -> list[Edge]:
    """A note's links as edges, each with where it lands and its candidates (`resolved`, one a link, in order)."""
    return [Edge(note.path, link, res[0], res[1]) for link, res in zip(note.links, resolved, strict=True)]


def _fill(graph: nx.MultiDiGraph[str], nodes: dict[str, dict[str, Any]], edges: list[Edge]) -> None:
    """Populate the graph. `add_edges_from` spends ~5 µs per edge on key bookkeeping (0.5 s for a
    100,000-link vault); keys here are simply 0..n-1 per pair, so the adjacency dicts are filled directly,
    in the same layout networkx itself builds."""
    graph.add_nodes_from(nodes.items())
    succ, pred = graph._succ, graph._pred  # type: ignore[attr-defined]  # networkx's own adjacency dicts (above)
    for edge in edges:
        target = edge.target
        if target is None:
            continue
        u = edge.source
        link = edge.link
        keydict = succ[u].get(target)
        if keydict is None:
            keydict = {}
            succ[u][target] = keydict
            pred[target][u] = keydict
        attrs = {"kind": link.kind, "line": link.line, "column": link.column, "subpath": link.subpath}
        if is_citation(link, target):
            attrs["citation"] = True
        keydict[len(keydict)] = attrs


def health(lg: LinkGraph, vault: Vault, top: int = 10) -> dict[str, Any]:
    """Numbers a person wants to see about the graph: size, components, hubs, dead ends, wanted pages."""
    import networkx as nx

    pages = [p for p in vault.notes if vault.is_page(p)]
    page_set = set(pages)
    sub = lg.graph.subgraph(pages)
    simple: nx.DiGraph[str] = nx.DiGraph(sub)
    simple.remove_edges_from(nx.selfloop_edges(simple))
    components = list(nx.weakly_connected_components(simple)) if pages else []
    inbound = Counter(
        e.target for e in lg.edges if e.target in page_set and e.source != e.target and e.source in page_set
    )
    dead_ends = sorted(p for p in pages if simple.out_degree(p) == 0)
    broken = [e for e in lg.edges if e.target is None and e.link.target]
    wanted = Counter(e.link.target for e in broken if not is_citation(e.link, None))
    missing = Counter(e.link.target for e in broken if is_citation(e.link, None))
    return {
        "pages": len(pages),
        "files": len(vault.files),
        "links": len(lg.edges),
        "resolved_links": sum(1 for e in lg.edges if e.target is not None),
        "broken_links": sum(1 for e in lg.edges if e.target is None),
        "citations": sum(1 for e in lg.edges if is_citation(e.link, e.target)),
        "missing_sources": [{"target": t, "links": n} for t, n in missing.most_common(top)],
        "components": len(components),
        "largest_component": max((len(c) for c in components), default=0),
        "isolated_pages": sorted(p for p in pages if simple.degree(p) == 0),
        "most_linked": [{"path": p, "inbound": n} for p, n in inbound.most_common(top)],
        "dead_ends": dead_ends,
        "wanted_pages": [{"target": t, "links": n} for t, n in wanted.most_common(top)],
    }
