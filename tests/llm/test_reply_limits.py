"""A reply over its schema's list limits keeps its best-supported items and names the rest, without a re-ask;
a reply stored in the cache keeps what it cost, and a hit brings that cost until a log row has counted it."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from fake_llm import FakeLLM
from pydantic import BaseModel, ConfigDict, Field
from standin_openai import malformed, reply

from wikic.llm.cache import ReplyCache
from wikic.llm.structured import ask

SOURCE = "Ada wrote the notes. Bea read them twice. Cy filed them away."
MESSAGES = [{"role": "user", "content": f"List who did what in: {SOURCE}"}]


class Fact(BaseModel):
    model_config = ConfigDict(extra="forbid")
    quote: str


class Item(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    facts: list[Fact] = Field(max_length=1)


class Listing(BaseModel):
    model_config = ConfigDict(extra="forbid")
    items: list[Item] = Field(max_length=2)


def quoted(value: Any) -> int:
    """Support: the quotes of an item (a fact, or the facts of an item) that the source writes."""
    if "quote" in value:
        return int(value["quote"] in SOURCE)
    return sum(quoted(f) for f in value.get("facts", []))


def item(name: str, *quotes: str) -> dict[str, Any]:
    return {"name": name, "facts": [{"quote": q} for q in quotes]}


def test_a_list_over_its_limit_keeps_the_best_supported_items_and_names_the_rest(tmp_path: Path) -> None:
    over = {"items": [item("Zed", "Zed sang."), item("Ada", "Ada wrote the notes."),
                      item("Bea", "Bea read them twice."), item("Cy", "Cy filed them away.")]}
    llm = FakeLLM(over)
    cache = ReplyCache(tmp_path)
    got = ask(llm, MESSAGES, Listing, schema_name="listing", max_tokens=100, cache=cache, support=quoted)
    # Zed's quote is nowhere in the source; of the three as well supported, the first two are kept, in order
    assert [i.name for i in got.value.items] == ["Ada", "Bea"]
    assert got.left_out == ("items: Zed", "items: Cy")
    assert len(llm.history) == 1  # kept, not asked again

    again = ask(FakeLLM(), MESSAGES, Listing, schema_name="listing", max_tokens=100, cache=cache, support=quoted)
    assert again.cached and again.value == got.value and again.left_out == got.left_out


def test_a_list_inside_an_item_is_kept_within_its_limit_too() -> None:
    over = {"items": [item("Ada", "Ada sang.", "Ada wrote the notes."), item("Bea", "Bea read them twice.")]}
    got = ask(FakeLLM(over), MESSAGES, Listing, schema_name="listing", max_tokens=100, support=quoted)
    assert got.value.items[0].facts == [Fact(quote="Ada wrote the notes.")]
    assert got.left_out == ("items.facts: Ada sang.",)


def test_a_reply_with_another_fault_is_asked_again_and_without_support_nothing_is_cut() -> None:
    over = {"items": [item("Ada"), item("Bea"), item("Cy")]}
    wrong = {"items": [item("Ada"), item("Bea"), item("Cy")], "extra": 1}
    fine = {"items": [item("Ada")]}
    llm = FakeLLM(wrong, fine)
    assert ask(llm, MESSAGES, Listing, schema_name="listing", max_tokens=100, support=quoted).value == Listing(
        items=[Item(name="Ada", facts=[])])
    assert len(llm.history) == 2
    plain = FakeLLM(over, fine)
    assert ask(plain, MESSAGES, Listing, schema_name="listing", max_tokens=100).left_out == ()
    assert len(plain.history) == 2  # no support given: a list over its limit is a fault to re-ask, as before


def test_a_stored_reply_keeps_its_cost_and_a_hit_brings_it_until_a_row_counted_it(standin, make_llm, tmp_path):
    class Answer(BaseModel):
        answer: int

    ask_it = [{"role": "user", "content": "What is 6 x 7?"}]
    standin.enqueue(malformed("nope"), reply({"answer": 42}, prompt_tokens=100, completion_tokens=20))
    cache = ReplyCache.for_vault(tmp_path)
    paid = ask(make_llm(), ask_it, Answer, schema_name="answer", max_tokens=50, cache=cache)
    # both attempts are the reply's cost: the one that was not valid was paid for too
    assert (paid.usage.prompt_tokens, paid.usage.completion_tokens) == (112, 28)
    [key] = paid.usage.replies
    entry = json.loads(cache.path(key).read_text(encoding="utf-8"))
    assert entry["usage"] == {"prompt_tokens": 112, "completion_tokens": 28} and "counted" not in entry

    # the run that paid wrote nothing (stopped, failed): the next one to use the reply counts its cost
    hit = ask(make_llm(), ask_it, Answer, schema_name="answer", max_tokens=50, cache=cache).usage
    assert (hit.prompt_tokens, hit.completion_tokens, hit.cached_calls) == (0, 0, 1)
    assert (hit.earlier_prompt_tokens, hit.earlier_completion_tokens) == (112, 28)
    assert hit.first_paid == dt.datetime.now(dt.UTC).date().isoformat() and hit.replies == [key]

    cache.mark_counted(hit.replies, "run-1")
    counted = ask(make_llm(), ask_it, Answer, schema_name="answer", max_tokens=50, cache=cache).usage
    assert (counted.earlier_tokens, counted.replies, counted.cached_calls) == (0, [], 1)
    assert len(standin.chat_requests()) == 2


def test_an_entry_stored_before_entries_kept_their_cost_counts_as_counted(tmp_path: Path) -> None:
    cache = ReplyCache(tmp_path)
    key = "ab" * 32
    cache.path(key).parent.mkdir(parents=True)
    cache.path(key).write_text(json.dumps({"data": {"items": []}, "model": "m", "schema_name": "listing"}))
    found = cache.lookup(key)
    assert found is not None and found.counted and found.prompt_tokens == 0
