"""Shared fixtures for the palace tests: small vaults on disk, real chromadb, pinned threads."""

from __future__ import annotations

import os

# Numeric libraries must not fight over the 2 cores of CI; set before numpy or chromadb load.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ[_var] = "1"
os.environ["TOKENIZERS_PARALLELISM"] = "false"
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from collections.abc import Callable, Iterator  # noqa: E402
from pathlib import Path  # noqa: E402

import processes  # noqa: E402
import pytest  # noqa: E402

ENV_KEYS = (
    "WIKIC_EMBEDDING_PROVIDER",
    "WIKIC_EMBEDDING_MODEL",
    "WIKIC_EMBEDDING_BASE_URL",
    "WIKIC_PALACE_URL",
    "WIKIC_EMBEDDING_API_KEY",
    "OPENAI_API_KEY",
)

PAGES: dict[str, str] = {
    "entities/openai.md": """---
title: OpenAI
type: entity
tags: [company, llm]
aliases: [Open AI]
created: 2026-01-01
updated: 2026-01-02
sources: [raw/articles/openai-history.md]
---
# OpenAI

OpenAI is an artificial intelligence research company that builds the GPT family of models.

## History
It was founded in December 2015 in San Francisco by Sam Altman, Greg Brockman and others.

## Products
ChatGPT, the GPT-4 model, and an embeddings API used for semantic search.
""",
    "entities/anthropic.md": """---
title: Anthropic
type: entity
tags: [company]
---
# Anthropic

Anthropic is an AI safety company that trains the Claude models.

## Research
Constitutional AI is its method for training helpful and harmless assistants.
""",
    "concepts/vector-database.md": """---
title: Vector database
type: concept
tags: [rag, architecture]
---
# Vector database

A vector database stores embeddings and answers nearest-neighbour queries.

## Indexes
HNSW graphs give fast approximate search over millions of vectors.

## Uses
Retrieval augmented generation looks up passages before the model answers.
""",
    "comparisons/chroma-vs-qdrant.md": """---
title: Chroma vs Qdrant
type: comparison
tags: [architecture]
---
# Chroma vs Qdrant

| axis | Chroma | Qdrant |
|---|---|---|
| language | Python and Rust | Rust |
| hosting | embedded or server | server |
""",
    "raw/articles/openai-history.md": """# The founding of OpenAI

In 2015 a group of researchers and investors started a non-profit lab with a billion-dollar pledge.
The zymurgy club met on Tuesdays.
""",
    "raw/transcripts/standup.txt": "Alice said, \"The deploy failed because the disk was full.\"\n"
    "Bob said, \"I cleaned the cache and restarted the service.\"\n",
}


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ENV_KEYS:
        monkeypatch.delenv(key, raising=False)


def write_vault(root: Path, pages: dict[str, str], toml: str = '[embedding]\nprovider = "static"\n') -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "SCHEMA.md").write_text("# Wiki Schema\n## Domain\nTests\n", encoding="utf-8")
    (root / "index.md").write_text("# Wiki Index\n\n## Entities\n- [[openai]]\n", encoding="utf-8")
    (root / "wikic.toml").write_text(toml, encoding="utf-8")
    for rel, text in pages.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="session")
def vault_writer() -> Callable[..., Path]:
    """`write_vault` for fixtures of wider scope."""
    return write_vault


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A small wiki vault using the tiny static embedder."""
    return write_vault(tmp_path / "vault", PAGES)


@pytest.fixture
def make_vault(tmp_path: Path) -> Callable[..., Path]:
    counter = iter(range(1000))

    def make(pages: dict[str, str] | None = None, toml: str = '[embedding]\nprovider = "static"\n') -> Path:
        return write_vault(tmp_path / f"vault{next(counter)}", PAGES if pages is None else pages, toml)

    return make


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real chroma server on loopback, started and stopped by the tests."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "RAYON_NUM_THREADS": "1"}
    with processes.chroma_server(tmp_path_factory.mktemp("chroma-server"), processes.free_port(), env) as url:
        yield url
