"""A reply over its schema's list limits, brought within them.

A schema caps its lists (`maxItems`) so a small model under a grammar does not loop and a reply stays
inside `max_output_tokens`; a server that does not enforce the schema (JSON mode) lets a model go past
them. Such a reply is good but for its length: re-asking it costs a call and may come back as long. So a
list over its limit keeps that many of its items, the best supported first (the caller says how well the
reply supports each item; ties keep the earlier), in their order, and the items left out are named.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)

Support = Callable[[Any], int]  # an item of a list (its JSON value) -> how well the reply supports it

# A list is cut where validation reports it; a list inside one cut is reported only once the outer list is
# within its limit, so a few passes are needed (the plan nests three deep).
_PASSES = 6
_LABEL_KEYS = ("name", "heading", "axis", "subject", "text", "quote")


def within_limits(output: type[T], data: Mapping[str, Any], error: ValidationError,
                  support: Support) -> tuple[T, tuple[str, ...]] | None:
    """`data` validated as `output` with each list over its limit cut to it, and the items left out ("where:
    label"); None when anything else is wrong with it (then it is no reply to keep)."""
    fitted: Any = copy.deepcopy(dict(data))
    left_out: list[str] = []
    for _ in range(_PASSES):
        problems = error.errors()
        if any(p["type"] != "too_long" or not isinstance(_at(fitted, p["loc"]), list) for p in problems):
            return None
        for p in sorted(problems, key=lambda p: len(p["loc"]), reverse=True):  # inner lists first: indices hold
            items: list[Any] = _at(fitted, p["loc"])
            limit = int(p["ctx"]["max_length"])
            ranked = sorted(range(len(items)), key=lambda i: (-support(items[i]), i))
            kept = sorted(ranked[:limit])
            where = ".".join(str(part) for part in p["loc"] if not isinstance(part, int))
            left_out += [f"{where}: {_label(items[i])}" for i in sorted(ranked[limit:])]
            items[:] = [items[i] for i in kept]
        try:
            return output.model_validate(fitted), tuple(left_out)
        except ValidationError as again:
            error = again
    return None


def _at(data: Any, loc: tuple[int | str, ...]) -> Any:
    for part in loc:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _label(item: Any) -> str:
    """An item as a person recognises it: its name (or heading, subject, text...), a relation as one phrase,
    else its JSON cut short."""
    if isinstance(item, Mapping):
        if all(isinstance(item.get(key), str) for key in ("source", "relation", "target")):
            return _short(f"{item['source']} {item['relation']} {item['target']}")
        for key in _LABEL_KEYS:
            value = item.get(key)
            if isinstance(value, str) and value.strip():
                return _short(value)
    return _short(str(item))


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
