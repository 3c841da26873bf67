"""A real HTTP, OpenAI-compatible chat server for tests: scripted behaviours, a request log, loopback only.

    with StandinServer() as server:
        server.enqueue(error(429), reply({"answer": 42}))
        client = OpenAI(base_url=server.base_url, api_key="x")
        ...
        server.requests[-1].body["response_format"]

Behaviours are consumed in order, one per request to /v1/chat/completions; when the queue is empty the
`route` function (if set) chooses a reply from the request, else the server answers HTTP 500 with
`x-should-retry: false` so a missing script fails fast. `reject_json_schema` makes the server behave like
one that does not support `response_format: json_schema` (the request is refused before the queue is
consulted), `latency` delays every reply.

Streaming: a request with `"stream": true` is answered as server-sent events (`data: {chunk}` lines, then
`data: [DONE]`), the content cut into word-sized pieces (or the behaviour's `chunks`), `chunk_delay`
seconds apart; a final usage chunk is sent when the request asks for it with `stream_options`.
`reject_stream_options` makes the server refuse `stream_options` (HTTP 400), as some servers do;
`ignore_stream` makes it answer a streaming request with one plain JSON chat completion, as some proxies
and small servers do. With `tokenize` set (text -> a count) it answers llama.cpp's `POST /tokenize` too.
`interrupt_requests` makes it give up a stream as soon as another chat request arrives, ending it with
`data: [DONE]` and no finish reason, as llama-cpp-python's server does by default.
`endless()` streams fresh words, `chunk_delay` seconds apart, until the client hangs up, with never a finish
reason; `keepalive()` streams only `: ping` comments the same way.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

__all__ = [
    "Behaviour", "LoggedRequest", "StandinServer", "composed_as_listed", "endless", "error", "is_answer_request",
    "is_compose_request", "keepalive", "malformed", "rejection", "reply", "slow", "truncated",
]


@dataclass(frozen=True)
class Behaviour:
    status: int = 200
    content: str | None = "{}"
    finish_reason: str = "stop"
    delay: float = 0.0
    headers: Mapping[str, str] = field(default_factory=dict)
    body: Any = None  # error responses: the JSON body sent as is
    prompt_tokens: int = 12
    completion_tokens: int = 8
    usage: bool = True
    reasoning_content: str | None = None
    chunks: tuple[str, ...] | None = None  # streaming: the pieces to send (default: word-sized pieces)
    chunk_delay: float = 0.0  # streaming: pause before each piece
    break_after: int | None = None  # streaming: drop the connection after this many pieces
    forever: str | None = None  # streaming: "words" (fresh ones) or "pings" (comments), until the client hangs up


def reply(
    data: Any,
    *,
    finish_reason: str = "stop",
    reasoning_content: str | None = None,
    usage: bool = True,
    prompt_tokens: int = 12,
    completion_tokens: int = 8,
    delay: float = 0.0,
    chunks: tuple[str, ...] | None = None,
    chunk_delay: float = 0.0,
    break_after: int | None = None,
) -> Behaviour:
    """A normal reply; `data` is JSON-encoded unless it is already a string."""
    content = data if isinstance(data, str) else json.dumps(data)
    return Behaviour(
        content=content,
        finish_reason=finish_reason,
        reasoning_content=reasoning_content,
        usage=usage,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        delay=delay,
        chunks=chunks,
        chunk_delay=chunk_delay,
        break_after=break_after,
    )


def error(
    status: int,
    message: str = "scripted error",
    *,
    retry_after_ms: int | None = 10,
    should_retry: bool | None = None,
    body: Any = None,
) -> Behaviour:
    """An HTTP error in OpenAI's shape. `retry_after_ms` keeps the SDK's back-off short in tests."""
    headers: dict[str, str] = {}
    if retry_after_ms is not None:
        headers["retry-after-ms"] = str(retry_after_ms)
    if should_retry is not None:
        headers["x-should-retry"] = "true" if should_retry else "false"
    if body is None:
        body = {"error": {"message": message, "type": "standin_error", "param": None, "code": None}}
    return Behaviour(status=status, content=None, headers=headers, body=body)


def endless(chunk_delay: float = 0.0) -> Behaviour:
    """A model that never stops writing (no loop to notice, no finish reason), whatever max_tokens says."""
    return Behaviour(forever="words", chunk_delay=chunk_delay)


def keepalive(every: float = 0.05) -> Behaviour:
    """A server that sends SSE keep-alive comments and nothing else, for ever: never silent, never answering."""
    return Behaviour(forever="pings", chunk_delay=every)


def slow(seconds: float, then: Behaviour | None = None) -> Behaviour:
    base = then if then is not None else reply({})
    return Behaviour(**{**base.__dict__, "delay": seconds})


def malformed(text: str = '{"entities": [ this is not json') -> Behaviour:
    return reply(text)


def truncated(text: str = '{"entities": [{"name": "Ope') -> Behaviour:
    return reply(text, finish_reason="length")


# How real servers refuse `response_format: {"type": "json_schema", ...}`.
REJECTIONS: dict[str, tuple[int, Any]] = {
    # OpenAI-style 400 (older vLLM / proxies).
    "400": (
        400,
        {
            "error": {
                "message": (
                    "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."
                ),
                "type": "invalid_request_error",
                "param": "response_format",
                "code": None,
            }
        },
    ),
    # FastAPI request validation (servers that type response_format as text|json_object).
    "422": (
        422,
        {
            "detail": [
                {
                    "type": "literal_error",
                    "loc": ["body", "response_format", "type"],
                    "msg": "Input should be 'text' or 'json_object'",
                    "input": "json_schema",
                }
            ]
        },
    ),
    # llama-cpp-python's server: its error handler turns the validation error into a 500.
    "500": (
        500,
        {
            "error": {
                # Verbatim shape of llama-cpp-python 0.3.36's reply (its traceback lines left out).
                "message": (
                    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
                    "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', "
                    "'ctx': {'expected': \"'text' or 'json_object'\"}}"
                ),
                "type": "internal_server_error",
                "param": None,
                "code": None,
            }
        },
    ),
    # A strict implementation that accepts json_schema but not length limits.
    "keyword": (
        400,
        {
            "error": {
                "message": "Invalid schema for response_format 'plan': 'maxLength' is not permitted.",
                "type": "invalid_request_error",
                "param": "response_format",
                "code": None,
            }
        },
    ),
}


def rejection(variant: str) -> Behaviour:
    status, body = REJECTIONS[variant]
    return Behaviour(status=status, content=None, body=body, headers={"retry-after-ms": "10"})


@dataclass(frozen=True)
class LoggedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    time: float

    @property
    def response_format_type(self) -> str | None:
        fmt = self.body.get("response_format") if isinstance(self.body, dict) else None
        return fmt.get("type") if isinstance(fmt, dict) else None


Router = Callable[[dict[str, Any]], "Behaviour | Mapping[str, Any] | str"]


class StandinServer:
    def __init__(
        self,
        *,
        latency: float = 0.0,
        reject_json_schema: str | None = None,
        model: str = "standin-model",
        reject_stream_options: bool = False,
        ignore_stream: bool = False,
        interrupt_requests: bool = False,
    ) -> None:
        self.latency = latency
        self.interrupt_requests = interrupt_requests
        self.arrivals = 0  # chat requests received so far: a stream started before the last one is interrupted
        self.interrupted = 0  # streams given up because a newer request arrived
        self.reject_json_schema = reject_json_schema
        self.reject_stream_options = reject_stream_options
        self.ignore_stream = ignore_stream
        self.model = model
        self.route: Router | None = None
        # text -> how many tokens: the server then answers llama.cpp's `POST /tokenize` {"content"} -> {"tokens"}
        self.tokenize: Callable[[str], int] | None = None
        self.requests: list[LoggedRequest] = []
        self._queue: deque[Behaviour] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ids = itertools.count(1)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------------------
    def start(self) -> Self:
        handler = _make_handler(self)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False  # a handler still sleeping in a slow reply must not hold up stop()
        # A short poll interval: stop() waits for the serving loop to notice, once per test.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="standin-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting -------------------------------------------------------------------------------------
    def enqueue(self, *behaviours: Behaviour | Mapping[str, Any] | str) -> StandinServer:
        with self._lock:
            self._queue.extend(_as_behaviour(b) for b in behaviours)
        return self

    @property
    def pending(self) -> int:
        return len(self._queue)

    def chat_requests(self) -> list[LoggedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def _choose(self, body: dict[str, Any]) -> Behaviour:
        if self.reject_stream_options and "stream_options" in body:
            return Behaviour(
                status=400,
                content=None,
                body={
                    "error": {
                        "message": "Unrecognized request argument supplied: stream_options",
                        "type": "invalid_request_error",
                        "param": None,
                        "code": None,
                    }
                },
                headers={"retry-after-ms": "10"},
            )
        fmt = body.get("response_format")
        if self.reject_json_schema and isinstance(fmt, dict) and fmt.get("type") == "json_schema":
            return rejection(self.reject_json_schema)
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.route is not None:
            return _as_behaviour(self.route(body))
        return error(500, "standin: no scripted behaviour left", retry_after_ms=None, should_retry=False)

    def _completion(self, body: dict[str, Any], behaviour: Behaviour) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": behaviour.content}
        if behaviour.reasoning_content is not None:
            message["reasoning_content"] = behaviour.reasoning_content
        result: dict[str, Any] = {
            "id": f"chatcmpl-standin-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": behaviour.finish_reason, "logprobs": None}],
        }
        if behaviour.usage:
            result["usage"] = {
                "prompt_tokens": behaviour.prompt_tokens,
                "completion_tokens": behaviour.completion_tokens,
                "total_tokens": behaviour.prompt_tokens + behaviour.completion_tokens,
            }
        return result


    def _chunks(self, body: dict[str, Any], behaviour: Behaviour) -> list[dict[str, Any]]:
        """The chat.completion.chunk objects of a streamed reply, usage last when asked for."""
        content = behaviour.content or ""
        pieces = list(behaviour.chunks) if behaviour.chunks is not None else _word_pieces(content)
        ident = f"chatcmpl-standin-{next(self._ids)}"
        model = body.get("model") or self.model
        created = int(time.time())

        def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
            return {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
            }

        out = [chunk({"role": "assistant", "content": ""}, None)]
        out.extend(chunk({"content": piece}, None) for piece in pieces)
        out.append(chunk({}, behaviour.finish_reason))
        options = body.get("stream_options")
        if behaviour.usage and isinstance(options, dict) and options.get("include_usage"):
            out.append({
                "id": ident,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [],
                "usage": {
                    "prompt_tokens": behaviour.prompt_tokens,
                    "completion_tokens": behaviour.completion_tokens,
                    "total_tokens": behaviour.prompt_tokens + behaviour.completion_tokens,
                },
            })
        return out


def is_answer_request(body: dict[str, Any]) -> bool:
    """A plain-text request (a query's answer, streamed or not), not an extraction: those ask for JSON."""
    return "response_format" not in body


def is_compose_request(body: dict[str, Any]) -> bool:
    """A request to write a page's claims as prose (`wikic/compile/prose.py`), not an extraction."""
    messages = body.get("messages") or [{}]
    return str(messages[-1].get("content", "")).startswith("Page: ") and "Claims, by section:" in str(
        messages[-1].get("content", ""))


def composed_as_listed(body: dict[str, Any]) -> dict[str, Any]:
    """The reply of a model that writes each claim of a compose request as a sentence of its own, citing it:
    prose that says exactly what the claims say (every sentence holds up)."""
    sections: list[dict[str, Any]] = []
    for line in str(body["messages"][-1]["content"]).split("\n"):
        if line.startswith("## "):
            sections.append({"section": line[3:], "sentences": []})
        elif line.startswith("[") and "] " in line and sections:
            cid, text = line[1:].split("] ", 1)
            sections[-1]["sentences"].append({"text": text, "claims": [cid]})
    return {"lead": [], "sections": sections}


def _word_pieces(text: str) -> list[str]:
    """`text` cut after each space (the pieces join back to `text`)."""
    pieces, start = [], 0
    for i, ch in enumerate(text):
        if ch == " ":
            pieces.append(text[start : i + 1])
            start = i + 1
    if start < len(text):
        pieces.append(text[start:])
    return pieces


def _as_behaviour(value: Behaviour | Mapping[str, Any] | str) -> Behaviour:
    return value if isinstance(value, Behaviour) else reply(value)


def _make_handler(server: StandinServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        def _log(self, body: Any) -> None:
            entry = LoggedRequest(self.command, self.path, dict(self.headers.items()), body, time.monotonic())
            with server._lock:
                server.requests.append(entry)

        def _send(self, status: int, payload: Any, headers: Mapping[str, str] | None = None) -> None:
            data = json.dumps(payload).encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout): nothing to do

        def do_GET(self) -> None:
            self._log(None)
            if self.path.rstrip("/").endswith("/models"):
                self._send(
                    200, {"object": "list", "data": [{"id": server.model, "object": "model", "owned_by": "standin"}]}
                )
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"null")
            except ValueError:
                self._log(raw.decode("utf-8", "replace"))
                self._send(400, {"error": {"message": "request body is not JSON"}})
                return
            self._log(body)
            if self.path == "/tokenize" and server.tokenize is not None and isinstance(body, dict) and \
                    isinstance(body.get("content"), str):
                self._send(200, {"tokens": list(range(server.tokenize(body["content"])))})
                return
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            with server._lock:
                server.arrivals += 1
                arrival = server.arrivals
            behaviour = server._choose(body if isinstance(body, dict) else {})
            delay = server.latency + behaviour.delay
            if delay and server._stopping.wait(delay):
                return
            if behaviour.status != 200:
                self._send(behaviour.status, behaviour.body, behaviour.headers)
            elif isinstance(body, dict) and body.get("stream") and not server.ignore_stream and behaviour.forever:
                self._forever(body, behaviour)
            elif isinstance(body, dict) and body.get("stream") and not server.ignore_stream:
                self._stream(server._chunks(body, behaviour), behaviour, arrival)
            else:
                self._send(200, server._completion(body, behaviour), behaviour.headers)

        def _stream(self, chunks: list[dict[str, Any]], behaviour: Behaviour, arrival: int) -> None:
            # HTTP/1.0 without Content-Length: closing the connection ends the body, as SSE servers do.
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                for name, value in behaviour.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                for n, chunk in enumerate(chunks):
                    if behaviour.break_after is not None and n > behaviour.break_after:
                        self.wfile.write(b"data: {\"broken")  # an event cut in half, then the connection drops
                        self.wfile.flush()
                        return
                    if behaviour.chunk_delay and n > 0 and server._stopping.wait(behaviour.chunk_delay):
                        return
                    if server.interrupt_requests and server.arrivals != arrival:
                        with server._lock:
                            server.interrupted += 1
                        break  # a newer request arrived: [DONE], with no finish reason sent
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _forever(self, body: dict[str, Any], behaviour: Behaviour) -> None:
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for n in itertools.count():
                    if behaviour.chunk_delay and server._stopping.wait(behaviour.chunk_delay):
                        return
                    if server._stopping.is_set():
                        return
                    if behaviour.forever == "pings":
                        self.wfile.write(b": ping\n\n")
                    else:
                        chunk = {"object": "chat.completion.chunk", "model": body.get("model") or server.model,
                                 "choices": [{"index": 0, "delta": {"content": f"w{n} "}, "finish_reason": None}]}
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass

    return Handler
