"""The LLM as an injected dependency: a small Protocol, and the one real implementation over `openai`
(what it streams: `stream.py`; what it replies, read: `replies.py`).

`complete_json` returns a JSON object; it does not know the reply's pydantic model. Validation, the one
re-ask and the reply cache live in `wikic.llm.structured`, so they work the same over any LLM (the tests' scripted
one too).
"""

from __future__ import annotations

import codecs
import functools
import importlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from wikic.errors import ConfigError, LLMError, StreamCut, require_extra
from wikic.llm.formats import EndpointMemory, Mode, next_mode, param_quirk, request_format
from wikic.llm.replies import InvalidReply, LLMReply, LoopingReply, LoopWatch, TruncatedReply, parse_json_object
from wikic.llm.stream import ReplyBound, TextStream, TokenCount, reply_deadline, sse_data
from wikic.redact import MASK, Redactor, without_credentials
from wikic.settings import OPENAI_DEFAULT_BASE_URL, LLMSettings
from wikic.text.tokens import estimate_messages, estimate_tokens

if TYPE_CHECKING:  # the SDK takes most of a second to import: each method that needs it imports it
    import openai

    from wikic.llm.tokenizer import EndpointTokenizer

Message = Mapping[str, str]

# The SDK insists on a key; keyless local servers (Ollama, llama.cpp, vLLM) ignore this one.
PLACEHOLDER_KEY = "not-needed"


class LLM(Protocol):
    @property
    def identity(self) -> Mapping[str, Any]:
        """What makes replies differ besides the request (endpoint, model, sampling): part of cache keys."""
        ...

    def complete_json(
        self,
        messages: Sequence[Message],
        schema_name: str,
        schema: Mapping[str, Any],
        *,
        max_tokens: int,
        on_tokens: Callable[[int], None] | None = None,
    ) -> LLMReply:
        """One JSON reply. `on_tokens(n)` is told of `n` more reply tokens as they arrive (streamed replies)."""
        ...


class StreamingLLM(LLM, Protocol):
    """An LLM that can also answer in plain text: streamed (shown as it is written) or in one piece."""

    def stream_text(self, messages: Sequence[Message], *, max_tokens: int) -> TextStream: ...

    def complete_text(self, messages: Sequence[Message], *, max_tokens: int) -> TextStream: ...


