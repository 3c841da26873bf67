"""The memory tests: transcripts written with `transcript.render`, ingested through the real pipeline with a
scripted model (FakeLLM routing on the request's last message), and the briefing and recall read back."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


@pytest.fixture(autouse=True)
def _one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("WIKIC_EMBEDDING_PROVIDER", "static")
