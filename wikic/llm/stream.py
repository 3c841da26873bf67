"""A reply as it streams: `TextStream` (its pieces, its text, whether it was cut off), the count of its
tokens as they come, the bounds it is read within (`ReplyBound`), and the `data:` lines of a server-sent
event stream."""

from __future__ import annotations

import codecs
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from wikic.errors import LLMError
from wikic.llm.replies import InvalidReply
from wikic.settings import LLMSettings
from wikic.text.archive import size_text
from wikic.text.tokens import estimate_tokens

# What one reply may be, read: a server stops at the `max_tokens` asked for, and the estimate may count a few
# more than its tokenizer (CJK up to about 1.9 times), so a reply is cut off past twice that and some slack...
REPLY_TOKENS_PER_TOKEN_ASKED = 2
REPLY_TOKENS_SLACK = 1000
# ...and past this many bytes a token read of its body (events, JSON framing, usage): a streamed event of one
# token is about 200 bytes, a whole reply a few bytes a token.
REPLY_BYTES_PER_TOKEN = 1024
# `[llm] deadline`, unset: `[llm] timeout` for the prompt, then a model writing two tokens a second or faster.
SECONDS_PER_TOKEN_ASKED = 0.5
# The fields of a reply's message (or a streamed delta) that hold what the model wrote: its answer and a
# thinking model's reasoning, both counted by the server against `max_tokens`.
WRITTEN_FIELDS = ("content", "reasoning_content", "reasoning")


def reply_deadline(settings: LLMSettings, max_tokens: int) -> float:
    """Seconds one request for at most `max_tokens` may take in all: `[llm] deadline`, else `[llm] timeout`
    plus `SECONDS_PER_TOKEN_ASKED` a token (2,168 s for 4,096 tokens at the defaults)."""
    if settings.deadline is not None:
        return settings.deadline
    return settings.timeout + SECONDS_PER_TOKEN_ASKED * max_tokens


class RunawayReply(InvalidReply):
    """The reply went on far past the `max_tokens` asked for (a server that ignores it, or one that never
    ends): it was cut off there. The caller may re-ask once, as for any reply that is no JSON object."""


class TextStream:
    """The pieces of a streamed text reply, in order; usage and finish reason are known once it is exhausted.

    `prompt_tokens`/`completion_tokens` are the server's figures when it reported usage, otherwise
    estimates (`usage_estimated` is then True). Iterating twice yields nothing the second time.
    """

    def __init__(self, pieces: Callable[[TextStream], Iterator[str]], *, model: str, prompt_estimate: int) -> None:
        self.model = model
        self.prompt_tokens = prompt_estimate
        self.completion_tokens = 0
        self.usage_estimated = True
        self.finish_reason: str | None = None
        self.done = False
        self._parts: list[str] = []
        self._pieces = pieces(self)

    def __iter__(self) -> TextStream:
        return self

    def __next__(self) -> str:
        try:
            piece = next(self._pieces)
        except StopIteration:
            if not self.done:
                self.done = True
                if self.usage_estimated:
                    self.completion_tokens = estimate_tokens(self.text)
            raise
        self._parts.append(piece)
        return piece

    def close(self) -> None:
        """Stop early (the connection is released); usage then stays an estimate."""
        close = getattr(self._pieces, "close", None)
        if close is not None:
            close()

    @property
    def text(self) -> str:
        return "".join(self._parts)

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


class TokenCount:
    """Tells `on_tokens` of reply tokens as they arrive, a few hundred characters at a time: estimating
    every streamed piece (often a single token) on its own cost more than parsing it."""

    EVERY = 200

    def __init__(self, on_tokens: Callable[[int], None] | None) -> None:
        self._on_tokens = on_tokens
        self._pending: list[str] = []
        self._size = 0

    def feed(self, piece: str) -> None:
        if self._on_tokens is None:
            return
        self._pending.append(piece)
        self._size += len(piece)
        if self._size >= self.EVERY:
            self.flush()

    def flush(self) -> None:
        if self._on_tokens is not None and self._pending:
            self._on_tokens(estimate_tokens("".join(self._pending)))
            self._pending, self._size = [], 0


