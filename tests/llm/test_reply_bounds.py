"""Every reply is read within bounds: a wall-clock deadline per request (`[llm] deadline`, by default
`[llm] timeout` plus half a second a token asked for), and twice the `max_tokens` asked for (plus slack) in
tokens written, in bytes read a thousand times that. A model that never stops, a server that only sends
keep-alive comments or a word now and then, a whole reply of megabytes: each fails its request cleanly."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel
from standin_openai import StandinServer, endless, keepalive, reply

from wikic.errors import LLMError
from wikic.llm.stream import ReplyBound, RunawayReply, reply_deadline
from wikic.llm.structured import ask
from wikic.settings import LLMSettings

MESSAGES = [{"role": "user", "content": "What is 6 x 7? Reply as JSON."}]
SCHEMA = {"type": "object", "properties": {"answer": {"type": "integer"}}, "required": ["answer"]}


class _Answer(BaseModel):
    answer: int


def _within(seconds: float, call: Callable[[], Any]) -> BaseException | None:
    """What `call` raised (None if nothing), or fail when it is still running after `seconds`: without a
    bound these calls never return."""
    raised: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
            raised.append(None)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            raised.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert raised, f"still reading after {seconds} s"
    return raised[0]


def test_the_deadline_defaults_to_the_timeout_and_half_a_second_a_token() -> None:
    assert reply_deadline(LLMSettings(), 4096) == 120 + 2048
    assert reply_deadline(LLMSettings(timeout=30), 100) == 80
    assert reply_deadline(LLMSettings(deadline=600), 4096) == 600


def test_a_reply_that_never_ends_is_cut_off_past_twice_max_tokens(standin: StandinServer, make_llm) -> None:
    standin.enqueue(endless())
    caught = _within(30, lambda: make_llm().complete_json(MESSAGES, "answer", SCHEMA, max_tokens=100))
    assert isinstance(caught, RunawayReply), caught
    assert caught.problem == "the model's reply went on past 1,200 tokens (max_tokens 100) and was cut off"
    assert 1200 < caught.completion_tokens < 1500  # read up to the bound, not on
    assert caught.raw.endswith(" ") and len(caught.raw) <= 2000  # the end of it, for the re-ask


def test_a_model_that_never_stops_is_asked_again_once_then_fails(standin: StandinServer, make_llm) -> None:
    standin.enqueue(endless(), endless())
    caught = _within(30, lambda: ask(make_llm(), MESSAGES, _Answer, schema_name="answer", max_tokens=100))
    assert isinstance(caught, LLMError) and "invalid reply for answer twice" in caught.message, caught
    assert "went on past 1,200 tokens" in caught.message
    assert len(standin.chat_requests()) == 2


def test_a_model_that_stops_the_second_time_is_taken(standin: StandinServer, make_llm) -> None:
    standin.enqueue(endless(), reply({"answer": 42}))
    result = ask(make_llm(), MESSAGES, _Answer, schema_name="answer", max_tokens=100)
    assert result.value.answer == 42 and result.usage.calls == 2
    assert "went on past 1,200 tokens" in standin.chat_requests()[1].body["messages"][-1]["content"]


def test_keep_alive_comments_alone_are_given_up_at_the_deadline(standin: StandinServer, make_llm) -> None:
    standin.enqueue(keepalive(every=0.05))
    llm = make_llm(timeout=30, deadline=1)
    started = time.monotonic()
    caught = _within(20, lambda: llm.complete_json(MESSAGES, "answer", SCHEMA, max_tokens=100))
    assert isinstance(caught, LLMError) and not isinstance(caught, RunawayReply), caught
    assert caught.message == "LLM " + standin.base_url + " (model standin-model): no reply within 1 s"
    assert "raise [llm] deadline" in (caught.hint or "")
    assert time.monotonic() - started < 15


def test_a_model_writing_a_word_now_and_then_is_given_up_at_the_deadline(standin: StandinServer, make_llm) -> None:
    standin.enqueue(endless(chunk_delay=0.1))
    caught = _within(20, lambda: make_llm(deadline=1).complete_json(MESSAGES, "answer", SCHEMA, max_tokens=4096))
    assert isinstance(caught, LLMError) and caught.message.endswith("no reply within 1 s"), caught


def test_a_plain_text_stream_is_bounded_too(standin: StandinServer, make_llm) -> None:
    standin.enqueue(endless())
    stream = make_llm().stream_text(MESSAGES, max_tokens=100)
    caught = _within(30, lambda: "".join(stream))
    assert isinstance(caught, RunawayReply), caught


@pytest.mark.parametrize("how", ["complete_text", "ignored_stream"])
def test_a_whole_reply_of_megabytes_is_read_up_to_the_bound(make_llm, how: str) -> None:
    # 2 MB of one answer, asked for at most 100 tokens: bound at 1.2 MB of body, 1,200 tokens of text
    with StandinServer(ignore_stream=how == "ignored_stream") as server:
        server.enqueue(reply("word " * 400_000))
        llm = make_llm(base_url=server.base_url)
        if how == "complete_text":
            caught = _within(30, lambda: "".join(llm.complete_text(MESSAGES, max_tokens=100)))
        else:
            caught = _within(30, lambda: llm.complete_json(MESSAGES, "answer", SCHEMA, max_tokens=100))
    assert isinstance(caught, RunawayReply), caught
    assert caught.problem == "the model's reply went on past 1.2 MB of data (max_tokens 100) and was cut off"


def test_a_whole_reply_within_the_bytes_but_past_the_tokens_is_cut_off(make_llm) -> None:
    with StandinServer() as server:
        server.enqueue(reply("word " * 2_000))  # 10 KB, 2,000 tokens
        llm = make_llm(base_url=server.base_url)
        caught = _within(30, lambda: "".join(llm.complete_text(MESSAGES, max_tokens=100)))
    assert isinstance(caught, RunawayReply) and "went on past 1,200 tokens" in caught.problem, caught


def test_a_reply_within_the_bounds_is_read_as_ever(standin: StandinServer, make_llm) -> None:
    standin.enqueue(reply({"answer": 42}), reply("word " * 1_000))
    llm = make_llm()
    assert llm.complete_json(MESSAGES, "answer", SCHEMA, max_tokens=100).data == {"answer": 42}
    assert "".join(llm.complete_text(MESSAGES, max_tokens=1000)) == "word " * 1_000


def test_event_lines_are_split_across_chunks_as_the_standard_says() -> None:
    bound = ReplyBound("LLM x", max_tokens=100, deadline=60)
    body = "data: é1\r\n\r\ndata: 2\r\rdata: 3\n\n: ping\n".encode()
    pieces = [body[i : i + 1] for i in range(len(body))]  # every byte its own chunk: CR LF and é cut in two
    assert list(bound.lines(pieces)) == ["data: é1", "", "data: 2", "", "data: 3", "", ": ping"]
    assert list(ReplyBound("LLM x", max_tokens=100, deadline=60).lines([body])) == [
        "data: é1", "", "data: 2", "", "data: 3", "", ": ping"]


def test_the_bounds_count_every_field_a_model_writes_in() -> None:
    bound = ReplyBound("LLM x", max_tokens=16, deadline=60)  # 1,032 tokens
    with pytest.raises(RunawayReply, match="went on past 1,032 tokens"):
        for _ in range(2000):
            bound.count({"reasoning_content": "thinking hard ", "role": "assistant"})
    clock = iter([0.0, 5.0, 11.0]).__next__
    timed = ReplyBound("LLM x", max_tokens=16, deadline=10, clock=clock)
    chunks = timed.chunks([b"a", b"b"])
    assert next(chunks) == b"a"
    with pytest.raises(LLMError, match=r"^LLM x: no reply within 10 s$"):
        next(chunks)