class OpenAICompatible:
    """Any OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, llama.cpp, LM Studio...)."""

    def __init__(self, settings: LLMSettings, *, state_dir: Path | None = None) -> None:
        if not settings.model:
            raise ConfigError(
                "no LLM model configured",
                hint="set [llm] model in wikic.toml, WIKIC_LLM_MODEL, or pass --model",
            )
        # ConfigError, before any request, when the key may not go where the vault's wikic.toml points
        self._key = settings.sendable_key() or ""
        if not self._key and settings.endpoint == OPENAI_DEFAULT_BASE_URL:
            raise ConfigError(
                f"no API key for {settings.endpoint}",
                hint="set WIKIC_LLM_API_KEY (or OPENAI_API_KEY), or point [llm] base_url at a local server",
            )
        require_extra("llm")
        import openai

        self.settings = settings
        # What messages, cache keys and the endpoint memory name: the URL without its credentials, if any.
        self.endpoint = without_credentials(settings.endpoint)
        self.model: str = settings.model
        self._redact = Redactor([self._key], urls=[settings.endpoint])
        self._memory = EndpointMemory(state_dir)
        self._tokenizer: EndpointTokenizer | None = None
        timeouts, transport_errors = http_stack()
        # what reading a stream may raise, besides what the SDK raises
        self._stream_timeouts: tuple[type[Exception], ...] = (openai.APITimeoutError, *timeouts)
        self._stream_errors: tuple[type[Exception], ...] = (openai.APIError, *transport_errors)
        self._client = openai.OpenAI(
            base_url=settings.endpoint,
            api_key=self._key or PLACEHOLDER_KEY,
            timeout=settings.timeout,
            max_retries=settings.max_retries,
        )
        # The SDK imports its chat resource on first use: here, in the thread that builds the client, not in
        # the first worker to call it while the others are building their requests (see http_stack).
        self._client.chat.completions  # noqa: B018 - the attribute is read for the import it triggers

    def __repr__(self) -> str:
        return f"OpenAICompatible(endpoint={self.endpoint!r}, model={self.model!r})"

    @property
    def identity(self) -> Mapping[str, Any]:
        return {
            "base_url": self.endpoint,
            "model": self.model,
            "temperature": self.settings.temperature,
            "extra_body": self.settings.extra_body,
        }

    @property
    def response_mode(self) -> Mode:
        """How this endpoint is currently asked for JSON (see wikic.llm.formats)."""
        return self._memory.get(self.endpoint)

    def close(self) -> None:
        self._client.close()

    def preferred_strategy(self) -> str | None:
        """The extraction strategy this endpoint and model answered best with (see wikic.ingest.extract)."""
        return self._memory.quirks(self.endpoint, self.model).get("strategy")

    def remember_strategy(self, strategy: str) -> None:
        self._memory.remember_quirk(self.endpoint, self.model, "strategy", strategy)

    def count_tokens(self, messages: Sequence[Message]) -> int | None:
        """The prompt tokens of `messages` as this endpoint's model counts them, when its server has a tokenizer
        to ask (see wikic.llm.tokenizer); None otherwise."""
        from wikic.llm.tokenizer import EndpointTokenizer

        if self._tokenizer is None:
            self._tokenizer = EndpointTokenizer(self.settings.endpoint, self.endpoint, self.model, self._key,
                                                self.settings.timeout, self._memory)
        return self._tokenizer.count_messages(messages)

    @property
    def serial(self) -> bool:
        """This endpoint cuts a streaming reply short when another request arrives (see StreamCut)."""
        return self._memory.quirks(self.endpoint, self.model).get("requests") == "one at a time"

    def remember_serial(self) -> None:
        self._memory.remember_quirk(self.endpoint, self.model, "requests", "one at a time")

    def complete_json(
        self,
        messages: Sequence[Message],
        schema_name: str,
        schema: Mapping[str, Any],
        *,
        max_tokens: int,
        on_tokens: Callable[[int], None] | None = None,
    ) -> LLMReply:
        """The reply is streamed: `[llm] timeout` is then how long the server may stay silent, not how long a
        slow model may take to write (the whole request has `[llm] deadline`, see `stream.ReplyBound`),
        progress is reported as tokens arrive, and a reply that loops is cut off early (LoopingReply), one that
        runs on past twice `max_tokens` there (RunawayReply)."""
        import openai

        mode = self._memory.get(self.endpoint)
        while True:
            try:
                reply = self._call(mode, messages, schema_name, schema, max_tokens, on_tokens)
            except openai.APIStatusError as exc:
                text = self._error_text(exc)
                quirk = param_quirk(exc.status_code, text)
                if quirk is not None and self._memory.quirks(self.endpoint, self.model).get(quirk[0]) != quirk[1]:
                    self._memory.remember_quirk(self.endpoint, self.model, *quirk)
                    continue
                fallback = next_mode(mode, exc.status_code, text)
                if fallback is None:
                    raise self._status_error(exc) from None
                mode = fallback
                continue
            except (InvalidReply, TruncatedReply):
                # The server accepted the request format; what failed is the model's answer.
                self._memory.remember(self.endpoint, mode)
                raise
            # Remember only a mode that worked, so one odd error cannot demote an endpoint for good.
            self._memory.remember(self.endpoint, mode)
            return reply

    def stream_text(self, messages: Sequence[Message], *, max_tokens: int) -> TextStream:
        """A plain-text chat completion, streamed. The request is made (and its errors raised) here, before the
        first piece; errors while reading the stream are raised by the iteration, as LLMError.

        Usage comes from `stream_options={"include_usage": true}`; servers that reject that parameter are
        asked again without it (remembered per endpoint and model), and usage is then estimated. A server
        that ignores `stream: true` and answers with one JSON completion (some proxies and small servers do)
        is read as such: the whole answer is then one piece.
        """
        return self._text(messages, max_tokens, stream=True)

    def complete_text(self, messages: Sequence[Message], *, max_tokens: int) -> TextStream:
        """The same plain-text completion, asked for in one piece (`stream: false`), for callers that show
        nothing while it is written; iterating the result yields the whole answer at once."""
        return self._text(messages, max_tokens, stream=False)

    def _text(self, messages: Sequence[Message], max_tokens: int, *, stream: bool) -> TextStream:
        return self._open([dict(m) for m in messages], max_tokens, stream=stream)

    def _open(
        self, msgs: list[dict[str, str]], max_tokens: int, *, stream: bool, response_format: Any = None
    ) -> TextStream:
        """Make the request (its errors are raised here, as LLMError, except a status error of a JSON request,
        which the caller may answer with another response format); the reply is read by iterating."""
        import openai

        while True:
            quirks = self._memory.quirks(self.endpoint, self.model)
            params: dict[str, Any] = {quirks.get("token_param", "max_tokens"): max_tokens}
            if quirks.get("temperature") != "omit":
                params["temperature"] = self.settings.temperature
            if stream and quirks.get("stream_options") != "omit":
                params["stream_options"] = {"include_usage": True}
            prompt_estimate = estimate_messages(msgs)
            bound = ReplyBound(self._where(), max_tokens=max_tokens, prompt_tokens=prompt_estimate,
                               deadline=reply_deadline(self.settings, max_tokens))
            try:
                # The raw response shows its content type: whether the server streamed at all. Its body is
                # not read yet, streamed or not: `_pieces` reads it within `bound`, and closes it.
                if response_format is not None:
                    params["response_format"] = response_format
                response = self._client.chat.completions.with_streaming_response.create(
                    model=self.model,
                    messages=msgs,  # type: ignore[arg-type]
                    stream=stream,
                    extra_body=self.settings.extra_body or None,
                    **params,
                ).__enter__()
            except openai.APIStatusError as exc:
                text = self._error_text(exc)
                quirk = param_quirk(exc.status_code, text) or _stream_options_quirk(exc.status_code, text, params)
                if quirk is not None and quirks.get(quirk[0]) != quirk[1]:
                    self._memory.remember_quirk(self.endpoint, self.model, *quirk)
                    continue
                if response_format is not None:
                    raise  # the caller may fall back to another response format
                raise self._status_error(exc) from None
            except openai.APITimeoutError:
                raise self._timeout_error() from None
            except openai.APIConnectionError as exc:
                raise self._connection_error(exc) from None
            except openai.APIError as exc:  # any other refusal of the SDK's, worded without a secret
                raise LLMError(f"{self._where()}: {_short(self._redact(str(exc) or type(exc).__name__))}") from None
            return TextStream(
                functools.partial(self._pieces, response=response, streamed=stream, bound=bound),
                model=self.model,
                prompt_estimate=prompt_estimate,
            )

    def _pieces(self, stream: TextStream, response: Any, *, streamed: bool, bound: ReplyBound) -> Iterator[str]:
        import openai

        held = ""  # the end of the answer so far, while it could be the start of the API key
        content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        http = response.http_response
        try:
            if not streamed or content_type.endswith("json"):
                # one chat completion: asked for so, or a server that ignores `stream: true`
                yield from self._whole(stream, bound.body(http.iter_bytes()), bound)
                return
            # The events are read as plain JSON, not through the SDK's typed chunks: building a model object
            # for each of thousands of small pieces cost more CPU than everything else a reply needs.
            for data in sse_data(bound.lines(http.iter_bytes())):
                if data.startswith("[DONE]"):
                    break
                chunk = json.loads(data)
                if not isinstance(chunk, dict):
                    continue
                if chunk.get("error"):
                    raise LLMError(
                        f"{self._where()}: the server reported an error mid-answer "
                        f"({_short(self._redact(json.dumps(chunk['error'], default=str)))})",
                        hint="retry; if it keeps happening, check the server's logs",
                    )
                self._take(stream, chunk)
                for choice in chunk.get("choices") or ():
                    if not isinstance(choice, dict):
                        continue
                    if choice.get("finish_reason"):
                        stream.finish_reason = choice["finish_reason"]
                    # Thinking models stream their reasoning in `reasoning_content`; only `content` is the answer.
                    delta = choice.get("delta")
                    if isinstance(delta, dict):
                        bound.count(delta)
                    piece = delta.get("content") if isinstance(delta, dict) else None
                    if isinstance(piece, str) and piece:
                        held, piece = self._release(held + piece)
                        if piece:
                            yield piece
            if held:
                yield held
            if stream.finish_reason is None:
                # Every server sends a finish reason last; without one the connection dropped mid-answer.
                raise StreamCut(
                    f"{self._where()}: the stream ended before the model finished (connection dropped?)",
                    hint="retry; if it keeps happening, check the server's logs",
                )
        except openai.APIStatusError as exc:
            raise self._status_error(exc) from None
        except self._stream_timeouts:
            raise self._timeout_error() from None
        except self._stream_errors as exc:
            raise LLMError(
                f"{self._where()}: the stream broke off ({_short(self._redact(str(exc) or type(exc).__name__))})",
                hint="retry; if it keeps happening, check the server's logs",
            ) from None
        except (OSError, ValueError) as exc:  # a dropped connection or an unparsable event
            raise LLMError(f"{self._where()}: the stream broke off ({_short(self._redact(str(exc)))})") from None
        finally:
            http.close()

    @staticmethod
    def _take(stream: TextStream, chunk: dict[str, Any]) -> None:
        """The model name and the usage a streamed chunk carries."""
        if isinstance(chunk.get("model"), str) and chunk["model"]:
            stream.model = chunk["model"]
        usage = chunk.get("usage")
        if isinstance(usage, dict) and isinstance(usage.get("prompt_tokens"), int):
            stream.prompt_tokens = usage["prompt_tokens"]
            stream.completion_tokens = usage.get("completion_tokens") or 0
            stream.usage_estimated = False

    def _whole(self, stream: TextStream, body: bytes, bound: ReplyBound) -> Iterator[str]:
        """The answer of one (not streamed) chat completion body, as a single piece."""
        data = json.loads(body)
        choices = data.get("choices") if isinstance(data, dict) else None
        choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
        message = choice.get("message")
        if not isinstance(message, dict):
            raise LLMError(
                (
                    f"{self._where()}: the reply is not a chat completion "
                    f"({_short(self._redact(body.decode('utf-8', 'replace')))})"
                ),
                hint="check that [llm] base_url points at an OpenAI-compatible /v1 endpoint",
            )
        bound.count(message)
        bound.flush()
        self._take(stream, data)
        # A whole reply is complete: a server that leaves out the finish reason has still finished.
        stream.finish_reason = choice.get("finish_reason") or "stop"
        content = message.get("content")  # thinking models put their reasoning in `reasoning_content`
        if isinstance(content, str) and content:
            yield self._scrub(content)

    def _timeout_error(self) -> LLMError:
        return LLMError(
            f"{self._where()}: the server was silent for {self.settings.timeout:g} s "
            f"(after {self.settings.max_retries} retries)",
            hint="raise [llm] timeout in wikic.toml, or check that the server is not overloaded",
        )

    def _connection_error(self, exc: openai.APIConnectionError) -> LLMError:
        cause = exc.__cause__ or exc
        if isinstance(cause, ConnectionRefusedError) or "refused" in str(cause).lower():
            hint = f"nothing answers at {self.endpoint}: is the server running, and is [llm] base_url right?"
        else:
            hint = f"check that {self.endpoint} is reachable from here and that [llm] base_url is right"
        return LLMError(f"{self._where()}: cannot connect ({_short(self._redact(str(cause)))})", hint=hint)

    def _call(
        self,
        mode: Mode,
        messages: Sequence[Message],
        schema_name: str,
        schema: Mapping[str, Any],
        max_tokens: int,
        on_tokens: Callable[[int], None] | None = None,
    ) -> LLMReply:
        import openai

        response_format, msgs = request_format(mode, messages, schema_name, schema)
        stream = self._open([dict(m) for m in msgs], max_tokens, stream=True, response_format=response_format)
        loop = LoopWatch()
        counted = TokenCount(on_tokens)
        try:
            for piece in stream:
                counted.feed(piece)
                if loop.feed(piece):
                    stream.close()
                    raise LoopingReply(
                        self._where(),
                        f"the reply kept repeating itself and was cut off after {len(stream.text):,} characters",
                        raw=stream.text[-2000:],
                        prompt_tokens=stream.prompt_tokens,
                        completion_tokens=estimate_tokens(stream.text),
                    )
        except openai.APITimeoutError:
            raise self._timeout_error() from None
        counted.flush()
        text = stream.text
        if stream.truncated:
            raise TruncatedReply(
                f"{self._where()}: the reply was cut off at max_tokens={max_tokens} (finish_reason 'length')",
                hint="raise [llm] max_output_tokens, or lower [ingest] chunk_tokens so each reply is smaller",
                prompt_tokens=stream.prompt_tokens,
                completion_tokens=stream.completion_tokens,
            )
        data = parse_json_object(
            text, where=self._where(), prompt_tokens=stream.prompt_tokens, completion_tokens=stream.completion_tokens
        )
        return LLMReply(data, stream.prompt_tokens, stream.completion_tokens, False, stream.model or self.model, text)

    def _where(self) -> str:
        return f"LLM {self.endpoint} (model {self.model})"

    def _scrub(self, text: str) -> str:
        """A reply's text without the key, should the server echo it (errors go through `_redact`, which
        also finds the key escaped or encoded, and the URL's credentials)."""
        return text.replace(self._key, MASK) if self._key else text

    def _release(self, text: str) -> tuple[str, str]:
        """(held back, safe to show) of streamed text: the key scrubbed, and a tail that could be the start
        of the key (cut across pieces) held until the next piece tells."""
        text = self._scrub(text)
        for size in range(min(len(self._key) - 1, len(text)), 0, -1):
            if text.endswith(self._key[:size]):
                return text[-size:], text[:-size]
        return "", text

    def _error_text(self, exc: openai.APIStatusError) -> str:
        body = exc.body if exc.body is not None else ""
        return self._redact(f"{exc.message} {json.dumps(body, default=str) if not isinstance(body, str) else body}")

    def _status_error(self, exc: openai.APIStatusError) -> LLMError:
        status = exc.status_code
        detail = _short(self._redact(_server_message(exc)))
        withheld = self.settings.key_withheld
        hints = {
            401: withheld.unauthorized() if withheld is not None else "check WIKIC_LLM_API_KEY (or OPENAI_API_KEY)",
            403: "check the key's permissions for this model",
            404: _not_found_hint(self.endpoint, self.model),
            429: "rate limited: lower [llm] concurrency or raise [llm] max_retries",
        }
        hint = hints.get(status, "a server error: retry later, or raise [llm] max_retries" if status >= 500 else None)
        retried = f" after {self.settings.max_retries} retries" if status == 429 or status >= 500 else ""
        return LLMError(f"{self._where()}: HTTP {status}{retried}: {detail}", hint=hint)


