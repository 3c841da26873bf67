"""End-to-end ingest through the real `openai` client against the stand-in server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from standin_openai import StandinServer


@pytest.fixture
def standin() -> Iterator[StandinServer]:
    with StandinServer() as server:
        yield server


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("WIKIC_LLM_BASE_URL", "WIKIC_LLM_MODEL", "WIKIC_LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WIKIC_EMBEDDING_PROVIDER", "static")
