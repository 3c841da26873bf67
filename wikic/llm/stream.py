"""A reply as it streams: `TextStream` (its pieces, its text, whether it was cut off), the count of its
tokens as they come, and the `data:` lines of a server-sent event stream."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from wikic.text.tokens import estimate_tokens


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