def http_stack() -> tuple[tuple[type[Exception], ...], tuple[type[Exception], ...]]:
    """Import what a request and its reply need, and return the (timeouts, other transport errors) of the
    HTTP libraries a streamed reply may be read with: httpx2 (today's SDK) and httpx (older ones), those
    that are installed.

    Called when a client is built, in the thread that builds it; nothing is imported lazily in a worker: the
    SDK looks `httpx` up in `sys.modules` as it builds each request, so a worker importing it meanwhile
    showed the others a half-initialised module (AttributeError: partially initialized module 'httpx' has
    no attribute 'Timeout'), and their sources failed. Imported whole once, it is only looked up afterwards,
    also by chromadb's client."""
    codecs.lookup("idna")  # the first connection encodes its host name with it (socket.getaddrinfo)
    timeouts: list[type[Exception]] = []
    transport: list[type[Exception]] = []
    for name in ("httpx2", "httpx"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        timeouts.append(module.TimeoutException)
        transport.append(module.TransportError)
    return tuple(timeouts), tuple(transport)


def _not_found_hint(endpoint: str, model: str) -> str:
    """What an HTTP 404 from `endpoint` most likely means: a base URL without `/v1`, else an unknown model."""
    if not endpoint.rstrip("/").endswith("/v1"):
        return (
            f"[llm] base_url {endpoint} does not end in /v1, where OpenAI-compatible servers answer: "
            f"try {endpoint.rstrip('/')}/v1"
        )
    return f"check that model {model!r} exists at {endpoint} (and that [llm] base_url is the server's /v1)"


def require_model(settings: LLMSettings) -> None:
    """A model is configured, its client installed and the API key free to go where it would be sent, said
    before anything slow starts (ConfigError, MissingExtra)."""
    if not settings.model:
        raise ConfigError("no model configured", hint="set [llm] model in wikic.toml, WIKIC_LLM_MODEL, or --model")
    settings.sendable_key()
    require_extra("llm")


def vault_llm(root: Path, settings: LLMSettings) -> OpenAICompatible:
    """The vault's model client: its `[llm]` endpoint, with what the endpoint accepts remembered in the
    vault's state."""
    from wikic.vault.state import state_dir

    require_model(settings)
    return OpenAICompatible(settings, state_dir=state_dir(root))


def _stream_options_quirk(status: int | None, error_text: str, params: Mapping[str, Any]) -> tuple[str, str] | None:
    """Servers that do not know `stream_options` refuse the request (HTTP 400 or 422 naming it)."""
    if "stream_options" in params and status in (400, 422) and "stream_options" in error_text.lower():
        return "stream_options", "omit"
    return None


def _server_message(exc: openai.APIStatusError) -> str:
    """The server's own words: OpenAI's `error.message`, FastAPI's `detail`, else the SDK's summary."""
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"]
        if "detail" in body:
            return json.dumps(body["detail"], default=str)
    return exc.message


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
