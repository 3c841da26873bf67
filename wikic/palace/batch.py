"""Many queries in one process: the model and the palace are loaded once (`wikic search --batch`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from wikic.errors import UsageError
from wikic.palace.hybrid import search
from wikic.palace.palace import Palace
from wikic.text.bounded_json import parse


def search_batch(
    palace: Palace,
    lines: Iterable[str],
    k: int = 10,
    *,
    wing: str | None = None,
    tag: str | None = None,
    path: str | None = None,
) -> Iterator[dict[str, Any]]:
    """For each JSON line `{"id": ..., "query": ...}` yield `{"id": ..., "results": [...]}` (`--batch`)."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = parse(line)  # nesting bounded: a line nested 100,000 deep is no query, never a RecursionError
        except ValueError as exc:
            raise UsageError(f"batch line {number} is not JSON: {exc}") from None
        if not isinstance(item, dict) or not isinstance(item.get("query"), str):
            raise UsageError(f'batch line {number} must be an object with a string "query"')
        hits = search(palace, item["query"], k, wing=wing, tag=tag, path=path)
        yield {
            "id": item.get("id"),
            "results": [
                {"path": h.path, "score": h.score, "heading": h.heading, "snippet": h.snippet} for h in hits
            ],
        }
