"""A ledger entry's JSON object split as it is read: the keys its row type knows, each holding a value of the
type it wants, and the rest, kept as the file has them (a key of a later version, a value of another type) so
the entry is written back unchanged."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def split_known(value: Mapping[str, Any], wanted: Mapping[str, Callable[[Any], bool]]
                ) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the keys of `wanted` whose value passes its check, every other key) of the JSON object `value`."""
    others = dict(value)
    known = {key: others.pop(key) for key, check in wanted.items() if key in others and check(others[key])}
    return known, others


def is_str(value: Any) -> bool:
    return isinstance(value, str)


def is_int(value: Any) -> bool:
    return type(value) is int  # a JSON true is no count


def is_bool(value: Any) -> bool:
    return type(value) is bool
