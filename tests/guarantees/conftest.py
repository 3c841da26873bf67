"""Fixtures for the guarantee tests: a stand-in model on loopback, the static embedder, one thread each, the
crash worker."""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ[_var] = "1"
os.environ["TOKENIZERS_PARALLELISM"] = "false"
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from collections.abc import Iterator  # noqa: E402 - after the thread limits above
from pathlib import Path  # noqa: E402 - after the thread limits above

import gkit  # noqa: E402 - after the thread limits above
import pytest  # noqa: E402 - after the thread limits above
from standin_openai import StandinServer  # noqa: E402 - after the thread limits above

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every guarantee test is in the slow tier: they kill processes, run several at once, start chroma
    servers or replay property tests by the thousand (`pytest -m "not slow"` leaves them out)."""
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _static_palace(monkeypatch: pytest.MonkeyPatch) -> None:
    # after tests/conftest.py has cleared WIKIC_*: the tiny static model keeps the palace fast
    monkeypatch.setenv("WIKIC_EMBEDDING_PROVIDER", "static")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")


@pytest.fixture
def standin() -> Iterator[StandinServer]:
    with StandinServer() as server:
        server.route = gkit.route
        yield server


@pytest.fixture
def worker() -> Iterator[gkit.Worker]:
    """The crash worker, for the tests that kill a command at a chosen write step."""
    w = gkit.Worker()
    yield w
    w.close()
