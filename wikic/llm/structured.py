"""Typed replies: validate against a pydantic model, re-ask once with the error, cache what validated.

Only validated replies are cached, so a bad reply cannot be replayed forever; a reply obtained by the
re-ask is stored under the original request's key, so the next run gets it for free.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from wikic.errors import LLMError
from wikic.llm.cache import ReplyCache
from wikic.llm.client import LLM
from wikic.llm.replies import InvalidReply, LLMReply, TruncatedReply
from wikic.llm.schema import strict_schema

T = TypeVar("T", bound=BaseModel)

# A re-ask quotes the bad reply back; a runaway reply need not be sent in full.
_MAX_QUOTED_REPLY = 6000


@dataclass
class Usage:
    """Tokens spent; thread-safe so parallel chunk calls can add to one total."""

    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, prompt_tokens: int, completion_tokens: int, *, cached: bool = False) -> None:
        with self._lock:
            self.calls += 1
            self.cached_calls += int(cached)
            self.prompt_tokens += prompt_tokens
            self.completion_tokens += completion_tokens

    def merge(self, other: Usage) -> None:
        with self._lock:
            self.calls += other.calls
            self.cached_calls += other.cached_calls
            self.prompt_tokens += other.prompt_tokens
            self.completion_tokens += other.completion_tokens

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class Structured(Generic[T]):
    value: T
    usage: Usage
    cached: bool
    model: str


def ask(
    llm: LLM,
    messages: Sequence[Mapping[str, str]],
    output: type[T],
    *,
    schema_name: str,
    max_tokens: int,
    cache: ReplyCache | None = None,
    schema: Mapping[str, Any] | None = None,
    usage: Usage | None = None,
    on_tokens: Callable[[int], None] | None = None,
) -> Structured[T]:
    """One structured call: `output`-validated value, tokens spent, whether it came from the cache.

    Tokens are added to `usage` when given (also for calls that then fail: they were paid for).
    Raises LLMError when the endpoint fails, the reply is cut off, or the reply is invalid twice.
    """
    schema = schema if schema is not None else strict_schema(output)
    usage = usage if usage is not None else Usage()
    key = ReplyCache.key(llm.identity, messages, schema_name, schema, max_tokens) if cache is not None else ""
    if cache is not None:
        hit = cache.get(key)
        if hit is not None:
            try:
                value = output.model_validate(hit)
            except ValidationError:
                pass  # written under an older reply model: ask again and overwrite
            else:
                usage.add(0, 0, cached=True)
                return Structured(value, usage, True, str(llm.identity.get("model", "")))

    outcome = _attempt(llm, messages, output, schema_name, schema, max_tokens, usage, on_tokens)
    if isinstance(outcome, _Rejected):
        retry = [
            *messages,
            {"role": "assistant", "content": outcome.text[:_MAX_QUOTED_REPLY]},
            {
                "role": "user",
                "content": (
                    f"That reply was not valid: {outcome.problem}\n"
                    "Reply again with only one JSON object that matches the schema exactly."
                ),
            },
        ]
        outcome = _attempt(llm, retry, output, schema_name, schema, max_tokens, usage, on_tokens)
        if isinstance(outcome, _Rejected):
            raise LLMError(
                f"invalid reply for {schema_name} twice from model {llm.identity.get('model')}: {outcome.problem}",
                hint=(
                    "nothing was written for this source; try a larger model, or re-run (validated replies are cached)"
                ),
            )
    value, reply = outcome
    if cache is not None:
        cache.put(key, value.model_dump(mode="json"), model=reply.model, schema_name=schema_name)
    return Structured(value, usage, False, reply.model)


@dataclass(frozen=True)
class _Rejected:
    problem: str  # what was wrong, in words the model can act on
    text: str  # the reply as received


def _attempt(
    llm: LLM,
    messages: Sequence[Mapping[str, str]],
    output: type[T],
    schema_name: str,
    schema: Mapping[str, Any],
    max_tokens: int,
    usage: Usage,
    on_tokens: Callable[[int], None] | None = None,
) -> tuple[T, LLMReply] | _Rejected:
    """(value, reply) on success, or what was wrong with a reply worth one re-ask."""
    try:
        reply = llm.complete_json(messages, schema_name, schema, max_tokens=max_tokens, on_tokens=on_tokens)
    except InvalidReply as exc:
        usage.add(exc.prompt_tokens, exc.completion_tokens)
        return _Rejected(exc.problem, exc.raw)
    except TruncatedReply as exc:
        usage.add(exc.prompt_tokens, exc.completion_tokens)
        raise
    usage.add(reply.prompt_tokens, reply.completion_tokens)
    try:
        return output.model_validate(reply.data), reply
    except ValidationError as exc:
        return _Rejected(render_validation_error(exc), reply.raw or _dump(reply.data))


def render_validation_error(exc: ValidationError, limit: int = 8) -> str:
    """A compact, model-readable list of what was wrong (first `limit` problems)."""
    parts = []
    for err in exc.errors()[:limit]:
        where = ".".join(str(p) for p in err["loc"]) or "(root)"
        parts.append(f"{where}: {err['msg']}")
    more = len(exc.errors()) - limit
    if more > 0:
        parts.append(f"... and {more} more")
    return "; ".join(parts)


def _dump(data: Mapping[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False)
