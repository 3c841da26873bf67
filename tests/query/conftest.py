"""Fixtures for the query, write-back and status tests: a vault built once per session through the real
ingest path (stand-in model over HTTP, static embedder), copied for each test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from querykit import QueryWiki, build_template
from standin_openai import StandinServer


@pytest.fixture(scope="session")
def template_vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("query-template")
    with pytest.MonkeyPatch.context() as mp:
        for name in ("WIKIC_LLM_BASE_URL", "WIKIC_LLM_MODEL", "WIKIC_LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY",
                     "WIKIC_PALACE_URL", "WIKIC_EMBEDDING_MODEL", "WIKIC_EMBEDDING_BASE_URL"):
            mp.delenv(name, raising=False)
        mp.setenv("WIKIC_EMBEDDING_PROVIDER", "static")
        mp.setenv("OMP_NUM_THREADS", "1")
        return build_template(base / "wiki", base / "inbox")


@pytest.fixture(autouse=True)
def _static_palace(monkeypatch: pytest.MonkeyPatch) -> None:
    # after tests/conftest.py has cleared WIKIC_*: the small static model keeps the palace fast
    monkeypatch.setenv("WIKIC_EMBEDDING_PROVIDER", "static")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")


@pytest.fixture
def standin() -> Iterator[StandinServer]:
    with StandinServer() as server:
        yield server


@pytest.fixture
def wiki(template_vault: Path, tmp_path: Path, standin: StandinServer) -> QueryWiki:
    return QueryWiki.copy(template_vault, tmp_path / "wiki", standin)
