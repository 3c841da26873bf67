"""How extraction asks a model: one call for the whole plan, or names first and then their claims; a plan
of nothing for a text that names things is never accepted in silence; auto remembers what works."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fake_llm import FakeLLM

from wikic.ingest.extract.prompt import PromptContext, build_messages
from wikic.ingest.extract.run import extract_plan
from wikic.ingest.extract.signals import name_signals
from wikic.ingest.extract.windows import split_chunks
from wikic.ingest.plan_model import CLAIMS_SCHEMA_NAME, NAMES_SCHEMA_NAME, SCHEMA_NAME
from wikic.llm.client import OpenAICompatible
from wikic.settings import LLMSettings, Settings, Strategy

TEXT = """# Local vector stores

Chroma is an open-source vector database that runs inside a Python process.
It stores documents and embeddings in SQLite and keeps an HNSW index on disk.
Qdrant is another vector database, written in Rust.
"""
EMPTY = {"summary": "", "entities": [], "concepts": [], "comparisons": [], "relations": []}


@dataclass(frozen=True)
class Source:
    text: str = TEXT
    text_path: str = "raw/articles/stores.md"
    title: str = "Local vector stores"


def settings(strategy: Strategy = "auto") -> Settings:
    return Settings(llm=LLMSettings(strategy=strategy, concurrency=1, max_output_tokens=512))


def small_model(messages: list[dict[str, str]]) -> dict[str, Any]:
    """A model that answers the whole-plan schema with empty lists, and the two small ones well."""
    ask = messages[-1]["content"]
    if "List every named thing" in ask:
        return {"names": [{"name": "Chroma", "kind": "database"}, {"name": "Qdrant", "kind": "database"},
                          {"name": "Pinecone", "kind": "database"}]}  # Pinecone: not in the text
    if "The facts this source states" in ask:
        items = []
        if "- Chroma" in ask:
            items.append(
                {
                    "name": "Chroma",
                    "facts": [
                        {
                            "text": "Chroma runs inside a Python process.",
                            "quote": "Chroma is an open-source vector database that runs inside a Python process.",
                        }
                    ],
                }
            )
        if "- Qdrant" in ask:
            items.append(
                {
                    "name": "Qdrant",
                    "facts": [
                        {
                            "text": "Qdrant is written in Rust.",
                            "quote": "Qdrant is another vector database, written in Rust.",
                        }
                    ],
                }
            )
        return {"items": items}
    return EMPTY


def test_an_empty_plan_for_a_text_that_names_things_is_asked_again_the_other_way() -> None:
    llm = FakeLLM().respond_with(small_model)
    result = extract_plan(llm, Source(), context=PromptContext(), settings=settings("single"))
    assert [c.schema_name for c in llm.history] == [SCHEMA_NAME, NAMES_SCHEMA_NAME, CLAIMS_SCHEMA_NAME]
    assert result.strategy == "single+two-pass" and not result.nothing_extracted
    assert {e.name for e in result.plan.entities if not e.found} == {"Chroma", "Qdrant"}
    assert all(f.anchored for e in result.plan.entities for f in e.facts)
    assert "Pinecone" not in llm.history[-1].messages[-1]["content"]  # a name the text does not write is not asked
    assert llm.strategy is None  # an explicit strategy is not a preference to remember


def test_auto_switches_to_what_worked_and_remembers_it() -> None:
    llm = FakeLLM().respond_with(small_model)
    extract_plan(llm, Source(), context=PromptContext(), settings=settings("auto"))
    assert llm.strategy == "two-pass"
    llm.history.clear()
    again = extract_plan(llm, Source(), context=PromptContext(), settings=settings("auto"))
    assert [c.schema_name for c in llm.history] == [NAMES_SCHEMA_NAME, CLAIMS_SCHEMA_NAME]  # straight to two-pass
    assert again.strategy == "two-pass" and len([e for e in again.plan.entities if not e.found]) == 2


def test_nothing_extracted_from_a_text_with_names_is_said() -> None:
    llm = FakeLLM().respond_with(
        lambda messages: {"names": []} if "List every named" in messages[-1]["content"] else EMPTY
    )
    result = extract_plan(llm, Source(), context=PromptContext(), settings=settings("auto"))
    assert result.nothing_extracted and "SQLite" in result.signals
    plain = Source("the weather was mild and the talk was short.\n")
    quiet = extract_plan(FakeLLM(EMPTY), plain, context=PromptContext(), settings=settings("auto"))
    assert not quiet.nothing_extracted and quiet.strategy == "single"  # nothing named, nothing missed, one call


def test_the_remembered_strategy_lives_with_the_endpoint(tmp_path: Path) -> None:
    config = LLMSettings(base_url="http://127.0.0.1:9/v1", model="tiny")
    OpenAICompatible(config, state_dir=tmp_path).remember_strategy("two-pass")
    assert OpenAICompatible(config, state_dir=tmp_path).preferred_strategy() == "two-pass"
    other = LLMSettings(base_url="http://127.0.0.1:9/v1", model="large")
    assert OpenAICompatible(other, state_dir=tmp_path).preferred_strategy() is None


def test_the_worked_example_is_in_the_texts_language_and_only_for_short_texts() -> None:
    [chunk] = split_chunks(TEXT, max_tokens=6000)
    _, example_user, example_reply, _ = build_messages(
        chunk, title="T", source_path="raw/t.md", context=PromptContext()
    )
    assert (
        "Redis" in example_user["content"]
        and example_reply["role"] == "assistant"
        and "Redis 是" not in example_user["content"]
    )
    [zh] = split_chunks("# 笔记\n\nChroma 是一个开源的向量数据库，可以直接嵌入 Python 程序中运行。\n", max_tokens=6000)
    assert "Redis 是" in build_messages(zh, title="T", source_path="raw/t.md", context=PromptContext())[1]["content"]
    assert (
        len(build_messages(chunk, title="T", source_path="raw/t.md", context=PromptContext(worked_example=False))) == 2
    )
    [long] = split_chunks(TEXT * 60, max_tokens=100_000)
    assert len(build_messages(long, title="T", source_path="raw/t.md", context=PromptContext())) == 2


def test_name_signals() -> None:
    assert name_signals(TEXT) == ["Python", "SQLite", "HNSW", "Rust"]  # Chroma and Qdrant start sentences, once each
    assert name_signals(TEXT + "Chroma and Qdrant both use HNSW.\n")[:2] == ["Chroma", "Python"]
    assert name_signals("# Short note\n\nOne line about the site.\n") == []
    assert "Milla Jovovich" in name_signals("It was created by Milla Jovovich and Ben Sigman.")
    assert {"Chroma", "一万条"} <= set(name_signals("一万条文档时，我们测试了 Chroma。"))
    assert name_signals("The cat sat on the mat. It was warm.") == []
