"""Against a real endpoint: runs only when WIKIC_LLM_BASE_URL is set (and WIKIC_LLM_MODEL names a model)."""

from __future__ import annotations

import os

import pytest
from pydantic import BaseModel, ConfigDict, Field, SecretStr

from wikic.llm.client import OpenAICompatible
from wikic.llm.structured import ask
from wikic.settings import LLMSettings

# Read at import: the autouse fixture clears these variables for every other test.
LIVE_URL = os.environ.get("WIKIC_LLM_BASE_URL", "")
LIVE_MODEL = os.environ.get("WIKIC_LLM_MODEL", "")
LIVE_KEY = os.environ.get("WIKIC_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY") or ""

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        not LIVE_URL, reason="set WIKIC_LLM_BASE_URL (and WIKIC_LLM_MODEL) to run against a real endpoint"
    ),
]


class Capital(BaseModel):
    model_config = ConfigDict(extra="forbid")
    city: str = Field(max_length=40)


def test_structured_call_against_a_real_endpoint(tmp_path):
    settings = LLMSettings(
        base_url=LIVE_URL,
        model=LIVE_MODEL or "default",
        timeout=600,
        max_retries=1,
        api_key=SecretStr(LIVE_KEY) if LIVE_KEY else None,
    )
    llm = OpenAICompatible(settings, state_dir=tmp_path)
    messages = [
        {"role": "system", "content": "Reply with a JSON object."},
        {"role": "user", "content": "What is the capital of France? Answer with the city name in `city`."},
    ]
    result = ask(llm, messages, Capital, schema_name="capital", max_tokens=64)
    assert isinstance(result.value.city, str) and result.value.city
    assert result.usage.calls >= 1 and result.usage.prompt_tokens > 0
    assert llm.response_mode in ("json_schema", "json_schema_portable", "json_object")
    llm.close()
