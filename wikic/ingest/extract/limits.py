"""How well a window supports an item of the model's plan for it: the quotes in the item found in the window.

A reply over one of its plan's list limits (more entities than `ChunkPlan` holds, more facts than an
entity does) keeps that many of its items (`wikic.llm.fit`): those with the most quotes the window writes,
the earlier of two as well supported. An item whose quotes are not in the source would lose its claims
when the plan is anchored anyway.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from wikic.ingest.anchor import AnchorIndex
from wikic.llm.fit import Support


def quote_support(text: str, path: str) -> Support:
    """An item (a reply's JSON value) -> how many of its quotes, at any depth, are found in `text` (the window
    of the file at `path`). The window is indexed on the first call: most replies are within their limits."""
    index: list[AnchorIndex] = []

    def support(item: Any) -> int:
        if not index:
            index.append(AnchorIndex(text, path))
        return sum(1 for quote in _quotes(item) if index[0].span(quote) is not None)

    return support


def _quotes(item: Any) -> Iterator[str]:
    if isinstance(item, Mapping):
        for key, value in item.items():
            if key == "quote" and isinstance(value, str):
                yield value
            else:
                yield from _quotes(value)
    elif isinstance(item, list):
        for value in item:
            yield from _quotes(value)
