"""Palace and embedding settings: the [palace] and [embedding] sections, validation, environment overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikic.errors import ConfigError
from wikic.settings import load_settings, provider_choices


def _vault(tmp_path: Path, toml: str) -> Path:
    (tmp_path / "wikic.toml").write_text(toml, encoding="utf-8")
    return tmp_path


def test_defaults_without_a_config_file(tmp_path: Path) -> None:
    s = load_settings(tmp_path, env={})
    assert s.palace.path == tmp_path / ".wikic" / "palace"
    assert s.palace.url is None and s.palace.collection == "wikic_drawers" and s.palace.chunk_tokens == 128
    assert s.embedding.provider == "use" and s.embedding.model is None


def test_a_relative_palace_path_is_under_the_vault(tmp_path: Path) -> None:
    assert load_settings(_vault(tmp_path, '[palace]\npath = "idx"\n'), env={}).palace.path == tmp_path / "idx"
    elsewhere = tmp_path / "elsewhere"
    assert load_settings(_vault(tmp_path, f'[palace]\npath = "{elsewhere}"\n'), env={}).palace.path == elsewhere


def test_sections_are_read_and_env_wins(tmp_path: Path) -> None:
    vault = _vault(tmp_path, '[palace]\nurl = "http://10.0.0.1:8000"\nchunk_tokens = 200\n'
                              '[embedding]\nprovider = "static"\n')
    s = load_settings(vault, env={})
    assert s.palace.url == "http://10.0.0.1:8000" and s.palace.host_port == ("10.0.0.1", 8000, False)
    assert s.palace.chunk_tokens == 200 and s.embedding.provider == "static"
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
    assert s.palace.url == "http://127.0.0.1:9000"
    assert s.embedding.api_key is not None and s.embedding.api_key.get_secret_value() == "sk-fallback"
    assert "sk-fallback" not in repr(s) + s.model_dump_json()
    own = load_settings(vault, env={**env, "WIKIC_EMBEDDING_API_KEY": "sk-own"}).embedding.api_key
    assert own is not None and own.get_secret_value() == "sk-own"
    fallback = {"WIKIC_EMBEDDING_PROVIDER": "openai", "WIKIC_EMBEDDING_MODEL": "m", "OPENAI_BASE_URL": "http://h:1/v1"}
    assert load_settings(vault, env=fallback).embedding.base_url == "http://h:1/v1"
    # OPENAI_BASE_URL is a fallback for [embedding]: the file's base_url wins over it
    vault = _vault(tmp_path, '[embedding]\nprovider = "openai"\nmodel = "m"\nbase_url = "http://file:2/v1"\n')
    assert load_settings(vault, env=fallback).embedding.base_url == "http://file:2/v1"


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (
            "[palace]\ncolour = 1\n",
            (
                "[palace] colour: unknown key (known keys: path, url, collection, chunk_tokens, lock_timeout, "
                "fusion, rrf_k) (from {path}:2)"
            ),
        ),
        ("[embedding]\nmodle = 'x'\n", "[embedding] modle: unknown key; did you mean 'model'?"),
        (
            "[embedding]\nprovider = 'bert'\n",
            (
                f"[embedding] provider: unknown embedding provider: choose {provider_choices()} (got 'bert') "
                "(from {path}:2)"
            ),
        ),
        (
            "[embedding]\nprovider = 'openai'\nbase_url = 'http://h:1/v1'\n",
            '[embedding]: provider = "openai" needs model',
        ),
        ("[embedding]\nprovider = 'openai'\nmodel = 'm'\n", '[embedding]: provider = "openai" needs base_url'),
        (
            "[embedding]\nprovider = 'openai'\nmodel = 'm'\nbase_url = 'h:1'\n",
            "[embedding] base_url: must be an http(s) URL like http://127.0.0.1:11434/v1 (got 'h:1') (from {path}:4)",
        ),
        (
            "[embedding]\nprovider = 'use'\nmodel = 'm'\n",
            "[embedding]: model is only for provider = \"openai\"; the 'use' model is built in (from {path}:1)",
        ),
        (
            "[embedding]\napi_key = 'sk-x'\n",
            "[embedding] api_key: must not be stored in a file: set WIKIC_EMBEDDING_API_KEY or OPENAI_API_KEY",
        ),
        (
            "[palace]\nurl = 'localhost:8000'\n",
            "[palace] url: must be an http(s) URL like http://127.0.0.1:8000 (got 'localhost:8000')",
        ),
        ("[palace]\nchunk_tokens = 'big'\n", "[palace] chunk_tokens: Input should be a valid integer (got 'big')"),
        ("[palace]\nchunk_tokens = 4\n", "[palace] chunk_tokens: Input should be greater than or equal to 16 (got 4)"),
        (
            "[palace]\nchunk_tokens = 9000\n",
            "[palace] chunk_tokens: Input should be less than or equal to 8192 (got 9000)",
        ),
        ("[palace]\ncollection = 'x'\n", "[palace] collection: must be 3-512 characters of letters, digits"),
        ("[palace\n", "{path}:1:8: invalid TOML: Expected ']' at the end of a table declaration"),
    ],
)
def test_bad_settings_are_config_errors(tmp_path: Path, toml: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_settings(_vault(tmp_path, toml), env={})
    assert message.format(path=tmp_path / "wikic.toml") in err.value.message
    assert err.value.exit_code == 2
    assert "sk-x" not in err.value.message


def test_the_error_and_the_docs_list_the_same_embedding_providers(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        load_settings(_vault(tmp_path, "[embedding]\nprovider = 'bert'\n"), env={})
    assert f"choose {provider_choices()}" in err.value.message
    repo = Path(__file__).resolve().parents[2]
    for doc in ("README.md", "docs/palace.md"):
        assert provider_choices() in (repo / doc).read_text(encoding="utf-8"), doc
