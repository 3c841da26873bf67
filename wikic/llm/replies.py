"""What the model replies, read: the reply of a JSON call, the errors of a reply that is no JSON object,
is cut off or loops, and the reading of the JSON object out of the reply's text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from wikic.errors import LLMError
from wikic.text.bounded_json import TooDeep, parse


@dataclass(frozen=True)
class LLMReply:
    data: dict[str, Any]
    prompt_tokens: int
    completion_tokens: int
    cached: bool
    model: str
    raw: str = ""  # the reply text as received (what a re-ask quotes back)


class InvalidReply(LLMError):
    """The model answered, but not with a JSON object. The caller may re-ask once."""

    def __init__(
        self, where: str, problem: str, *, raw: str, prompt_tokens: int = 0, completion_tokens: int = 0
    ) -> None:
        super().__init__(
            f"{where}: {problem}", hint="a larger or instruction-tuned model follows the JSON schema more reliably"
        )
        self.problem = problem  # without the endpoint: this is what a re-ask tells the model
        self.raw = raw
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens


class LoopingReply(InvalidReply):
    """The reply kept repeating the same text (small models loop to their token limit): it was cut off as
    soon as the loop showed, rather than paid for up to `max_tokens`. The caller may re-ask once."""


class TruncatedReply(LLMError):
    """The reply hit `max_tokens` (finish_reason "length"): its JSON is incomplete, so it is not parsed."""

    def __init__(
        self, message: str, *, hint: str | None = None, prompt_tokens: int = 0, completion_tokens: int = 0
    ) -> None:
        super().__init__(message, hint=hint)
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens


_THINK = re.compile(r"^\s*<think>.*?</think>\s*", re.DOTALL)


_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*?)\n\s*```\s*$", re.DOTALL)


class LoopWatch:
    """Tells when streamed text has started to repeat itself: its end is one stretch of 8 to 300 characters
    written out four times or more in a row. Checked every few hundred characters, so it costs little."""

    EVERY = 200
    REPEATS = 4

    def __init__(self) -> None:
        self._tail = ""  # only the end can repeat: the whole reply is never kept here
        self._seen = 0
        self._next_check = self.EVERY

    def feed(self, piece: str) -> bool:
        self._tail = (self._tail + piece)[-_LOOP_WINDOW:]
        self._seen += len(piece)
        if self._seen < self._next_check:
            return False
        self._next_check = self._seen + self.EVERY
        return looping(self._tail, self.REPEATS)


_LOOP_WINDOW = 1500


def looping(text: str, repeats: int = 4) -> bool:
    tail = text[-_LOOP_WINDOW:]
    for period in range(8, min(300, len(tail) // repeats) + 1):
        if tail[-1] != tail[-1 - period]:  # cheap rejection: most periods fail on the last character
            continue
        unit = tail[-period:]
        if len(set(unit)) > 2 and tail.endswith(unit * repeats):  # not a rule of dashes or spaces
            return True
    return False


def parse_json_object(text: str, *, where: str, prompt_tokens: int = 0, completion_tokens: int = 0) -> dict[str, Any]:
    """The JSON object in a reply, tolerating a leading <think> block and a code fence; else InvalidReply."""
    body = _THINK.sub("", text, count=1)
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1)
    if not body.strip():
        raise InvalidReply(
            where, "empty reply", raw=text, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
    try:
        value = parse(body)  # nesting bounded: a reply nested 100,000 deep is invalid, never a RecursionError
    except ValueError as exc:
        problem = str(exc)
        # Prose around an object ("Here is the JSON: {...}") is common without server-side enforcement.
        start, end = body.find("{"), body.rfind("}")
        try:
            value = parse(body[start : end + 1]) if 0 <= start < end else None
        except ValueError as inner:
            value = None
            if isinstance(inner, TooDeep):
                problem = str(inner)  # the object was found: what is wrong with it is the news
        if value is None:
            raise InvalidReply(
                where,
                f"reply is not valid JSON ({problem})",
                raw=text,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
            ) from None
    if not isinstance(value, dict):
        raise InvalidReply(
            where,
            "reply is JSON but not an object",
            raw=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )
    return value