class ReplyBound:
    """The bounds one reply is read within, from before its request is sent: a wall-clock deadline (a server
    sending keep-alive comments, or a byte now and then, is never silent for `[llm] timeout`), the tokens the
    model writes, and the bytes of the body. Past any of them reading stops with an LLMError: `RunawayReply`
    for a reply too long, a plain one for the deadline (asking again would wait as long). The deadline is
    checked as data arrives, so a silent server is still given up by `[llm] timeout` after it at most."""

    def __init__(
        self, where: str, *, max_tokens: int, deadline: float, prompt_tokens: int = 0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.where = where
        self.max_tokens = max_tokens
        self.token_cap = REPLY_TOKENS_PER_TOKEN_ASKED * max_tokens + REPLY_TOKENS_SLACK
        self.byte_cap = REPLY_BYTES_PER_TOKEN * self.token_cap
        self.deadline = deadline
        self.prompt_tokens = prompt_tokens
        self.bytes = 0
        self.tokens = 0
        self._clock = clock
        self._ends = clock() + deadline
        self._pending: list[str] = []  # written text not counted yet: estimated a few hundred characters at a time
        self._pending_size = 0
        self._tail = ""  # the end of what was written, for the error (a re-ask quotes it back)

    def chunks(self, raw: Iterable[bytes]) -> Iterator[bytes]:
        """The body's bytes as they arrive, within the deadline and the bytes bound."""
        for chunk in raw:
            self.bytes += len(chunk)
            if self._clock() > self._ends:
                raise LLMError(
                    f"{self.where}: no reply within {self.deadline:g} s",
                    hint="raise [llm] deadline in wikic.toml for a model this slow, or check the server",
                )
            if self.bytes > self.byte_cap:
                raise self._runaway(f"went on past {size_text(self.byte_cap)} of data")
            yield chunk

    def body(self, raw: Iterable[bytes]) -> bytes:
        """A whole (not streamed) reply's body, read a piece at a time within the bounds."""
        return b"".join(self.chunks(raw))

    def lines(self, raw: Iterable[bytes]) -> Iterator[str]:
        """The lines of a server-sent event stream (UTF-8; a line ends at CR LF, LF or CR), within the bounds."""
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        line: list[str] = []  # the line so far, when it spans chunks
        after_cr = False  # the last chunk ended in CR: a LF opening the next one ends nothing more
        for chunk in self.chunks(raw):
            text = decoder.decode(chunk)
            if after_cr and text.startswith("\n"):
                text = text[1:]
            if not text:
                continue
            after_cr = text.endswith("\r")
            *ended, rest = _LINE_END.split(text)
            if ended:
                yield "".join(line) + ended[0]
                yield from ended[1:]
                line = []
            if rest:
                line.append(rest)
        rest = "".join(line) + decoder.decode(b"", final=True)
        if rest:
            yield rest

    def count(self, written: Mapping[str, Any]) -> None:
        """Count what a streamed delta (or a whole reply's message) holds that the model wrote."""
        for field in WRITTEN_FIELDS:
            text = written.get(field)
            if isinstance(text, str) and text:
                self._pending.append(text)
                self._pending_size += len(text)
                if self._pending_size >= TokenCount.EVERY:
                    self.flush()

    def flush(self) -> None:
        if self._pending:
            text = "".join(self._pending)
            self._pending, self._pending_size = [], 0
            self.tokens += estimate_tokens(text)
            self._tail = (self._tail + text)[-2000:]
            if self.tokens > self.token_cap:
                raise self._runaway(f"went on past {self.token_cap:,} tokens")

    def _runaway(self, how: str) -> RunawayReply:
        return RunawayReply(
            self.where,
            f"the model's reply {how} (max_tokens {self.max_tokens:,}) and was cut off",
            raw=self._tail,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.tokens,
        )


_LINE_END = re.compile(r"\r\n|\r|\n")


def sse_data(lines: Iterable[str]) -> Iterator[str]:
    """The data of each server-sent event (its `data:` lines joined by newlines); comments, other fields
    and events without data are skipped. As the SSE standard says, an event the stream ends in the middle
    of (no blank line after it) is dropped: the reply then lacks its finish reason, and says so."""
    data: list[str] = []
    for line in lines:
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        field, _, value = line.partition(":")
        if field == "data":
            data.append(value[1:] if value.startswith(" ") else value)
