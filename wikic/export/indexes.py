"""The site's two indexes, each a script that sets a global: a page opened from disk (file://) may load a
script where it may not fetch a JSON file.

- `assets/search-index.js` sets `WIKIC_SEARCH`: every page's title, aliases, lead and URL (from the site's
  folder, escaped as a URL), which the search box filters as you type;
- `assets/graph-data.js` sets `WIKIC_GRAPH`: the pages as nodes (path, title, URL, cluster) and the links
  between them as pairs of node numbers, and the clusters (each its name and its pages, best-linked first);
  graph.html draws it whole, and each page its neighbourhood and the list of its cluster.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from wikic.export.layout import url_of

if TYPE_CHECKING:
    from wikic.export.around import Around
    from wikic.export.site import Site


def _script(name: str, value: Any) -> bytes:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    # U+2028 and U+2029 end a line in older JavaScript, and "</" would close an inline script
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").replace("</", "<\\/")
    return f"window.{name} = {text};\n".encode()


def search_index(site: Site) -> bytes:
    entries = []
    for path in site.notes:
        fm = site.note(path).frontmatter or {}
        aliases = fm.get("aliases")
        entries.append({
            "t": site.title(path),
            "a": [a for a in aliases if isinstance(a, str)] if isinstance(aliases, list) else [],
            "l": site.facts(path)[1],
            "u": url_of(site.outputs[path]),
        })
    return _script("WIKIC_SEARCH", entries)


def graph_data(site: Site, around: Around) -> bytes:
    """The graph as `{"nodes": [[path, title, url, cluster (-1: none)], ...], "edges": [[from, to], ...],
    "groups": [{"label": ..., "members": [node, ...]}, ...]}`, nodes by their number."""
    number = {path: n for n, path in enumerate(site.notes)}
    group_of = around.group_of
    nodes = [[path, site.title(path), url_of(site.outputs[path]), group_of.get(path, -1)] for path in site.notes]
    edges = [[number[s], number[t]] for s in site.notes for t in sorted(around.outbound[s])]
    groups = [{"label": g.label, "members": [number[p] for p in g.pages if p in number]} for g in around.groups]
    return _script("WIKIC_GRAPH", {"nodes": nodes, "edges": edges, "groups": groups})
