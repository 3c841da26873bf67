"""The memory tests: transcripts written with `transcript.render`, ingested through the real pipeline with a
scripted model (FakeLLM routing on the request's last message), and the briefing and recall read back."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _small_palace(monkeypatch: pytest.MonkeyPatch) -> None:
    """The palace's tiny static model (after tests/conftest.py cleared WIKIC_*); duplicates of memories are
    still judged by the packaged USE model, as in use."""
    monkeypatch.setenv("WIKIC_EMBEDDING_PROVIDER", "static")
