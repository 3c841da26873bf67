"""What `wikic search` prints of its hits (each `SearchHit.to_dict()`), for a person or as JSON: one module
for the full command and its served fast path (`search_fast.py`), so the two print alike."""

from __future__ import annotations

from typing import Any

from wikic.cli._output import say, say_json


def show(query: str, hits: list[dict[str, Any]], as_json: bool, assist: dict[str, Any] | None = None) -> None:
    """The hits as JSON (`{"query", "results"}`, and `assist` when the model helped), or for a person."""
    if as_json:
        out: dict[str, object] = {"query": query, "results": hits}
        if assist is not None:
            out["assist"] = assist
        say_json(out)
        return
    if not hits:
        say("no results")
    for n, hit in enumerate(hits, 1):
        where = f"{hit['path']}:{hit['line_start']}"
        heading = f"  § {hit['heading']}" if hit["heading"] else ""
        say(f"{n:>2}. {where}  ({hit['score']:.4f}){heading}")
        say(f"    {hit['snippet']}")
