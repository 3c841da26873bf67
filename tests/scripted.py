"""Scripted model replies for the ingest tests, chosen by what the source says."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

SOURCES = {
    "openai-and-gpt-4.md": """# OpenAI and GPT-4

OpenAI is an AI research company based in San Francisco.
It released GPT-4 in March 2023.
Sam Altman is the CEO of OpenAI.
""",
    "notes-on-openai.md": """# Notes on OpenAI

OpenAI was founded in 2015 as a non-profit.
GPT-4 is a large multimodal model made by OpenAI.
Sam Altman leads the company.
""",
    "retrieval-and-generation.md": """# Retrieval and generation

Retrieval-augmented generation combines a retriever with a generator.
The retriever finds passages that match the question.
The generator writes an answer from those passages.
Evaluation of RAG measures recall of the retriever and faithfulness of the answer.
GPT-4 is often used as the generator.
""",
}


def fact(text: str, quote: str) -> dict[str, str]:
    return {"text": text, "quote": quote}


def entity(
    name: str, kind: str, summary: str, facts: list[dict[str, str]], aliases: list[str] | None = None
) -> dict[str, Any]:
    return {"name": name, "kind": kind, "aliases": aliases or [], "summary": summary, "facts": facts}


def plan(
    summary: str,
    entities: Sequence[dict[str, Any]] = (),
    concepts: Sequence[dict[str, Any]] = (),
    comparisons: Sequence[dict[str, Any]] = (),
    relations: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    return {
        "summary": summary,
        "entities": list(entities),
        "concepts": list(concepts),
        "comparisons": list(comparisons),
        "relations": list(relations),
    }


def route(body: dict[str, Any]) -> dict[str, Any]:
    """The plan for whichever source the request carries."""
    user = body["messages"][-1]["content"]
    if "non-profit" in user:
        return plan(
            "OpenAI's history.",
            [
                entity(
                    "OpenAI",
                    "organization",
                    "AI company founded in 2015.",
                    [
                        fact(
                            "OpenAI was founded in 2015 as a non-profit.", "OpenAI was founded in 2015 as a non-profit."
                        )
                    ],
                    ["Open AI"],
                ),
                entity(
                    "GPT-4",
                    "model",
                    "A multimodal model by OpenAI.",
                    [fact("GPT-4 is a large multimodal model.", "GPT-4 is a large multimodal model made by OpenAI.")],
                ),
                entity(
                    "Sam Altman",
                    "person",
                    "Leads OpenAI.",
                    [fact("Sam Altman leads OpenAI.", "Sam Altman leads the company.")],
                ),
            ],
            relations=[
                {
                    "source": "GPT-4",
                    "relation": "made by",
                    "target": "OpenAI",
                    "quote": "GPT-4 is a large multimodal model made by OpenAI.",
                }
            ],
        )
    if "Retrieval-augmented" in user:
        return plan(
            "How RAG works.",
            [
                entity(
                    "GPT-4",
                    "model",
                    "A model.",
                    [fact("GPT-4 is often used as the generator.", "GPT-4 is often used as the generator.")],
                )
            ],
            concepts=[
                {
                    "name": "Retrieval-Augmented Generation",
                    "summary": "Answering from retrieved passages.",
                    "sections": [
                        {
                            "heading": "How it works",
                            "facts": [
                                fact(
                                    "RAG combines a retriever with a generator.",
                                    "Retrieval-augmented generation combines a retriever with a generator.",
                                )
                            ],
                        },
                        {
                            "heading": "How it works",
                            "facts": [
                                fact(
                                    "The retriever finds passages matching the question.",
                                    "The retriever finds passages that match the question.",
                                )
                            ],
                        },
                        {
                            "heading": "Variants",
                            "facts": [
                                fact(
                                    "The generator answers from the passages.",
                                    "The generator writes an answer from those passages.",
                                )
                            ],
                        },
                        {
                            "heading": "Trade-offs",
                            "facts": [
                                fact(
                                    "RAG evaluation measures recall and faithfulness.",
                                    "Evaluation of RAG measures recall of the retriever and faithfulness "
                                    "of the answer.",
                                )
                            ],
                        },
                    ],
                }
            ],
        )
    return plan(
        "OpenAI and GPT-4.",
        [
            entity(
                "OpenAI",
                "organization",
                "An AI research company in San Francisco.",
                [
                    fact(
                        "OpenAI is based in San Francisco.", "OpenAI is an AI research company based in San Francisco."
                    ),
                    fact("OpenAI has 10,000 employees.", "a quote that appears nowhere in the source"),
                ],
            ),
            entity(
                "GPT-4",
                "model",
                "A model released by OpenAI.",
                [fact("GPT-4 was released in March 2023.", "It released GPT-4 in March 2023.")],
                ["GPT4"],
            ),
            entity(
                "Sam Altman",
                "person",
                "CEO of OpenAI.",
                [fact("Sam Altman is the CEO of OpenAI.", "Sam Altman is the CEO of OpenAI.")],
            ),
        ],
        relations=[
            {
                "source": "Sam Altman",
                "relation": "CEO of",
                "target": "OpenAI",
                "quote": "Sam Altman is the CEO of OpenAI.",
            }
        ],
    )


def as_reply(body: dict[str, Any]) -> str:
    return json.dumps(route(body))
