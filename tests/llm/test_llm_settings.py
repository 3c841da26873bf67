"""Settings: wikic.toml < environment < overrides; every problem reported with its key and origin."""

from __future__ import annotations

from pathlib import Path

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

[lint]
strict = true
"""


def write(vault: Path, text: str) -> Path:
    path = vault / "wikic.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_a_file(tmp_path):
    settings = load_settings(tmp_path, env={})
    assert settings == Settings()
    assert settings.llm.model is None and settings.llm.endpoint == "https://api.openai.com/v1"
    assert settings.llm.max_output_tokens == 4096 and settings.ingest.max_source_bytes == 25 * 1024 * 1024


def test_file_values_and_passthrough_sections(tmp_path):
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
    assert settings.palace == {"url": "http://localhost:8000"}
    assert settings.embedding == {"provider": "openai", "model": "qwen3-embedding"}
    assert settings.lint == {"strict": True}


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
    assert str(path) in info.value.message and "api_key" in info.value.message
    assert "sk-oops" not in info.value.message
    assert "WIKIC_LLM_API_KEY" in (info.value.hint or "")


def test_key_as_an_override_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="cannot be passed as a flag"):
        load_settings(tmp_path, {"api_key": "sk-x"}, env={})


def test_every_problem_is_reported_with_key_and_origin(tmp_path):
    path = write(
        tmp_path,
        '[llm]\ntimeout = "soon"\nmodle = "typo"\nconcurrency = 0\n[ingest]\nchunk_tokens = 5\n[extras]\nx = 1\n',
    )
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path, {"max_retries": -1}, env={"WIKIC_LLM_BASE_URL": "localhost:11434"})
    message = info.value.message
    assert (
        f"[llm] timeout: Input should be a valid number, unable to parse string as a number (got 'soon') (from {path})"
        in message
    )
    assert f"[llm] modle: unknown key (from {path})" in message
    assert "[llm] concurrency: Input should be greater than or equal to 1" in message
    assert "[ingest] chunk_tokens: Input should be greater than or equal to 200" in message
    assert f"[extras]: unknown section (from {path})" in message
    assert "[llm] max_retries" in message and "(from command-line option)" in message
    assert "[llm] base_url" in message and "(from environment variable WIKIC_LLM_BASE_URL)" in message
    assert info.value.exit_code == 2


@pytest.mark.parametrize(
    "text, where, what",
    [
        ('[llm]\nmodel = "m"\ntimeout = \n', "3:11", "Invalid value"),
        ("[palace\n", "1:8", "Expected ']' at the end of a table declaration"),
        ("[embedding]\nprovider = [1,\n", "3:1", "Invalid value"),  # tomllib: "at end of document"
    ],
)
def test_bad_toml_is_one_message_naming_file_line_and_column(tmp_path, text, where, what):
    """The LLM settings and the palace settings read wikic.toml through one reader: one message."""
    from wikic.palace.config import load_settings as load_palace_settings

    path = write(tmp_path, text)
    seen = []
    for load in (load_settings, load_palace_settings):
        with pytest.raises(ConfigError) as info:
            load(tmp_path, env={})
        seen.append((info.value.message, info.value.hint, info.value.exit_code))
    assert seen == [(f"{path}:{where}: invalid TOML: {what}", "see https://toml.io for the syntax", 2)] * 2


def test_non_utf8_file_is_one_message_too(tmp_path):
    from wikic.palace.config import load_settings as load_palace_settings

    path = tmp_path / "wikic.toml"
    path.write_bytes(b'[palace]\ncollection = "caf\xe9"\n')
    for load in (load_settings, load_palace_settings):
        with pytest.raises(ConfigError) as info:
            load(tmp_path, env={})
        assert (info.value.message, info.value.hint) == (f"{path}: not UTF-8 text", "save the file as UTF-8")


def test_non_utf8_file_is_a_config_error(tmp_path):
    (tmp_path / "wikic.toml").write_bytes(b'[llm]\nmodel = "caf\xe9"\n')
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_settings(tmp_path, env={})


def test_llm_section_must_be_a_table(tmp_path):
    write(tmp_path, 'llm = "gpt"\n')
    with pytest.raises(ConfigError, match=r"\[llm\]"):
        load_settings(tmp_path, env={})


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

    from wikic.ingest.pipeline import BoundedLLM

    class Slow:
        identity = {"model": "slow"}

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
