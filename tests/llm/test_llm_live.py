"""Against a real endpoint, in the live tier: `python -m pytest -m live` with WIKIC_LLM_BASE_URL set (and
WIKIC_LLM_MODEL naming a model)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict, Field, SecretStr
from testkit import live_endpoint

from wikic.llm.client import OpenAICompatible
from wikic.llm.structured import ask
from wikic.settings import LLMSettings

pytestmark = pytest.mark.live


class Capital(BaseModel):
    model_config = ConfigDict(extra="forbid")
    city: str = Field(max_length=40)


def test_structured_call_against_a_real_endpoint(tmp_path):
    live = live_endpoint()
    key = live.get("WIKIC_LLM_API_KEY") or live.get("OPENAI_API_KEY")
    settings = LLMSettings(
        base_url=live["WIKIC_LLM_BASE_URL"],
        model=live.get("WIKIC_LLM_MODEL", "default"),
        timeout=600,
        max_retries=1,
        api_key=SecretStr(key) if key else None,
    )
    llm = OpenAICompatible(settings, state_dir=tmp_path)
    messages = [
        {"role": "system", "content": "Reply with a JSON object."},
        {"role": "user", "content": "What is the capital of France? Answer with the city name in `city`."},
    ]
    result = ask(llm, messages, Capital, schema_name="capital", max_tokens=64)
    assert isinstance(result.value.city, str)
    assert result.value.city
    assert result.usage.calls >= 1 and result.usage.prompt_tokens > 0
    assert llm.response_mode in ("json_schema", "json_schema_portable", "json_object")
    llm.close()
