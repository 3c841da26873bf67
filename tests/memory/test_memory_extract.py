"""Transcripts are asked for memories, by both strategies; every other source gets the prompt and schema
it always had. A memory is anchored and checked like any claim, and dated by its turn."""

from __future__ import annotations

import datetime as dt

import pytest
from fake_llm import FakeLLM
from memkit import S1, S3, Scripted, Session, Source, at, memory

from wikic.ingest.extract.prompt import PromptContext, build_messages
from wikic.ingest.extract.run import extract_plan, is_transcript
from wikic.ingest.extract.windows import split_chunks
from wikic.ingest.plan_model import (
    CLAIMS_SCHEMA_NAME,
    MAX_MEMORIES,
    MEMORIES_SCHEMA_NAME,
    NAMES_SCHEMA_NAME,
    SCHEMA_NAME,
    TRANSCRIPT_SCHEMA_NAME,
    TranscriptPlan,
)
from wikic.llm.schema import strict_schema
from wikic.settings import LLMSettings, Settings, Strategy


def settings(strategy: Strategy) -> Settings:
    return Settings(llm=LLMSettings(strategy=strategy, concurrency=1, max_output_tokens=1024))


@pytest.mark.parametrize("strategy", ["single", "two-pass"])
def test_both_strategies_bring_back_anchored_dated_memories(strategy: Strategy) -> None:
    session = Session(
        "s",
        "Billing",
        S3.turns,
        S3.memories,
        [
            {
                "name": "PostgreSQL",
                "kind": "product",
                "aliases": [],
                "summary": "A database.",
                "facts": [
                    {
                        "text": "The billing service goes with PostgreSQL.",
                        "quote": "We go with PostgreSQL for the billing service.",
                    }
                ],
            }
        ],
    )
    llm = FakeLLM().respond_with(Scripted([session]))
    result = extract_plan(llm, Source(session.text()), context=PromptContext(), settings=settings(strategy))
    asked = [call.schema_name for call in llm.history]
    if strategy == "single":
        assert asked == [TRANSCRIPT_SCHEMA_NAME]
    else:
        assert asked == [NAMES_SCHEMA_NAME, CLAIMS_SCHEMA_NAME, MEMORIES_SCHEMA_NAME]
    memories = {m.fact.text: m for m in result.plan.memories}
    assert set(memories) == {"The billing service goes with PostgreSQL.", "Always use uv for Python projects, not pip."}
    decision = memories["The billing service goes with PostgreSQL."]
    assert decision.kind == "episodic" and decision.subject == "billing service" and decision.importance == 0.8
    assert decision.fact.anchored and str(decision.fact.anchor) == "raw/transcripts/s.md:L9"  # the turn's line
    assert decision.when == dt.date(2026, 11, 9)  # from the turn's header
    assert [e.name for e in result.plan.entities] == ["PostgreSQL"]  # the knowledge in it, as for any source


def test_a_memory_whose_quote_is_not_said_or_states_more_is_not_anchored() -> None:
    session = Session("s", "Tooling", S1.turns, [
        memory("instruction", "Use uv, never pip.", "Always use poetry for Python projects.", 0.9, "user"),  # not said
        memory("instruction", "Use uv 0.5 for every Python project.", S1.turns[0][1], 0.9, "user"),  # 0.5: invented
        memory("persona", "The user prefers uv over pip.", "use uv for every Python project, never pip", 1.7, "user"),
    ])
    result = extract_plan(FakeLLM().respond_with(Scripted([session])), Source(session.text()), context=PromptContext(),
                          settings=settings("single"))
    anchored = [m for m in result.plan.memories if m.fact.anchored]
    assert [m.fact.text for m in anchored] == ["The user prefers uv over pip."]
    assert anchored[0].importance == 1.0  # clamped to 0..1
    assert result.plan.dropped() == {"no quote": 1, "unsupported": 1}


def test_a_turn_without_a_time_is_dated_by_the_transcript() -> None:
    session = Session("s", "Tooling", [("user", S1.turns[0][1], None), ("assistant", "Fine.", at(3))], S1.memories)
    result = extract_plan(FakeLLM().respond_with(Scripted([session])), Source(session.text()), context=PromptContext(),
                          settings=settings("single"))
    assert [m.when for m in result.plan.memories] == [dt.date(2026, 11, 3)]  # the transcript's `started`


def test_what_is_a_transcript() -> None:
    assert is_transcript(Source("plain text", "raw/transcripts/call.md"))
    assert is_transcript(Source(S1.text(), "raw/articles/pasted.md"))  # its turn headers say so
    assert not is_transcript(Source("# Notes\n\n**Summary**\n\nNothing here.\n", "raw/articles/notes.md"))


def test_articles_keep_their_prompt_and_schema() -> None:
    text = "# Cache notes\n\nthe cache keeps its data in memory.\n"
    [chunk] = split_chunks(text, max_tokens=6000)
    article = build_messages(chunk, title="T", source_path="raw/articles/t.md", context=PromptContext())
    assert article == build_messages(
        chunk, title="T", source_path="raw/articles/t.md", context=PromptContext(), transcript=False
    )
    assert "memories" not in article[0]["content"] and "memories" not in article[2]["content"]
    llm = FakeLLM({"summary": "", "entities": [], "concepts": [], "comparisons": [], "relations": []})
    extract_plan(llm, Source(text, "raw/articles/t.md"), context=PromptContext(), settings=settings("single"))
    assert [call.schema_name for call in llm.history] == [SCHEMA_NAME]
    assert "memories" not in llm.history[0].schema["properties"]
    [session] = split_chunks(S1.text(), max_tokens=6000)
    transcript = build_messages(
        session, title="T", source_path="raw/transcripts/t.md", context=PromptContext(), transcript=True
    )
    assert (
        "`memories`" in transcript[0]["content"] and '"memories"' in transcript[2]["content"]
    )  # the worked example has them
    assert transcript[0]["content"].startswith(article[0]["content"])


def test_the_memory_list_is_capped_for_a_grammar() -> None:
    schema = strict_schema(TranscriptPlan)
    assert schema["properties"]["memories"]["maxItems"] == MAX_MEMORIES
    item = schema["properties"]["memories"]["items"]
    assert item["properties"]["kind"]["enum"] == ["persona", "episodic", "instruction", "lesson"]
    assert item["properties"]["text"]["maxLength"] == 300 and item["required"] == [
        "kind",
        "text",
        "quote",
        "importance",
        "subject",
    ]
