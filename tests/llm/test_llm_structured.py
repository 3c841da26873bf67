"""Typed replies: validation, the one re-ask, the reply cache (over HTTP and over the fake)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_llm import FakeLLM
from pydantic import BaseModel, ConfigDict, Field
from standin_openai import malformed, reply

from wikic.errors import LLMError
from wikic.llm.cache import ReplyCache
from wikic.llm.structured import Usage, ask


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    answer: int
    why: str = Field(max_length=20)


MESSAGES = [{"role": "user", "content": "What is 6 x 7? Reply as JSON."}]


def test_malformed_reply_is_reasked_with_the_error_then_succeeds(standin, make_llm):
    standin.enqueue(malformed('{"answer": 42, "why"'), reply({"answer": 42, "why": "6*7"}))
    result = ask(make_llm(), MESSAGES, Answer, schema_name="answer", max_tokens=50)

    assert result.value == Answer(answer=42, why="6*7")
    assert result.usage.calls == 2 and result.usage.prompt_tokens == 24
    _, second = standin.chat_requests()
    reask = second.body["messages"]
    assert reask[: len(MESSAGES)] == MESSAGES
    assert reask[-2] == {"role": "assistant", "content": '{"answer": 42, "why"'}
    assert reask[-1]["role"] == "user" and "not valid JSON" in reask[-1]["content"]


def test_schema_violation_is_reasked_with_the_validation_error(standin, make_llm):
    standin.enqueue(reply({"answer": "many", "why": "x"}), reply({"answer": 42, "why": "x"}))
    assert ask(make_llm(), MESSAGES, Answer, schema_name="answer", max_tokens=50).value.answer == 42
    feedback = standin.chat_requests()[1].body["messages"][-1]["content"]
    assert "answer:" in feedback and "valid integer" in feedback


def test_invalid_twice_is_an_llm_error_and_nothing_is_cached(standin, make_llm, tmp_path):
    standin.enqueue(malformed("nope"), reply({"answer": 1, "why": "this reason is far too long to fit"}))
    cache = ReplyCache(tmp_path / "cache")
    with pytest.raises(LLMError, match="invalid reply for answer twice") as info:
        ask(make_llm(), MESSAGES, Answer, schema_name="answer", max_tokens=50, cache=cache)
    assert "nothing was written" in (info.value.hint or "")
    assert len(standin.chat_requests()) == 2
    assert not (tmp_path / "cache").exists()


def test_cache_hit_makes_no_http_request_and_costs_nothing(standin, make_llm, tmp_path):
    standin.enqueue(reply({"answer": 42, "why": "x"}, prompt_tokens=100, completion_tokens=20))
    cache = ReplyCache.for_vault(tmp_path)
    llm = make_llm()
    first = ask(llm, MESSAGES, Answer, schema_name="answer", max_tokens=50, cache=cache)
    assert (first.cached, first.usage.total_tokens) == (False, 120)
    assert len(standin.chat_requests()) == 1

    again = ask(make_llm(), MESSAGES, Answer, schema_name="answer", max_tokens=50, cache=cache)
    assert again.value == first.value
    assert again.cached is True
    assert (again.usage.prompt_tokens, again.usage.completion_tokens, again.usage.cached_calls) == (0, 0, 1)
    assert len(standin.chat_requests()) == 1  # zero new HTTP requests

    files = list((tmp_path / ".wikic" / "cache" / "llm").rglob("*.json"))
    assert len(files) == 1 and files[0].parent.name == files[0].stem[:2]


def test_cache_key_covers_messages_schema_model_and_max_tokens(standin, make_llm, tmp_path):
    cache = ReplyCache(tmp_path / "c")
    standin.route = lambda body: {"answer": len(body["messages"][0]["content"]), "why": "routed"}
    llm = make_llm()
    ask(llm, MESSAGES, Answer, schema_name="answer", max_tokens=50, cache=cache)
    ask(llm, [{"role": "user", "content": "other"}], Answer, schema_name="answer", max_tokens=50, cache=cache)
    ask(llm, MESSAGES, Answer, schema_name="answer", max_tokens=51, cache=cache)
    ask(make_llm(model="other-model"), MESSAGES, Answer, schema_name="answer", max_tokens=50, cache=cache)
    ask(llm, MESSAGES, Answer, schema_name="answer", max_tokens=50, cache=cache)  # the only hit
    assert len(standin.chat_requests()) == 4


def test_no_cache_mode_asks_again_but_still_stores(standin, make_llm, tmp_path):
    standin.enqueue(reply({"answer": 1, "why": "a"}), reply({"answer": 2, "why": "b"}))
    root = tmp_path / "c"
    ask(make_llm(), MESSAGES, Answer, schema_name="answer", max_tokens=50, cache=ReplyCache(root))
    fresh = ask(make_llm(), MESSAGES, Answer, schema_name="answer", max_tokens=50, cache=ReplyCache(root, read=False))
    assert fresh.value.answer == 2 and not fresh.cached
    later = ask(make_llm(), MESSAGES, Answer, schema_name="answer", max_tokens=50, cache=ReplyCache(root))
    assert later.cached and later.value.answer == 2
    assert len(standin.chat_requests()) == 2


def test_reasked_reply_is_cached_under_the_original_request(standin, make_llm, tmp_path):
    standin.enqueue(malformed("oops"), reply({"answer": 42, "why": "x"}))
    cache = ReplyCache(tmp_path / "c")
    ask(make_llm(), MESSAGES, Answer, schema_name="answer", max_tokens=50, cache=cache)
    assert ask(make_llm(), MESSAGES, Answer, schema_name="answer", max_tokens=50, cache=cache).cached


def test_key_never_reaches_cache_or_state_files(standin, make_llm, tmp_path, secret):
    standin.reject_json_schema = "422"
    standin.enqueue(reply({"answer": 42, "why": "x"}))
    ask(
        make_llm(),
        MESSAGES,
        Answer,
        schema_name="answer",
        max_tokens=50,
        cache=ReplyCache.for_vault(tmp_path),
    )
    written = [p for p in (tmp_path / ".wikic").rglob("*") if p.is_file()]
    assert {p.name for p in written} >= {"llm-endpoints.json"} and len(written) == 2
    for path in written:
        assert secret not in path.read_text()


def test_corrupt_or_outdated_cache_entry_is_a_miss(tmp_path: Path):
    cache = ReplyCache(tmp_path)
    llm = FakeLLM({"answer": 5, "why": "fresh"})
    key = ReplyCache.key(llm.identity, MESSAGES, "answer", Answer.model_json_schema(), 50)
    cache.path(key).parent.mkdir(parents=True)
    cache.path(key).write_text("{ torn write")
    assert cache.get(key) is None
    cache.put(key, {"answer": "not an int"}, model="m", schema_name="answer")
    result = ask(
        llm, MESSAGES, Answer, schema_name="answer", max_tokens=50, cache=cache, schema=Answer.model_json_schema()
    )
    assert result.value.answer == 5 and not result.cached
    assert json.loads(cache.path(key).read_text())["data"] == {"answer": 5, "why": "fresh"}


def test_fake_llm_scripts_replies_and_records_history():
    def route(messages):
        return {"answer": len(messages), "why": "routed"}

    llm = FakeLLM()
    llm.enqueue({"answer": 1, "why": "a"}, "not json", {"answer": 2, "why": "b"}, LLMError("endpoint down"))
    llm.respond_with(route)
    assert ask(llm, MESSAGES, Answer, schema_name="answer", max_tokens=10).value.answer == 1
    assert ask(llm, MESSAGES, Answer, schema_name="answer", max_tokens=10).value.answer == 2  # re-asked once
    with pytest.raises(LLMError, match="endpoint down"):
        ask(llm, MESSAGES, Answer, schema_name="answer", max_tokens=10)
    assert ask(llm, MESSAGES, Answer, schema_name="answer", max_tokens=10).value.answer == 1  # routed: 1 message
    assert len(llm.history) == 5
    assert llm.history[2].messages[-1]["role"] == "user" and "not valid" in llm.history[2].messages[-1]["content"]
    assert llm.history[0].schema_name == "answer" and llm.history[0].max_tokens == 10


def test_fake_llm_without_script_fails_loudly():
    with pytest.raises(LLMError, match="no reply queued"):
        FakeLLM().complete_json(MESSAGES, "answer", {}, max_tokens=5)


def test_usage_adds_up():
    usage = Usage()
    usage.add(10, 5)
    usage.add(0, 0, cached=True)
    other = Usage()
    other.add(1, 1)
    usage.merge(other)
    assert (usage.calls, usage.cached_calls, usage.total_tokens) == (3, 1, 17)


def test_a_strict_schema_is_the_callers_own_to_change() -> None:
    # pydantic's schema is built once per model; each caller still gets a copy it may change
    from wikic.ingest.plan_model import ChunkPlan
    from wikic.llm.schema import strict_schema

    first = strict_schema(ChunkPlan)
    expected = json.dumps(first, sort_keys=True)
    first["properties"]["entities"]["items"]["properties"].clear()
    first.clear()
    assert json.dumps(strict_schema(ChunkPlan), sort_keys=True) == expected
