"""Palace settings: wikic.toml sections, validation, environment overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikic.errors import ConfigError
from wikic.palace.config import load_settings, provider_choices


def _vault(tmp_path: Path, toml: str) -> Path:
    (tmp_path / "wikic.toml").write_text(toml, encoding="utf-8")
    return tmp_path


def test_defaults_without_a_config_file(tmp_path: Path) -> None:
    s = load_settings(tmp_path, env={})
    assert s.path == tmp_path / ".wikic" / "palace"
    assert s.url is None and s.collection == "wikic_drawers" and s.chunk_tokens == 128
    assert s.embedding.provider == "use" and s.embedding.model is None


def test_sections_are_read_and_env_wins(tmp_path: Path) -> None:
    vault = _vault(tmp_path, '[palace]\nurl = "http://10.0.0.1:8000"\nchunk_tokens = 200\n'
                              '[embedding]\nprovider = "static"\n')
    s = load_settings(vault, env={})
    assert s.url == "http://10.0.0.1:8000" and s.host_port == ("10.0.0.1", 8000, False)
    assert s.chunk_tokens == 200 and s.embedding.provider == "static"
    env = {
        "WIKIC_EMBEDDING_PROVIDER": "openai",
        "WIKIC_EMBEDDING_MODEL": "qwen3-embedding",
        "WIKIC_EMBEDDING_BASE_URL": "http://127.0.0.1:11434/v1/",
        "WIKIC_PALACE_URL": "http://127.0.0.1:9000",
        "OPENAI_API_KEY": "sk-fallback",
    }
    s = load_settings(vault, env=env)
    assert (s.embedding.provider, s.embedding.model, s.embedding.base_url) == (
        "openai", "qwen3-embedding", "http://127.0.0.1:11434/v1")
    assert s.url == "http://127.0.0.1:9000"
    assert s.embedding.api_key == "sk-fallback" and "sk-fallback" not in repr(s)
    assert load_settings(vault, env={**env, "WIKIC_EMBEDDING_API_KEY": "sk-own"}).embedding.api_key == "sk-own"
    fallback = {"WIKIC_EMBEDDING_PROVIDER": "openai", "WIKIC_EMBEDDING_MODEL": "m", "OPENAI_BASE_URL": "http://h:1/v1"}
    assert load_settings(vault, env=fallback).embedding.base_url == "http://h:1/v1"


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[palace]\ncolour = 1\n", "unknown key 'colour' in [palace]"),
        ("[embedding]\nmodle = 'x'\n", "unknown key 'modle' in [embedding]"),
        ("[embedding]\nprovider = 'bert'\n", "unknown embedding provider 'bert'"),
        ("[embedding]\nprovider = 'openai'\nbase_url = 'http://h:1/v1'\n", "needs model"),
        ("[embedding]\nprovider = 'openai'\nmodel = 'm'\n", "needs base_url"),
        ("[embedding]\nprovider = 'use'\nmodel = 'm'\n", "only for provider"),
        ("[palace]\nurl = 'localhost:8000'\n", "http(s) URL"),
        ("[palace]\nchunk_tokens = 'big'\n", "chunk_tokens must be a int"),
        ("[palace]\nchunk_tokens = 4\n", "between 16 and 8192"),
        ("[palace]\ncollection = 'x'\n", "collection must be"),
        ("[palace\n", "wikic.toml:1:8: invalid TOML: Expected ']' at the end of a table declaration"),
    ],
)
def test_bad_settings_are_config_errors(tmp_path: Path, toml: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_settings(_vault(tmp_path, toml), env={})
    assert message in err.value.message
    assert err.value.exit_code == 2


def test_the_error_and_the_docs_list_the_same_embedding_providers(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        load_settings(_vault(tmp_path, "[embedding]\nprovider = 'bert'\n"), env={})
    assert err.value.hint == f"choose {provider_choices()}"
    repo = Path(__file__).resolve().parents[2]
    for doc in ("README.md", "docs/palace.md"):
        assert provider_choices() in (repo / doc).read_text(encoding="utf-8"), doc
