"""Typed replies: validate against a pydantic model, re-ask once with the error, cache what validated.

Only validated replies are cached, so a bad reply cannot be replayed forever, and a hit is validated again
(one that no longer validates is asked again); a reply obtained by the re-ask is stored under the original
request's key, so the next run gets it for free. With `support`, a reply whose only fault is a list over
its limit is kept within it (`fit.py`) rather than re-asked, and says what it left out.

Each reply is stored with what it cost. A hit on a reply no log.md row has counted yet brings its cost
with it (`Usage.earlier_*`), and the keys of the replies a `Usage` counts are in `Usage.replies`, for the
caller to mark counted once a row has counted them (`ReplyCache.mark_counted`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from wikic.errors import LLMError
from wikic.llm.cache import CachedReply, ReplyCache
from wikic.llm.client import LLM
from wikic.llm.fit import Support, within_limits
from wikic.llm.replies import InvalidReply, LLMReply, TruncatedReply
from wikic.llm.schema import strict_schema

T = TypeVar("T", bound=BaseModel)

# A re-ask quotes the bad reply back; a runaway reply need not be sent in full.
_MAX_QUOTED_REPLY = 6000


@dataclass
class Usage:
    """Tokens spent; thread-safe so parallel chunk calls can add to one total.

    `prompt_tokens` and `completion_tokens` were paid now; `earlier_*` are the cost of cached replies that
    an earlier call paid for and no log.md row has counted yet (`first_paid`: the earliest day of them), and
    `replies` the cache keys of every reply counted here, fresh or not counted before."""

    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    earlier_prompt_tokens: int = 0
    earlier_completion_tokens: int = 0
    first_paid: str = ""
    replies: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, prompt_tokens: int, completion_tokens: int, *, cached: bool = False) -> None:
        with self._lock:
            self.calls += 1
            self.cached_calls += int(cached)
            self.prompt_tokens += prompt_tokens
            self.completion_tokens += completion_tokens

    def add_hit(self, key: str, hit: CachedReply) -> None:
        """A reply from the cache: free now, and its first cost counted here if no row counted it yet."""
        with self._lock:
            self.calls += 1
            self.cached_calls += 1
            if hit.counted:
                return
            self.earlier_prompt_tokens += hit.prompt_tokens
            self.earlier_completion_tokens += hit.completion_tokens
            self.first_paid = min((d for d in (self.first_paid, hit.paid) if d), default="")
            self.replies.append(key)

    def add_reply(self, key: str) -> None:
        """A reply paid for now and stored under `key`."""
        with self._lock:
            self.replies.append(key)

    def merge(self, other: Usage) -> None:
        with self._lock:
            self.calls += other.calls
            self.cached_calls += other.cached_calls
            self.prompt_tokens += other.prompt_tokens
            self.completion_tokens += other.completion_tokens
            self.earlier_prompt_tokens += other.earlier_prompt_tokens
            self.earlier_completion_tokens += other.earlier_completion_tokens
            self.first_paid = min((d for d in (self.first_paid, other.first_paid) if d), default="")
            self.replies += other.replies

    @property
    def counted_prompt_tokens(self) -> int:
        """The prompt tokens a log.md row counts for this: paid now, and paid earlier but not counted yet."""
        return self.prompt_tokens + self.earlier_prompt_tokens

    @property
    def counted_completion_tokens(self) -> int:
        return self.completion_tokens + self.earlier_completion_tokens

    @property
    def earlier_tokens(self) -> int:
        return self.earlier_prompt_tokens + self.earlier_completion_tokens

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class Structured(Generic[T]):
    value: T
    usage: Usage
    cached: bool
    model: str
    left_out: tuple[str, ...] = ()  # items over the schema's list limits not kept ("where: label", `fit.py`)


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
    support: Support | None = None,
) -> Structured[T]:
    """One structured call: `output`-validated value, tokens spent, whether it came from the cache.

    Tokens are added to `usage` when given (also for calls that then fail: they were paid for). `support`
    (how well the reply supports an item of one of its lists): a reply whose only fault is a list over its
    limit keeps its best-supported items (`fit.within_limits`) and is not re-asked.
    Raises LLMError when the endpoint fails, the reply is cut off, or the reply is invalid twice.
    """
    schema = schema if schema is not None else strict_schema(output)
    usage = usage if usage is not None else Usage()
    key = ReplyCache.key(llm.identity, messages, schema_name, schema, max_tokens) if cache is not None else ""
    if cache is not None:
        hit = cache.lookup(key)
        if hit is not None:
            try:
                value = output.model_validate(hit.data)
            except ValidationError:
                pass  # written under an older reply model: ask again and overwrite
            else:
                usage.add_hit(key, hit)
                return Structured(value, usage, True, str(llm.identity.get("model", "")), hit.left_out)

    spent = Usage()  # what this request costs, all attempts: stored with its reply
    try:
        value, reply, left_out = _asked(llm, messages, output, schema_name, schema, max_tokens, spent, on_tokens,
                                        support)
    finally:
        usage.merge(spent)
    if cache is not None:
        cache.put(key, value.model_dump(mode="json"), model=reply.model, schema_name=schema_name,
                  prompt_tokens=spent.prompt_tokens, completion_tokens=spent.completion_tokens, left_out=left_out)
        usage.add_reply(key)
    return Structured(value, usage, False, reply.model, left_out)


def _asked(
    llm: LLM,
    messages: Sequence[Mapping[str, str]],
    output: type[T],
    schema_name: str,
    schema: Mapping[str, Any],
    max_tokens: int,
    usage: Usage,
    on_tokens: Callable[[int], None] | None,
    support: Support | None,
) -> tuple[T, LLMReply, tuple[str, ...]]:
    """The reply validated, asked again once with what was wrong if it was not; the items it left out."""
    outcome = _attempt(llm, messages, output, schema_name, schema, max_tokens, usage, on_tokens, support)
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
        outcome = _attempt(llm, retry, output, schema_name, schema, max_tokens, usage, on_tokens, support)
        if isinstance(outcome, _Rejected):
            raise LLMError(
                f"invalid reply for {schema_name} twice from model {llm.identity.get('model')}: {outcome.problem}",
                hint=(
                    "nothing was written for this source; try a larger model, or re-run (validated replies are cached)"
                ),
            )
    return outcome


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
    support: Support | None = None,
) -> tuple[T, LLMReply, tuple[str, ...]] | _Rejected:
    """(value, reply, items left out) on success, or what was wrong with a reply worth one re-ask."""
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
        return output.model_validate(reply.data), reply, ()
    except ValidationError as exc:
        fitted = within_limits(output, reply.data, exc, support) if support is not None else None
        if fitted is not None:
            return fitted[0], reply, fitted[1]
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
