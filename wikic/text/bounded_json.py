"""JSON that someone else wrote (a chat export, a hook's payload, a model's reply), read with its nesting
bounded.

`json.loads` parses nested arrays and objects by recursion, so text nested a thousand levels deep (two
thousand bytes of brackets) ends in a RecursionError, and a value just shallow enough to parse can still
end so in the first code that walks it. `parse` reads it as a `TooDeep` error instead (a ValueError, like
any other text that is not JSON) whatever the stack its caller runs on, and the value it returns nests at
most MAX_DEPTH levels: deep enough for every format wikic reads, shallow enough to walk recursively.
"""

from __future__ import annotations

import json
from typing import Any

# No export or reply nests more than a few dozen levels; Python's parser (and any code that walks the value)
# runs out of stack near a thousand, so the limit sits well below that, whatever the caller's own depth.
MAX_DEPTH = 200
_DECODER = json.JSONDecoder()


class TooDeep(ValueError):
    """JSON that wikic does not read although it is valid: nested deeper than MAX_DEPTH levels, or holding
    a number longer than Python converts (4,300 digits)."""

    def __init__(self, what: str = f"nested deeper than {MAX_DEPTH} levels") -> None:
        super().__init__(what)


def parse(text: str) -> Any:
    """The JSON value of `text`: json.JSONDecodeError when it is not JSON, TooDeep when it nests deeper
    than MAX_DEPTH levels (both ValueErrors)."""
    return raw_decode(_DECODER, text, 0, whole=True)[0]


def raw_decode(decoder: json.JSONDecoder, text: str, pos: int, *, whole: bool = False) -> tuple[Any, int]:
    """`decoder.raw_decode(text, pos)` with the nesting bounded (`whole`: nothing but whitespace may follow,
    as `json.loads` requires)."""
    try:
        value, end = decoder.raw_decode(text, pos) if not whole else (decoder.decode(text), len(text))
    except RecursionError:
        raise TooDeep() from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer of more digits than int() converts
        raise TooDeep("holding a number too long to read") from None
    _check_depth(value, text, pos, end)
    return value, end


def _check_depth(value: Any, text: str, start: int, end: int) -> None:
    """TooDeep when `value` (parsed from text[start:end]) nests deeper than MAX_DEPTH. A text with fewer
    brackets than that cannot; otherwise the containers are walked (a stack, not recursion), which costs a
    fraction of the parse."""
    if not isinstance(value, dict | list) or text.count("[", start, end) + text.count("{", start, end) <= MAX_DEPTH:
        return
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        for child in children:
            if isinstance(child, dict | list):
                if depth >= MAX_DEPTH:
                    raise TooDeep()
                stack.append((child, depth + 1))
