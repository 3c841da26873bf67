"""Long lists of ids, paths or terms, cut into slices small enough for one SQLite statement or one chromadb
call, so that nothing the palace does depends on how many drawers it holds.

SQLite takes at most 32,766 variables per statement since version 3.32 and 999 before (a build may set
either); chromadb keeps its records in SQLite too, and takes at most `get_max_batch_size()` records per
call (5,461 on an embedded 1.x client).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")

# Variables one statement passes at most: under the oldest SQLite limit.
SQL_VARIABLES = 500


def slices(items: Iterable[T], size: int | None = None) -> Iterator[list[T]]:
    """`items` in order, `size` (default SQL_VARIABLES, read at call time) at a time."""
    step = max(1, size or SQL_VARIABLES)
    seq = list(items)
    for start in range(0, len(seq), step):
        yield seq[start : start + step]
