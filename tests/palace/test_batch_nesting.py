"""`wikic search --batch`: a line nested 100,000 levels deep is a line that is not JSON (a usage error naming
it), never a RecursionError."""

from __future__ import annotations

from typing import Any, cast

import pytest

from wikic.errors import UsageError
from wikic.palace.batch import search_batch


def test_a_deeply_nested_batch_line_is_no_json() -> None:
    lines = ["[" * 100_000 + "]" * 100_000]
    with pytest.raises(UsageError, match="batch line 1 is not JSON: nested deeper than"):
        list(search_batch(cast(Any, None), lines))  # refused before the palace is searched
