"""Scripted model replies for a small vector-store wiki: a comparison written before its subjects have
pages, and a later source whose concept has the comparison's name. Also answers questions (streamed)."""

from __future__ import annotations

import re
from typing import Any

from scripted import entity, fact, plan

SOURCES = {
    "vector-notes.md": (
        "# Vector stores\n\n"
        "Chroma is an open-source embedding database.\n"
        "FAISS is a library for similarity search from Meta.\n"
        "Chroma runs in-process or as a server.\n"
        "FAISS runs in-process only.\n"
        "Chroma stores metadata with each vector.\n"
        "FAISS stores only vectors and ids.\n"
        "Chroma is written in Python and Rust.\n"
        "FAISS is written in C++ with Python bindings.\n"
    ),
    "vector-benchmarks.md": (
        "# Benchmarks\n\n"
        "Chroma answered a million-vector query in 20 ms.\n"
        "FAISS answered the same query in 4 ms on one core.\n"
    ),
    "vector-databases.md": (
        "# Vector databases\n\n"
        "A vector database stores embeddings and finds the nearest ones to a query.\n"
        "Indexes such as HNSW trade memory for speed.\n"
        "Filtering by metadata narrows the candidates before the search.\n"
        "Chroma builds an HNSW index by default.\n"
        "FAISS offers flat, IVF and HNSW indexes.\n"
        "Annoy is a library from Spotify that builds trees of random projections.\n"
    ),
}

COMPARISON = "Vector databases"


def cell(subject: str, value: str, quote: str) -> dict[str, str]:
    return {"subject": subject, "value": value, "quote": quote}


def comparison(name: str, subjects: list[str], axes: list[tuple[str, list[dict[str, str]]]]) -> dict[str, Any]:
    return {"name": name, "subjects": subjects, "axes": [{"axis": axis, "values": values} for axis, values in axes]}


def extraction(body: dict[str, Any]) -> dict[str, Any]:
    user = body["messages"][-1]["content"]
    if "open-source embedding database" in user:
        return plan(
            "Chroma and FAISS.",
            [
                entity(
                    "Chroma",
                    "product",
                    "An embedding database.",
                    [
                        fact(
                            "Chroma is an open-source embedding database.",
                            "Chroma is an open-source embedding database.",
                        )
                    ],
                ),
                entity(
                    "FAISS",
                    "product",
                    "A similarity search library.",
                    [
                        fact(
                            "FAISS is a similarity search library from Meta.",
                            "FAISS is a library for similarity search from Meta.",
                        )
                    ],
                ),
            ],
            comparisons=[
                comparison(
                    COMPARISON,
                    ["Chroma", "FAISS"],
                    [
                        (
                            "Deployment",
                            [
                                cell("Chroma", "in-process or server", "Chroma runs in-process or as a server."),
                                cell("FAISS", "in-process", "FAISS runs in-process only."),
                            ],
                        ),
                        (
                            "Metadata",
                            [
                                cell("Chroma", "stored", "Chroma stores metadata with each vector."),
                                cell("FAISS", "none", "FAISS stores only vectors and ids."),
                            ],
                        ),
                        (
                            "Language",
                            [
                                cell("Chroma", "Python and Rust", "Chroma is written in Python and Rust."),
                                cell("FAISS", "C++", "FAISS is written in C++ with Python bindings."),
                            ],
                        ),
                    ],
                )
            ],
        )
    if "million-vector" in user:
        return plan(
            "Benchmarks.",
            [
                entity(
                    "Chroma",
                    "product",
                    "An embedding database.",
                    [
                        fact(
                            "Chroma answered a million-vector query in 20 ms.",
                            "Chroma answered a million-vector query in 20 ms.",
                        )
                    ],
                ),
                entity(
                    "FAISS",
                    "product",
                    "A library.",
                    [
                        fact(
                            "FAISS answered it in 4 ms on one core.",
                            "FAISS answered the same query in 4 ms on one core.",
                        )
                    ],
                ),
            ],
        )
    if "stores embeddings" in user:
        return plan(
            "Vector databases.",
            [
                entity(
                    "Chroma",
                    "product",
                    "An embedding database.",
                    [fact("Chroma builds an HNSW index by default.", "Chroma builds an HNSW index by default.")],
                ),
                entity(
                    "FAISS",
                    "product",
                    "A library.",
                    [fact("FAISS offers flat, IVF and HNSW indexes.", "FAISS offers flat, IVF and HNSW indexes.")],
                ),
            ],
            concepts=[
                {
                    "name": COMPARISON,
                    "summary": "Databases of embeddings.",
                    "sections": [
                        {
                            "heading": "How it works",
                            "facts": [
                                fact(
                                    "A vector database finds the nearest embeddings to a query.",
                                    "A vector database stores embeddings and finds the nearest ones to a query.",
                                )
                            ],
                        },
                        {
                            "heading": "Variants",
                            "facts": [
                                fact("HNSW trades memory for speed.", "Indexes such as HNSW trade memory for speed.")
                            ],
                        },
                        {
                            "heading": "Trade-offs",
                            "facts": [
                                fact(
                                    "Metadata filters narrow the candidates.",
                                    "Filtering by metadata narrows the candidates before the search.",
                                )
                            ],
                        },
                    ],
                }
            ],
        )
    return plan("Nothing.")


def question_of(body: dict[str, Any]) -> str:
    m = re.search(r"<question>\n(.*?)\n</question>", body["messages"][-1]["content"], re.DOTALL)
    return m.group(1) if m else ""


def answer(body: dict[str, Any]) -> str:
    """Annoy is only in a raw passage; the rest is on the pages."""
    if "annoy" in question_of(body).lower():
        return "Annoy is a library from Spotify [[raw/articles/vector-databases.md]]."
    return "Chroma runs in-process or as a server [[chroma]]; FAISS runs in-process only [[faiss]]."
