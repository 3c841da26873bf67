"""Where each file of the vault lands in the site, and the relative link from one output to another.

A note `entities/chroma.md` is `entities/chroma.html`, `index.md` is `index.html`; a raw source that is text
is a page of numbered lines, `raw/articles/x.md` at `raw/articles/x.html` and `raw/x.txt` at `raw/x.txt.html`;
every other file (an image, a PDF) is copied where it was. The site's own files (`assets/`, `graph.html`,
the manifest) keep their names: a vault file that would land on one, or on an output another file took first,
is left out and reported. Every link is relative, so the folder opens from disk and from any static host.
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import quote

from wikic.vault.layout import RAW_DIR

ASSETS = "assets"
GRAPH_PAGE = "graph.html"
SEARCH_INDEX = f"{ASSETS}/search-index.js"
GRAPH_DATA = f"{ASSETS}/graph-data.js"
_RAW = RAW_DIR + "/"


def is_raw(path: str) -> bool:
    return path.startswith(_RAW)


def page_output(path: str) -> str:
    """The HTML page of a note, or of a raw source shown as text."""
    if path.endswith(".md"):
        return path[:-3] + ".html"
    return path + ".html"


def site_owned(output: str) -> bool:
    """Whether `output` is a name the site keeps for its own files."""
    return output == GRAPH_PAGE or output.startswith(ASSETS + "/")


@lru_cache(maxsize=65_536)
def url_of(path: str) -> str:
    """A site-relative path as a URL path ("C# basics.html" -> "C%23%20basics.html")."""
    return quote(path, safe="/")


def relative(host_output: str, output: str, anchor: str = "") -> str:
    """The URL of `output` from the page at `host_output` (both site-relative), with `#anchor` when given."""
    if output == host_output:
        url = "" if anchor else url_of(output.rpartition("/")[2])
    else:
        folder = host_output.rpartition("/")[0]
        if not folder:
            url = url_of(output)
        elif output.startswith(folder + "/"):
            url = url_of(output[len(folder) + 1 :])
        else:
            here, there = folder.split("/"), output.split("/")
            common = 0
            while common < len(here) and common < len(there) - 1 and here[common] == there[common]:
                common += 1
            url = "../" * (len(here) - common) + url_of("/".join(there[common:]))
    return f"{url}#{quote(anchor, safe='-_.~^')}" if anchor else url


def root_of(host_output: str) -> str:
    """The relative URL of the site's folder from `host_output`: "" at the top, "../" a folder down."""
    return "../" * host_output.count("/")
