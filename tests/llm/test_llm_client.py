"""The real `openai` client over HTTP against the stand-in server: retries, failures, fallbacks, parsing."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import openai
import pytest
from pydantic import SecretStr
from standin_openai import Behaviour, StandinServer, error, malformed, rejection, reply, slow, truncated

from wikic.errors import ConfigError, LLMError
from wikic.llm.client import OpenAICompatible
from wikic.llm.replies import InvalidReply, TruncatedReply
from wikic.settings import LLMSettings

MESSAGES = [{"role": "system", "content": "You answer in JSON."}, {"role": "user", "content": "What is 6 x 7?"}]
SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "integer"}, "why": {"type": "string", "maxLength": 50}},
    "required": ["answer", "why"],
    "additionalProperties": False,
}


def call(llm: OpenAICompatible, max_tokens: int = 64):
    return llm.complete_json(MESSAGES, "answer", SCHEMA, max_tokens=max_tokens)


def test_reply_is_parsed_and_request_is_a_strict_json_schema_chat_completion(standin, make_llm, secret):
    standin.enqueue(reply({"answer": 42, "why": "6*7"}, prompt_tokens=30, completion_tokens=9))
    result = call(make_llm(temperature=0.2), max_tokens=77)

    assert result.data == {"answer": 42, "why": "6*7"}
    assert (result.prompt_tokens, result.completion_tokens, result.cached) == (30, 9, False)
    assert result.model == "standin-model"
    [request] = standin.chat_requests()
    body = request.body
    assert body["model"] == "standin-model"
    assert body["max_tokens"] == 77
    assert body["temperature"] == 0.2
    assert body["messages"] == MESSAGES
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": SCHEMA, "strict": True},
    }
    assert request.headers["authorization"] == f"Bearer {secret}"


def test_keyless_local_endpoint_gets_a_placeholder_key(standin, make_llm):
    standin.enqueue(reply({"answer": 1, "why": ""}))
    call(make_llm(api_key=None))
    assert standin.requests[-1].headers["authorization"] == "Bearer not-needed"


def test_429_is_retried_by_the_sdk_then_succeeds(standin, make_llm):
    standin.enqueue(error(429, "slow down"), reply({"answer": 42, "why": "x"}))
    assert call(make_llm(max_retries=2)).data["answer"] == 42
    assert len(standin.chat_requests()) == 2


def test_persistent_500_becomes_a_clean_llm_error(standin, make_llm):
    standin.enqueue(*[error(500, "model crashed")] * 3)
    with pytest.raises(LLMError) as info:
        call(make_llm(max_retries=2))
    message = info.value.message
    assert standin.base_url in message and "standin-model" in message
    assert "HTTP 500 after 2 retries" in message and "model crashed" in message
    assert info.value.hint
    assert len(standin.chat_requests()) == 3


def test_persistent_429_names_rate_limit(standin, make_llm):
    standin.enqueue(*[error(429, "quota")] * 2)
    with pytest.raises(LLMError, match="HTTP 429") as info:
        call(make_llm(max_retries=1))
    assert "concurrency" in (info.value.hint or "")


def test_slow_reply_past_the_timeout_is_a_clean_error(standin, make_llm, secret):
    standin.enqueue(slow(3.0), slow(3.0))
    llm = make_llm(timeout=0.3, max_retries=1)
    started = time.monotonic()
    with pytest.raises(LLMError, match=r"silent for 0\.3 s") as info:
        call(llm)
    assert time.monotonic() - started < 2.5
    assert "timeout" in (info.value.hint or "")
    assert secret not in info.value.message


def test_connection_refused_is_a_clean_error(make_llm):
    server = StandinServer().start()
    url = server.base_url
    server.stop()
    with pytest.raises(LLMError, match="cannot connect") as info:
        call(make_llm(base_url=url, max_retries=0))
    # the server may be down: said, with the URL nothing answers at
    assert f"nothing answers at {url}: is the server running" in (info.value.hint or "")


def test_a_404_from_a_base_url_without_v1_says_so(standin, make_llm):
    bare = standin.base_url.removesuffix("/v1")
    standin.enqueue(error(404, "404 page not found"), error(404, "model 'standin-model' not found"))
    with pytest.raises(LLMError, match="HTTP 404") as info:
        call(make_llm(base_url=bare))
    assert f"[llm] base_url {bare} does not end in /v1" in (info.value.hint or "")
    assert f"try {bare}/v1" in (info.value.hint or "")
    with pytest.raises(LLMError, match="HTTP 404") as info:
        call(make_llm())
    assert "/v1" not in (info.value.hint or "").partition(" exists at ")[0]  # the URL has it: the model is asked about
    assert f"check that model 'standin-model' exists at {standin.base_url}" in (info.value.hint or "")


def test_credentials_in_the_base_url_are_never_shown(standin, make_llm, tmp_path):
    """`https://user:pass@host/v1`: the request carries them; messages, hints, repr, the identity (cache keys)
    and the endpoint memory on disk show the URL without them."""
    password = "pw-Hunter2-SECRET"
    url = standin.base_url.replace("http://", f"http://alice:{password}@")
    shown = standin.base_url.replace("http://", "http://***@")
    standin.reject_json_schema = "400"  # something remembered per endpoint
    standin.enqueue(reply({"answer": 1, "why": ""}), error(500, f"no access for {url}", should_retry=False),
                    error(404, "not found", should_retry=False))
    llm = make_llm(base_url=url, max_retries=0, state_dir=tmp_path / ".wikic")
    call(llm)
    messages = []
    for _ in range(2):
        with pytest.raises(LLMError) as info:
            call(llm)
        messages += [info.value.message, info.value.hint or ""]
    server = StandinServer().start()
    refused = server.base_url.replace("http://", f"http://alice:{password}@")
    server.stop()
    with pytest.raises(LLMError, match="cannot connect") as info:
        call(make_llm(base_url=refused, max_retries=0))
    messages += [info.value.message, info.value.hint or ""]
    assert messages[0].count(shown) == 2, messages  # where the error came from, and the server's own words
    assert shown in messages[3] and "http://***@127.0.0.1:" in messages[4] + messages[5], messages
    stored = (tmp_path / ".wikic" / "llm-endpoints.json").read_text(encoding="utf-8")
    for text in (*messages, repr(llm), repr(llm.settings), str(llm.identity), llm.endpoint, stored):
        assert password not in text and "alice" not in text, text
    assert llm.endpoint == shown and shown in stored


def test_a_secret_in_the_base_urls_query_is_never_shown(standin, make_llm, tmp_path):
    """`https://host/v1?api-key=...` (Azure-style proxies): messages, hints, repr, the identity and the endpoint
    memory show `?api-key=***`, also when the server repeats the URL or the key alone."""
    key = "qk-Hunter3-SECRET"
    url = f"{standin.base_url}?api-version=1&api-key={key}"
    shown = f"{standin.base_url}?api-version=1&api-key=***"
    standin.enqueue(error(500, f"no access for {url} with {key}", should_retry=False))
    llm = make_llm(base_url=url, max_retries=0, state_dir=tmp_path / ".wikic")
    with pytest.raises(LLMError) as info:
        call(llm)
    messages = [info.value.message, info.value.hint or ""]
    server = StandinServer().start()
    refused = f"{server.base_url}?api-key={key}"
    server.stop()
    with pytest.raises(LLMError, match="cannot connect") as info:
        call(make_llm(base_url=refused, max_retries=0))
    messages += [info.value.message, info.value.hint or ""]
    assert shown in messages[0] and "?api-key=***" in messages[2] + messages[3], messages
    for text in (*messages, repr(llm), repr(llm.settings), str(llm.identity), llm.endpoint):
        assert key not in text, text


@pytest.mark.parametrize(
    "echo",
    [
        lambda key: {"detail": f"bad key {key}"},  # shown JSON-encoded: a quote or a backslash escaped
        lambda key: {"error": {"message": f"no route /v1?key={quote(key, safe='')}"}},
        lambda key: {"error": {"message": f"Illegal header value {('Bearer ' + key).encode()!r}"}},
    ],
    ids=["json-escaped", "percent-encoded", "bytes-repr"],
)
def test_a_key_echoed_escaped_or_encoded_is_masked(standin, make_llm, echo):
    key = 'sk-test-"quoted"\\back/slash+plus'
    standin.enqueue(Behaviour(status=500, content=None, body=echo(key), headers={"x-should-retry": "false"}))
    with pytest.raises(LLMError) as info:
        call(make_llm(api_key=SecretStr(key), max_retries=0))
    assert "quoted" not in info.value.message and "***" in info.value.message, info.value.message


def test_replies_are_read_without_httpx_installed(standin, make_llm, monkeypatch):
    """The `llm` extra brings the SDK and its httpx2, not httpx (chromadb's): a reply is read all the same."""
    monkeypatch.setitem(sys.modules, "httpx", None)  # `import httpx` now fails, as when it is not installed
    standin.enqueue(reply({"answer": 42, "why": "x"}))
    assert call(make_llm()).data["answer"] == 42
    standin.enqueue(reply({"answer": 1, "why": "y"}, break_after=1))
    with pytest.raises(LLMError, match="stream"):
        call(make_llm(max_retries=0))


def test_malformed_json_raises_invalid_reply_with_the_text(standin, make_llm):
    standin.enqueue(malformed('{"answer": 42, "why": '))
    with pytest.raises(InvalidReply) as info:
        call(make_llm())
    assert info.value.raw == '{"answer": 42, "why": '
    assert info.value.completion_tokens == 8


def test_json_array_is_not_an_object(standin, make_llm):
    standin.enqueue(reply("[1, 2]"))
    with pytest.raises(InvalidReply, match="not an object"):
        call(make_llm())


def test_finish_reason_length_is_an_error_not_parsed(standin, make_llm):
    standin.enqueue(truncated('{"answer": 42, "why": "because'))
    with pytest.raises(TruncatedReply) as info:
        call(make_llm(), max_tokens=12)
    assert "max_tokens=12" in info.value.message
    assert "max_output_tokens" in (info.value.hint or "")
    assert len(standin.chat_requests()) == 1


def test_reasoning_content_is_ignored_and_think_block_stripped(standin, make_llm):
    standin.enqueue(
        reply({"answer": 42, "why": "x"}, reasoning_content='Let me think... the answer might be {"answer": 41}'),
        reply('<think>\nmaybe 41?\n</think>\n```json\n{"answer": 42, "why": "y"}\n```'),
    )
    llm = make_llm()
    assert call(llm).data == {"answer": 42, "why": "x"}
    assert call(llm).data == {"answer": 42, "why": "y"}


def test_missing_usage_is_estimated(standin, make_llm):
    standin.enqueue(reply({"answer": 42, "why": "six times seven"}, usage=False))
    result = call(make_llm())
    assert result.prompt_tokens > 10 and result.completion_tokens > 5


@pytest.mark.parametrize("variant", ["400", "422", "500"])
def test_json_schema_rejection_falls_back_to_json_object_and_is_remembered(standin, make_llm, tmp_path, variant):
    standin.reject_json_schema = variant
    standin.enqueue(reply({"answer": 42, "why": "x"}))
    llm = make_llm(max_retries=1)
    assert call(llm).data["answer"] == 42

    kinds = [r.response_format_type for r in standin.chat_requests()]
    # A 500 is retried by the SDK before wikic sees it; 400/422 are not.
    expected_rejections = 2 if variant == "500" else 1
    assert kinds == ["json_schema"] * expected_rejections + ["json_object"]
    fallback = standin.chat_requests()[-1].body
    assert fallback["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert fallback["messages"][0]["role"] == "system"
    assert json.dumps(SCHEMA) in fallback["messages"][0]["content"]  # the schema is stated in the prompt
    assert fallback["messages"][0]["content"].startswith("You answer in JSON.")
    assert llm.response_mode == "json_object"

    stored = json.loads((tmp_path / ".wikic" / "llm-endpoints.json").read_text())
    assert stored == {"endpoints": {standin.base_url: {"response_format": "json_object"}}}

    # A new client (a later run) goes straight to json_object: one request, no rejection.
    standin.enqueue(reply({"answer": 7, "why": "y"}))
    before = len(standin.chat_requests())
    assert call(make_llm(max_retries=1)).data["answer"] == 7
    assert [r.response_format_type for r in standin.chat_requests()[before:]] == ["json_object"]


def test_rejected_keyword_steps_down_to_the_portable_schema(standin, make_llm):
    standin.enqueue(rejection("keyword"), reply({"answer": 42, "why": "x"}))
    llm = make_llm()
    assert call(llm).data["answer"] == 42
    first, second = standin.chat_requests()
    assert "maxLength" in json.dumps(first.body["response_format"])
    assert second.response_format_type == "json_schema"
    assert "maxLength" not in json.dumps(second.body["response_format"])
    assert llm.response_mode == "json_schema_portable"


def test_unrelated_400_is_an_error_and_not_remembered(standin, make_llm, tmp_path):
    standin.enqueue(error(400, "This model's maximum context length is 8192 tokens."))
    llm = make_llm()
    with pytest.raises(LLMError, match="HTTP 400: This model's maximum context length"):
        call(llm)
    assert len(standin.chat_requests()) == 1
    assert llm.response_mode == "json_schema"
    assert not (tmp_path / ".wikic" / "llm-endpoints.json").exists()


def test_fallback_failing_too_reports_the_fallback_error(standin, make_llm, tmp_path):
    standin.reject_json_schema = "422"
    standin.enqueue(*[error(503, "overloaded")] * 2)
    llm = make_llm(max_retries=1)
    with pytest.raises(LLMError, match="HTTP 503"):
        call(llm)
    assert not (tmp_path / ".wikic" / "llm-endpoints.json").exists()  # nothing worked, nothing remembered


def test_key_never_appears_in_errors_or_repr(standin, make_llm, secret):
    standin.enqueue(error(401, f"Incorrect API key provided: {secret}"))
    llm = make_llm()
    with pytest.raises(LLMError) as info:
        call(llm)
    assert secret not in info.value.message and secret not in str(info.value)
    assert "***" in info.value.message
    assert "WIKIC_LLM_API_KEY" in (info.value.hint or "")
    assert secret not in repr(llm) and secret not in repr(llm.settings) and secret not in str(llm.identity)


def test_model_is_required():
    with pytest.raises(ConfigError, match="no LLM model configured"):
        OpenAICompatible(LLMSettings(base_url="http://127.0.0.1:9/v1"))


def test_openai_default_endpoint_needs_a_key():
    with pytest.raises(ConfigError, match="no API key") as info:
        OpenAICompatible(LLMSettings(model="gpt-4o-mini"))
    assert "WIKIC_LLM_API_KEY" in (info.value.hint or "")
    assert OpenAICompatible(LLMSettings(model="gpt-4o-mini", api_key=SecretStr("sk-x"))).endpoint == (
        "https://api.openai.com/v1"
    )


def test_endpoint_memory_without_state_dir_stays_in_memory(standin, make_llm, tmp_path: Path):
    standin.reject_json_schema = "400"
    standin.enqueue(reply({"answer": 1, "why": ""}), reply({"answer": 2, "why": ""}))
    llm = make_llm(state_dir=None)
    call(llm)
    call(llm)
    assert [r.response_format_type for r in standin.chat_requests()] == ["json_schema", "json_object", "json_object"]
    assert not (tmp_path / ".wikic").exists()


MAX_TOKENS_REFUSED = error(
    400,
    "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
)
TEMPERATURE_REFUSED = error(
    400,
    "Unsupported value: 'temperature' does not support 0.0 with this model. Only the default (1) value is supported.",
)


def test_reasoning_model_parameter_refusals_are_adapted_and_remembered(standin, make_llm, tmp_path):
    standin.enqueue(MAX_TOKENS_REFUSED, TEMPERATURE_REFUSED, reply({"answer": 42, "why": "x"}))
    assert call(make_llm(model="gpt-5"), max_tokens=99).data["answer"] == 42
    bodies = [r.body for r in standin.chat_requests()]
    assert "max_tokens" in bodies[0] and "temperature" in bodies[0]
    assert bodies[1]["max_completion_tokens"] == 99 and "max_tokens" not in bodies[1]
    assert "temperature" not in bodies[2] and bodies[2]["max_completion_tokens"] == 99

    stored = json.loads((tmp_path / ".wikic" / "llm-endpoints.json").read_text())
    assert stored["endpoints"][standin.base_url]["models"] == {
        "gpt-5": {"token_param": "max_completion_tokens", "temperature": "omit"}
    }
    # A later run asks the same model correctly at once; another model on the endpoint is unaffected.
    standin.enqueue(reply({"answer": 1, "why": ""}), reply({"answer": 2, "why": ""}))
    call(make_llm(model="gpt-5"))
    call(make_llm(model="gpt-4o-mini"))
    later, other = [r.body for r in standin.chat_requests()[3:]]
    assert "max_completion_tokens" in later and "temperature" not in later
    assert "max_tokens" in other and "temperature" in other


def test_a_parameter_refusal_is_adapted_only_once(standin, make_llm):
    standin.enqueue(MAX_TOKENS_REFUSED, MAX_TOKENS_REFUSED)
    with pytest.raises(LLMError, match="HTTP 400: Unsupported parameter"):
        call(make_llm())
    assert len(standin.chat_requests()) == 2


def test_standin_lists_its_model_for_the_sdk(standin):
    client = openai.OpenAI(base_url=standin.base_url, api_key="x", max_retries=0)
    assert [m.id for m in client.models.list()] == ["standin-model"]
    client.close()


# -- plain text: streamed, or in one piece ----------------------------------------------------------------

TEXT_MESSAGES = [{"role": "user", "content": "Who leads OpenAI?"}]


def test_a_server_that_ignores_stream_is_read_as_one_whole_reply(standin, make_llm, secret):
    standin.ignore_stream = True  # answers `stream: true` with one JSON chat completion
    standin.enqueue(reply(f"Sam Altman [[sam-altman]] (key {secret}).", prompt_tokens=21, completion_tokens=7))
    stream = make_llm().stream_text(TEXT_MESSAGES, max_tokens=50)
    pieces = list(stream)

    assert pieces == ["Sam Altman [[sam-altman]] (key ***)."]  # the echoed key is scrubbed here too
    assert stream.finish_reason == "stop" and not stream.truncated
    assert (stream.prompt_tokens, stream.completion_tokens, stream.usage_estimated) == (21, 7, False)
    assert stream.model == "standin-model"
    body = standin.chat_requests()[-1].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


def test_a_whole_reply_cut_at_max_tokens_is_truncated(standin, make_llm):
    standin.ignore_stream = True
    standin.enqueue(reply("Sam Altman leads", finish_reason="length", usage=False))
    stream = make_llm().stream_text(TEXT_MESSAGES, max_tokens=3)
    assert "".join(stream) == "Sam Altman leads"
    assert stream.truncated and stream.usage_estimated and stream.completion_tokens > 0


def test_complete_text_asks_for_the_answer_in_one_piece(standin, make_llm):
    standin.enqueue(reply("Sam Altman leads OpenAI [[openai]].", prompt_tokens=30, completion_tokens=9))
    stream = make_llm().complete_text(TEXT_MESSAGES, max_tokens=50)
    assert list(stream) == ["Sam Altman leads OpenAI [[openai]]."]
    assert (stream.prompt_tokens, stream.completion_tokens, stream.finish_reason) == (30, 9, "stop")
    body = standin.chat_requests()[-1].body
    assert not body.get("stream") and "stream_options" not in body and "response_format" not in body


def test_a_json_reply_that_is_no_completion_is_a_clean_error(standin, make_llm):
    standin.ignore_stream = True
    # a success status with some other JSON (the stand-in answers a 200 with a completion, so 201)
    standin.route = lambda body: Behaviour(status=201, content=None, body={"object": "list", "data": []})
    stream = make_llm().stream_text(TEXT_MESSAGES, max_tokens=50)
    with pytest.raises(LLMError, match="not a chat completion"):
        list(stream)


def test_loop_watch_cuts_a_reply_that_repeats_itself_and_only_such_a_reply() -> None:
    from wikic.llm.replies import LoopWatch, looping

    assert looping('{"name": "x", "facts": [' + '{"text": "a", "quote": "b"}, ' * 4)
    assert not looping('{"text": "a", "quote": "b"}, ' * 3)  # three times is a list, not yet a loop
    assert not looping("-" * 2000)  # a rule of dashes is not a loop
    assert not looping(" ".join(f"word{i}" for i in range(400)))

    watch = LoopWatch()
    prose = "".join(f"Fact number {i} about the subject. " for i in range(200))
    assert not any(watch.feed(prose[i:i + 7]) for i in range(0, len(prose), 7))
    looping_watch = LoopWatch()
    fed = ["{"] + ['"again and again", '] * 200
    cut_at = next(i for i, piece in enumerate(fed) if looping_watch.feed(piece))
    assert cut_at < 40  # cut off within a few hundred characters of the loop starting, not at the end


# -- server-sent events, read without the SDK's typed chunks ------------------------------------------------


def test_sse_data_follows_the_event_stream_format():
    from wikic.llm.stream import sse_data

    lines = [": a comment", "event: message", "data: {\"a\":", "data: 1}", "", "", "id: 7", "data:[DONE]", "",
             "data: {\"half\""]  # the last event never ends: dropped, as the standard says
    assert list(sse_data(lines)) == ['{"a":\n1}', "[DONE]"]


def _raw_stream(events: list[str]) -> Any:
    from types import SimpleNamespace

    body = "".join(f"data: {event}\n\n" for event in events).encode()
    http = SimpleNamespace(iter_bytes=lambda: iter([body[:7], body[7:]]), close=lambda: None)
    return SimpleNamespace(headers={"content-type": "text/event-stream"}, http_response=http)


def _bound(max_tokens: int = 100, deadline: float = 60) -> Any:
    from wikic.llm.stream import ReplyBound

    return ReplyBound("LLM x (model m)", max_tokens=max_tokens, deadline=deadline)


def test_a_streamed_reply_is_read_from_plain_json_events(make_llm):
    from wikic.llm.stream import TextStream

    llm = make_llm()
    chunk = {"model": "m-7", "choices": [{"index": 0, "delta": {"content": "Sam "}, "finish_reason": None}]}
    last = {"model": "m-7", "choices": [{"index": 0, "delta": {"reasoning_content": "hm", "content": "Altman"},
                                         "finish_reason": "stop"}]}
    usage = {"model": "m-7", "choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 2}}
    events = [json.dumps(chunk), json.dumps(last), json.dumps(usage), "[DONE]"]
    stream = TextStream(lambda s: llm._pieces(s, _raw_stream(events), streamed=True, bound=_bound()),
                        model="x", prompt_estimate=1)
    assert "".join(stream) == "Sam Altman"
    assert (stream.model, stream.finish_reason) == ("m-7", "stop")
    assert (stream.prompt_tokens, stream.completion_tokens, stream.usage_estimated) == (11, 2, False)


def test_an_error_event_in_the_middle_of_a_stream_is_an_llm_error(make_llm):
    from wikic.llm.stream import TextStream

    llm = make_llm()
    chunk = {"choices": [{"index": 0, "delta": {"content": "Sam "}, "finish_reason": None}]}
    events = [json.dumps(chunk), json.dumps({"error": {"message": "the model crashed"}})]
    stream = TextStream(lambda s: llm._pieces(s, _raw_stream(events), streamed=True, bound=_bound()),
                        model="x", prompt_estimate=1)
    with pytest.raises(LLMError, match=r"reported an error mid-answer.*the model crashed"):
        "".join(stream)
