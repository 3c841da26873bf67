"""A scripted LLM for the tests (and the benchmarks): queue replies, then inspect what was asked.

llm = FakeLLM()
llm.enqueue({"entities": []}, "not json", LLMError("boom"), lambda messages: {...})
...
llm.history[0].messages

`stream_text` takes replies from the same queue: a string is streamed in word-sized pieces, a list or
tuple of strings as those pieces (an exception in the list is raised mid-stream), a function of the
messages returns one of those. `complete_text` takes the same replies and yields them as one piece.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wikic.errors import LLMError
from wikic.llm.replies import LLMReply, parse_json_object
from wikic.llm.stream import TextStream
from wikic.text.tokens import estimate_messages, estimate_tokens

# A reply: a JSON object, raw reply text (may be invalid on purpose), an exception to raise,
# or a function of the messages returning one of those.
Reply = Mapping[str, Any] | str | BaseException | Callable[[list[dict[str, str]]], Any]


@dataclass(frozen=True)
class FakeCall:
    messages: list[dict[str, str]]
    schema_name: str
    schema: Mapping[str, Any]
    max_tokens: int


class FakeLLM:
    def __init__(self, *replies: Reply, model: str = "fake-model", endpoint: str = "fake://llm") -> None:
        self.model = model
        self.endpoint = endpoint
        self.history: list[FakeCall] = []
        self._queue: deque[Reply] = deque(replies)
        self._default: Reply | None = None
        self._lock = threading.Lock()
        self.strategy: str | None = None  # what `remember_strategy` was told (the real client persists it)

    @property
    def identity(self) -> Mapping[str, Any]:
        return {"base_url": self.endpoint, "model": self.model}

    def preferred_strategy(self) -> str | None:
        return self.strategy

    def remember_strategy(self, strategy: str) -> None:
        self.strategy = strategy

    def enqueue(self, *replies: Reply) -> FakeLLM:
        with self._lock:
            self._queue.extend(replies)
        return self

    def respond_with(self, reply: Reply) -> FakeLLM:
        """Used whenever the queue is empty (e.g. a function routing on the request's content)."""
        self._default = reply
        return self

    @property
    def pending(self) -> int:
        return len(self._queue)

    def _next(self, msgs: list[dict[str, str]], schema_name: str, schema: Mapping[str, Any], max_tokens: int) -> Any:
        with self._lock:
            self.history.append(FakeCall(msgs, schema_name, schema, max_tokens))
            if self._queue:
                reply = self._queue.popleft()
            elif self._default is not None:
                reply = self._default
            else:
                raise LLMError(f"FakeLLM: no reply queued for call {len(self.history)} ({schema_name})")
        if callable(reply) and not isinstance(reply, BaseException):
            reply = reply(msgs)
        return reply

    def stream_text(self, messages: Sequence[Mapping[str, str]], *, max_tokens: int) -> TextStream:
        return self._text(messages, max_tokens, "stream_text")

    def complete_text(self, messages: Sequence[Mapping[str, str]], *, max_tokens: int) -> TextStream:
        return self._text(messages, max_tokens, "complete_text")

    def _text(self, messages: Sequence[Mapping[str, str]], max_tokens: int, how: str) -> TextStream:
        msgs = [dict(m) for m in messages]
        reply = self._next(msgs, how, {}, max_tokens)
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, str):
            pieces: list[Any] = [piece for piece in _word_pieces(reply)]
        elif isinstance(reply, (list, tuple)):
            pieces = list(reply)
        else:
            pieces = [json.dumps(reply, ensure_ascii=False)]

        if how == "complete_text":  # the whole answer, or the failure
            failure = next((piece for piece in pieces if isinstance(piece, BaseException)), None)
            pieces = [failure] if failure is not None else ["".join(str(piece) for piece in pieces)]

        def produce(stream: TextStream) -> Iterator[str]:
            for piece in pieces:
                if isinstance(piece, BaseException):
                    raise piece
                yield str(piece)
            stream.finish_reason = "stop"

        return TextStream(produce, model=self.model, prompt_estimate=estimate_messages(msgs))

    def complete_json(
        self,
        messages: Sequence[Mapping[str, str]],
        schema_name: str,
        schema: Mapping[str, Any],
        *,
        max_tokens: int,
        on_tokens: Callable[[int], None] | None = None,
    ) -> LLMReply:
        msgs = [dict(m) for m in messages]
        reply = self._next(msgs, schema_name, schema, max_tokens)
        if isinstance(reply, BaseException):
            raise reply
        text = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
        prompt_tokens, completion_tokens = estimate_messages(msgs), estimate_tokens(text)
        if on_tokens is not None:
            on_tokens(completion_tokens)
        data = parse_json_object(
            text, where=f"FakeLLM ({self.model})", prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
        return LLMReply(data, prompt_tokens, completion_tokens, False, self.model, text)


def _word_pieces(text: str) -> Iterator[str]:
    """`text` cut after each space, as a server streams it (the pieces join back to `text`)."""
    start = 0
    for i, ch in enumerate(text):
        if ch == " ":
            yield text[start : i + 1]
            start = i + 1
    if start < len(text):
        yield text[start:]
