"""Fixtures for the conversation tests: a fresh vault and a scripted model (helpers: `convkit`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from convkit import plan_for
from fake_llm import FakeLLM

from wikic.vault.init import init_vault


@pytest.fixture
def llm() -> FakeLLM:
    return FakeLLM().respond_with(plan_for)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "wiki"
    init_vault(root)
    return root


@pytest.fixture(autouse=True)
def _static_embeddings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIKIC_EMBEDDING_PROVIDER", "static")
