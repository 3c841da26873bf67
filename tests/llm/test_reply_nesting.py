"""A model's reply nested deeper than Python's stack (100,000 brackets) is an invalid reply like any other:
re-asked once, never a RecursionError (`wikic.text.bounded_json`, the reader of exports and replies alike)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict
from standin_openai import malformed, reply

from wikic.errors import LLMError
from wikic.llm.replies import InvalidReply, parse_json_object
from wikic.llm.structured import ask
from wikic.text.bounded_json import MAX_DEPTH, TooDeep, parse

DEEP = 100_000
DEEP_ARRAY = "[" * DEEP + "]" * DEEP
DEEP_FIELD = '{"answer": 42, "why": ' + DEEP_ARRAY + "}"
DEEP_IN_PROSE = "Here it is: " + DEEP_FIELD + " Hope that helps."


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    answer: int
    why: str


MESSAGES = [{"role": "user", "content": "What is 6 x 7? Reply as JSON."}]


def test_parse_bounds_the_nesting() -> None:
    assert parse("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    for deeper in (MAX_DEPTH + 1, 1_000, DEEP):
        with pytest.raises(TooDeep):
            parse("[" * deeper + "]" * deeper)
    with pytest.raises(TooDeep):
        parse('{"a": ' * DEEP + "1" + "}" * DEEP)


@pytest.mark.parametrize("text", [DEEP_ARRAY, DEEP_FIELD, DEEP_IN_PROSE, "```json\n" + DEEP_FIELD + "\n```"])
def test_a_reply_nested_that_deep_is_an_invalid_reply(text: str) -> None:
    with pytest.raises(InvalidReply) as info:
        parse_json_object(text, where="LLM test")
    assert "nested deeper than" in info.value.problem  # what the re-ask tells the model
    assert info.value.raw == text


def test_it_is_asked_again_once_and_the_good_reply_taken(standin, make_llm) -> None:
    standin.enqueue(malformed(DEEP_FIELD), reply({"answer": 42, "why": "6*7"}))
    # a reply of 200,000 brackets is within what a max_tokens this high lets a model write (past twice it,
    # a reply is cut off as running away: see llm.stream.ReplyBound)
    result = ask(make_llm(), MESSAGES, Answer, schema_name="answer", max_tokens=DEEP)
    assert result.value == Answer(answer=42, why="6*7") and result.usage.calls == 2
    feedback = standin.chat_requests()[1].body["messages"][-1]["content"]
    assert "nested deeper than" in feedback


def test_twice_that_deep_is_the_usual_invalid_reply_error(standin, make_llm) -> None:
    standin.enqueue(malformed(DEEP_ARRAY), malformed(DEEP_ARRAY))
    with pytest.raises(LLMError, match="invalid reply for answer twice"):
        ask(make_llm(), MESSAGES, Answer, schema_name="answer", max_tokens=50)
