"""A prompt counted by the endpoint's own tokenizer, where the server has one to ask.

wikic's offline estimate (`wikic.text.tokens`) is within about 5% of a large BPE vocabulary on English prose,
but a small model's tokenizer splits Markdown, code and links much finer: Qwen2.5's counted 4,166 tokens where
the estimate said 3,161, and with `max_output_tokens = 4096` that prompt no longer fit an 8,192-token context.
Local servers say how their model counts: llama.cpp's server (`POST /tokenize` {"content"} -> {"tokens"}),
vLLM's (`POST /tokenize` {"model", "prompt"} -> {"count"}) and llama-cpp-python's (`POST /extras/tokenize/count`
{"input"} -> {"count"}), each at the server's root beside `/v1`. Which one an endpoint has is found once and
remembered with what else it accepts (`.wikic/llm-endpoints.json`, the `tokenizer` of the endpoint and model):
`none` when it answers none of them (OpenAI, Ollama), so it is never asked again. A server that cannot be
reached, or refuses the key, is not judged: the count is estimated this time and the next run asks again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from wikic.llm.formats import EndpointMemory
from wikic.text.tokens import MESSAGE_OVERHEAD

QUIRK = "tokenizer"
NONE = "none"


def _tokens(data: Any) -> int | None:
    tokens = data.get("tokens") if isinstance(data, dict) else None
    return len(tokens) if isinstance(tokens, list) else None


def _count(data: Any) -> int | None:
    count = data.get("count") if isinstance(data, dict) else None
    return count if type(count) is int and count >= 0 else None


# kind -> (path at the server's root, the request body for (text, model), the count read from the reply)
KINDS: dict[str, tuple[str, Callable[[str, str], dict[str, Any]], Callable[[Any], int | None]]] = {
    "llama.cpp": ("/tokenize", lambda text, model: {"content": text}, _tokens),
    "vllm": ("/tokenize", lambda text, model: {"model": model, "prompt": text}, _count),
    "llama-cpp-python": ("/extras/tokenize/count", lambda text, model: {"input": text, "model": model}, _count),
}


class _Unjudged(Exception):
    """The server could not be asked (unreachable, too slow, the key refused): no verdict on its tokenizer."""


class EndpointTokenizer:
    """Counts text as the endpoint's model does, when its server says how (see the module docstring)."""

    def __init__(self, base_url: str, endpoint: str, model: str, key: str, timeout: float,
                 memory: EndpointMemory) -> None:
        """`base_url`: where requests go (the settings' URL, `/v1` and all); `endpoint`: its name in the memory
        (the URL without its credentials)."""
        self._root = base_url.rstrip("/").removesuffix("/v1")
        self._endpoint, self._model, self._key, self._timeout = endpoint, model, key, timeout
        self._memory = memory
        self._unjudged = False  # the server could not be asked: not again this run

    def count_messages(self, messages: Sequence[Mapping[str, str]]) -> int | None:
        """The prompt tokens of `messages` as the endpoint counts them (their texts, one request, plus the
        chat template's framing of each), or None when it has no tokenizer to ask."""
        counted = self.count("\n".join(m.get("content") or "" for m in messages))
        return None if counted is None else counted + MESSAGE_OVERHEAD * len(messages) + 2

    def count(self, text: str) -> int | None:
        known = self._memory.quirks(self._endpoint, self._model).get(QUIRK)
        if known == NONE or self._unjudged:
            return None
        try:
            if known in KINDS:
                return self._ask(known, text)
            for kind in KINDS:  # first use: the first shape the server answers is its tokenizer
                counted = self._ask(kind, text)
                if counted is not None:
                    self._memory.remember_quirk(self._endpoint, self._model, QUIRK, kind)
                    return counted
        except _Unjudged:
            self._unjudged = True
            return None
        self._memory.remember_quirk(self._endpoint, self._model, QUIRK, NONE)
        return None

    def _ask(self, kind: str, text: str) -> int | None:
        """The count by the tokenizer of `kind`, or None when the server has no such tokenizer."""
        import httpx  # the model client's own HTTP library

        path, body, read = KINDS[kind]
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        limit = 64 * len(text) + (64 << 10)  # bytes: a reply listing every token of `text`, and then some
        deadline = time.monotonic() + self._timeout
        try:
            with httpx.stream("POST", self._root + path, json=body(text, self._model), headers=headers,
                              timeout=self._timeout) as reply:
                if reply.status_code in (401, 403, 429) or reply.status_code >= 502:
                    raise _Unjudged  # the key refused, or the server busy or away: its tokenizer is not judged
                if reply.status_code != 200:
                    return None
                data = bytearray()
                for piece in reply.iter_bytes():
                    data += piece
                    if len(data) > limit:
                        return None  # no tokenizer's reply
                    if time.monotonic() > deadline:
                        raise _Unjudged
        except httpx.HTTPError:
            raise _Unjudged from None
        try:
            return read(json.loads(data))
        except (ValueError, RecursionError):
            return None
