"""[llm] and [ingest] settings: wikic.toml < environment < overrides; the API key from the environment only."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest

from wikic.errors import ConfigError
from wikic.settings import LLMSettings, Settings, load_settings

TOML = """
[llm]
base_url = "http://localhost:11434/v1"
model = "qwen3:8b"
timeout = 60
max_retries = 3
concurrency = 4
price_per_1k_input = 0.5

[ingest]
max_source_mb = 2

[palace]
url = "http://localhost:8000"

[embedding]
provider = "openai"
model = "qwen3-embedding"
base_url = "http://localhost:11434/v1"

[lint]
strict = true
"""


def write(vault: Path, text: str) -> Path:
    path = vault / "wikic.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_a_file(tmp_path):
    settings = load_settings(tmp_path, env={})
    assert settings.model_dump(exclude={"palace"}) == Settings().model_dump(exclude={"palace"})
    assert settings.llm.model is None and settings.llm.endpoint == "https://api.openai.com/v1"
    assert settings.llm.max_output_tokens == 4096 and settings.ingest.max_source_bytes == 25 * 1024 * 1024


def test_file_values_of_every_section(tmp_path):
    write(tmp_path, TOML)
    settings = load_settings(tmp_path, env={})
    assert settings.llm.base_url == "http://localhost:11434/v1"
    assert (settings.llm.model, settings.llm.timeout, settings.llm.max_retries, settings.llm.concurrency) == (
        "qwen3:8b",
        60,
        3,
        4,
    )
    assert settings.llm.cost(2000, 1000) == pytest.approx(1.0)  # output price unset counts as 0
    assert settings.ingest.max_source_mb == 2
    assert settings.palace.url == "http://localhost:8000"
    assert (settings.embedding.provider, settings.embedding.model) == ("openai", "qwen3-embedding")
    assert settings.embedding.base_url == "http://localhost:11434/v1"
    assert settings.lint.strict is True


def test_environment_overrides_file_and_overrides_override_environment(tmp_path):
    write(tmp_path, TOML)
    env = {"WIKIC_LLM_BASE_URL": "http://env:1/v1", "WIKIC_LLM_MODEL": "env-model", "WIKIC_LLM_API_KEY": "sk-env"}
    settings = load_settings(tmp_path, {"model": "flag-model", "base_url": None, "timeout": None}, env=env)
    assert settings.llm.base_url == "http://env:1/v1"  # None flag does not override
    assert settings.llm.model == "flag-model"
    assert settings.llm.timeout == 60
    assert settings.llm.api_key is not None and settings.llm.api_key.get_secret_value() == "sk-env"


def test_openai_variables_are_fallbacks_and_empty_variables_are_unset(tmp_path):
    env = {"OPENAI_BASE_URL": "http://openai-env/v1", "OPENAI_API_KEY": "sk-openai", "WIKIC_LLM_API_KEY": ""}
    settings = load_settings(tmp_path, env=env)
    assert settings.llm.base_url == "http://openai-env/v1"
    assert settings.llm.api_key is not None and settings.llm.api_key.get_secret_value() == "sk-openai"
    both = load_settings(tmp_path, env={**env, "WIKIC_LLM_BASE_URL": "http://wikic/v1", "WIKIC_LLM_API_KEY": "sk-w"})
    assert both.llm.base_url == "http://wikic/v1" and both.llm.api_key.get_secret_value() == "sk-w"  # type: ignore[union-attr]


def test_dotted_overrides_reach_other_sections(tmp_path):
    settings = load_settings(tmp_path, {"ingest.chunk_tokens": 900, "llm.max_retries": 0}, env={})
    assert settings.ingest.chunk_tokens == 900 and settings.llm.max_retries == 0


def test_key_is_never_in_repr_or_dumps(tmp_path):
    settings = load_settings(tmp_path, env={"WIKIC_LLM_API_KEY": "sk-very-secret"})
    for text in (
        repr(settings),
        str(settings),
        repr(settings.llm),
        str(settings.model_dump()),
        settings.model_dump_json(),
    ):
        assert "sk-very-secret" not in text


def test_key_in_the_file_is_refused(tmp_path):
    path = write(tmp_path, '[llm]\nmodel = "m"\napi_key = "sk-oops"\n')
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path, env={})
    assert (
        "[llm] api_key: must not be stored in a file: set WIKIC_LLM_API_KEY or OPENAI_API_KEY in the "
        f"environment (from {path}:3)"
    ) in info.value.message
    assert "sk-oops" not in info.value.message + (info.value.hint or "")


def test_whitespace_around_a_key_is_dropped(tmp_path):
    env = {"WIKIC_LLM_API_KEY": " sk-pasted\r\n", "WIKIC_EMBEDDING_API_KEY": "\tsk-embed\n"}
    settings = load_settings(tmp_path, env=env)
    assert settings.llm.api_key is not None and settings.llm.api_key.get_secret_value() == "sk-pasted"
    assert settings.embedding.api_key is not None and settings.embedding.api_key.get_secret_value() == "sk-embed"
    assert load_settings(tmp_path, env={"WIKIC_LLM_API_KEY": " \n"}).llm.api_key is None  # nothing left: unset


@pytest.mark.parametrize("key", ["sk-in\nside", "sk-caf\u00e9", "sk-bell\x07", "sk-\u200bzero-width"])
def test_a_key_no_header_can_carry_is_refused_by_name_and_never_shown(tmp_path, key):
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path, env={"OPENAI_API_KEY": key})
    said = info.value.message + (info.value.hint or "")
    for section in ("llm", "embedding"):  # OPENAI_API_KEY is the fallback of both
        assert (f"[{section}] api_key: is not a valid HTTP header value") in said
    assert said.count("(from environment variable OPENAI_API_KEY)") == 2
    assert key not in said and repr(key)[1:-1] not in said and key[3:7] not in said
    with pytest.raises(ValueError) as raw:  # as a traceback would print it
        LLMSettings(api_key=key)
    assert key[3:7] not in str(raw.value)


def test_credentials_in_a_url_are_not_in_repr_nor_in_a_refusal(tmp_path):
    settings = load_settings(tmp_path, env={"WIKIC_LLM_BASE_URL": "https://al:pw-Hidden@host/v1"})
    assert settings.llm.base_url == "https://al:pw-Hidden@host/v1"  # what the client connects with
    assert "pw-Hidden" not in repr(settings) and "https://***@host/v1" in repr(settings.llm)
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path, env={"WIKIC_LLM_BASE_URL": "ftp://al:pw-Hidden@host/v1"})
    assert "(got 'ftp://***@host/v1')" in info.value.message and "pw-Hidden" not in info.value.message


def test_key_as_an_override_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="cannot be passed as a flag"):
        load_settings(tmp_path, {"api_key": "sk-x"}, env={})


def test_extra_body_is_passed_through():
    settings = LLMSettings(model="m", extra_body={"repeat_penalty": 1.3})
    assert settings.extra_body == {"repeat_penalty": 1.3}


def test_concurrency_is_explained_one_way() -> None:
    """README.md and docs/llm.md describe `[llm] concurrency` with the same words (docs/llm.md used to say
    "chunks of a source"; ingest bounds every model request of a run with it)."""
    import re

    repo = Path(__file__).resolve().parents[2]
    said = {doc: re.findall(r"^concurrency = \d+ +# (.+)$", (repo / doc).read_text(encoding="utf-8"), re.M)
            for doc in ("README.md", "docs/llm.md")}
    assert said["README.md"] == said["docs/llm.md"] == [
        "model requests in flight at once, over a whole ingest (all its sources and their chunks)"]


def test_concurrency_bounds_every_request_of_a_run() -> None:
    """What the docs say: sources run in parallel, each source's chunks too, and the sum stays within it."""
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    from wikic.llm.bounded import BoundedLLM

    class Slow:
        identity: ClassVar[dict[str, str]] = {"model": "slow"}

        def __init__(self) -> None:
            self.now = self.peak = 0
            self.lock = threading.Lock()

        def complete_json(self, *args, **kwargs):
            with self.lock:
                self.now += 1
                self.peak = max(self.peak, self.now)
            time.sleep(0.02)
            with self.lock:
                self.now -= 1
            return {}

    inner = Slow()
    llm = BoundedLLM(inner, 2)

    def source(_: int) -> None:
        with ThreadPoolExecutor(4) as chunks:
            list(chunks.map(lambda _: llm.complete_json(), range(4)))

    with ThreadPoolExecutor(3) as sources:
        list(sources.map(source, range(3)))
    assert inner.peak == 2
