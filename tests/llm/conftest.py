"""Fixtures for the LLM-layer tests: the stand-in OpenAI server and clients pointed at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr
from standin_openai import StandinServer

from wikic.llm.client import OpenAICompatible
from wikic.settings import LLMSettings

LLM_ENV = ("WIKIC_LLM_BASE_URL", "WIKIC_LLM_MODEL", "WIKIC_LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY")
SECRET = "sk-test-SECRET-0123456789"


@pytest.fixture(autouse=True)
def _no_llm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's real endpoint or key must never leak into these tests."""
    for name in LLM_ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def secret() -> str:
    """The API key the stand-in clients use; tests check it never leaks."""
    return SECRET


@pytest.fixture
def standin() -> Iterator[StandinServer]:
    with StandinServer() as server:
        yield server


@pytest.fixture
def make_llm(standin: StandinServer, tmp_path: Path) -> Iterator[Callable[..., OpenAICompatible]]:
    """A real `OpenAICompatible` over HTTP to the stand-in; short timeouts so failure tests stay fast."""
    clients: list[OpenAICompatible] = []

    def make(**overrides: Any) -> OpenAICompatible:
        values: dict[str, Any] = {
            "base_url": standin.base_url,
            "model": "standin-model",
            "timeout": 5.0,
            "max_retries": 2,
            "api_key": SecretStr(SECRET),
        }
        values.update(overrides)
        state_dir = values.pop("state_dir", tmp_path / ".wikic")
        client = OpenAICompatible(LLMSettings(**values), state_dir=state_dir)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()
