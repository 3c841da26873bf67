"""Palace and embedding settings: `[palace]` and `[embedding]` in VAULT/wikic.toml, then environment overrides.

Self-contained on purpose, so a central settings module can later absorb it without other changes.
The API key is read from the environment only and is never part of these objects' text form.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from wikic.config_file import read_config
from wikic.errors import ConfigError
from wikic.vault.layout import CONFIG_FILE
from wikic.vault.state import DEFAULT_PALACE as DEFAULT_PALACE_DIR

# The embedding providers with what a person choosing one needs to know. The one list: the error for an
# unknown provider shows it, and a test holds README.md and docs/palace.md to it.
PROVIDERS = {
    "use": "multilingual, default",
    "e5": "better, slower",
    "static": "tiny, fast",
    "openai": "an OpenAI-compatible endpoint",
}


def provider_choices() -> str:
    """'"use" (multilingual, default), ... or "openai" (...)'."""
    named = [f'"{name}" ({what})' for name, what in PROVIDERS.items()]
    return ", ".join(named[:-1]) + " or " + named[-1]


# How search combines dense and BM25 evidence (see wikic/palace/search.py).
FUSIONS = ("convex", "rrf")
# Collection metadata key that every write changes, so readers in other processes know to catch up.
GENERATION_KEY = "wikic_generation"


@dataclass(frozen=True)
class EmbeddingSettings:
    """Which model turns text into vectors. `model` names the endpoint's model for `openai`."""

    provider: str = "use"
    model: str | None = None
    base_url: str | None = None
    batch_size: int = 64
    timeout: float = 60.0
    max_retries: int = 2
    # Input limit of an openai-compatible model, in its tokens; we cannot measure a remote model's window.
    max_input_tokens: int = 512
    api_key: str | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class PalaceSettings:
    """Where the palace lives, how drawers are cut and how search fuses its evidence."""

    path: Path
    url: str | None = None
    collection: str = "wikic_drawers"
    # Upper bound of a drawer, in the embedder's own tokens (the embedder may force a lower one).
    chunk_tokens: int = 128
    lock_timeout: float = 600.0
    fusion: str = "convex"
    # 60 is the constant of Cormack et al. (SIGIR 2009), used unchanged by nearly everyone since.
    rrf_k: int = 60
    embedding: EmbeddingSettings = field(default_factory=EmbeddingSettings)

    @property
    def host_port(self) -> tuple[str, int, bool]:
        """(host, port, ssl) of the chroma server; only meaningful when `url` is set."""
        assert self.url is not None
        parsed = urlparse(self.url)
        ssl = parsed.scheme == "https"
        return parsed.hostname or "localhost", parsed.port or (443 if ssl else 8000), ssl


_PALACE_KEYS = {"path", "url", "collection", "chunk_tokens", "lock_timeout", "fusion", "rrf_k"}
_EMBEDDING_KEYS = {"provider", "model", "base_url", "batch_size", "timeout", "max_retries", "max_input_tokens"}


def _section(data: dict[str, Any], name: str, allowed: set[str]) -> dict[str, Any]:
    section = data.get(name, {})
    if not isinstance(section, dict):
        raise ConfigError(f"{CONFIG_FILE}: [{name}] must be a table")
    for key in section:
        if key not in allowed:
            raise ConfigError(
                f"{CONFIG_FILE}: unknown key '{key}' in [{name}]",
                hint=f"allowed keys: {', '.join(sorted(allowed))}",
            )
    return dict(section)


def _typed(section: str, key: str, value: Any, kind: type) -> Any:
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ConfigError(f"{CONFIG_FILE}: [{section}] {key} must be a {kind.__name__}, got {value!r}")
    return value


def _check_url(what: str, url: str) -> str:
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ConfigError(f"{what} must be an http(s) URL like http://127.0.0.1:8000, got {url!r}")
    return url.rstrip("/")


def _check_fusion(palace: dict[str, Any]) -> None:
    if "fusion" in palace and _typed("palace", "fusion", palace["fusion"], str) not in FUSIONS:
        raise ConfigError(
            f"{CONFIG_FILE}: [palace] fusion must be one of {', '.join(FUSIONS)}, got {palace['fusion']!r}"
        )
    if "rrf_k" in palace and _typed("palace", "rrf_k", palace["rrf_k"], int) < 1:
        raise ConfigError(f"{CONFIG_FILE}: [palace] rrf_k must be at least 1, got {palace['rrf_k']}")


def load_settings(vault: Path, env: dict[str, str] | None = None) -> PalaceSettings:
    """Read and validate the palace settings of `vault`; environment variables win over wikic.toml."""
    env = dict(os.environ) if env is None else env
    data = read_config(vault)
    palace = _section(data, "palace", _PALACE_KEYS)
    embedding = _section(data, "embedding", _EMBEDDING_KEYS)

    for key, kind in (("provider", str), ("model", str), ("base_url", str)):
        if key in embedding:
            _typed("embedding", key, embedding[key], kind)
    for key in ("batch_size", "max_retries", "max_input_tokens"):
        if key in embedding:
            _typed("embedding", key, embedding[key], int)
    if "timeout" in embedding:
        embedding["timeout"] = _typed("embedding", "timeout", embedding["timeout"], float)

    overrides = {
        "provider": env.get("WIKIC_EMBEDDING_PROVIDER"),
        "model": env.get("WIKIC_EMBEDDING_MODEL"),
        "base_url": env.get("WIKIC_EMBEDDING_BASE_URL"),
    }
    embedding.update({k: v for k, v in overrides.items() if v})
    if not embedding.get("base_url") and env.get("OPENAI_BASE_URL"):
        embedding["base_url"] = env["OPENAI_BASE_URL"]  # as the openai client itself would
    embedding["api_key"] = env.get("WIKIC_EMBEDDING_API_KEY") or env.get("OPENAI_API_KEY") or None

    provider = embedding.get("provider", "use")
    if provider not in PROVIDERS:
        raise ConfigError(f"unknown embedding provider {provider!r}", hint=f"choose {provider_choices()}")
    if provider == "openai":
        if not embedding.get("model"):
            raise ConfigError("[embedding] provider = \"openai\" needs model = \"<the endpoint's model name>\"")
        if not embedding.get("base_url"):
            raise ConfigError("[embedding] provider = \"openai\" needs base_url, e.g. \"http://127.0.0.1:11434/v1\"")
        embedding["base_url"] = _check_url("[embedding] base_url", embedding["base_url"])
    elif embedding.get("model"):
        raise ConfigError(
            f"[embedding] model is only for provider = \"openai\"; the {provider!r} model is built in"
        )
    for key in ("batch_size", "max_input_tokens"):
        if key in embedding and embedding[key] < 1:
            raise ConfigError(f"[embedding] {key} must be at least 1")

    for key, kind in (("path", str), ("url", str), ("collection", str)):
        if key in palace:
            _typed("palace", key, palace[key], kind)
    if "chunk_tokens" in palace:
        _typed("palace", "chunk_tokens", palace["chunk_tokens"], int)
        if not 16 <= palace["chunk_tokens"] <= 8192:
            raise ConfigError("[palace] chunk_tokens must be between 16 and 8192")
    if "lock_timeout" in palace:
        palace["lock_timeout"] = _typed("palace", "lock_timeout", palace["lock_timeout"], float)
    _check_fusion(palace)
    if env.get("WIKIC_PALACE_URL"):
        palace["url"] = env["WIKIC_PALACE_URL"]
    if palace.get("url"):
        palace["url"] = _check_url("[palace] url", palace["url"])
    collection = palace.get("collection", "wikic_drawers")
    if not (3 <= len(collection) <= 512) or not all(c.isalnum() or c in "._-" for c in collection):
        raise ConfigError(
            f"[palace] collection must be 3-512 characters of letters, digits, '.', '_', '-': {collection!r}"
        )

    path = Path(palace.pop("path", DEFAULT_PALACE_DIR))
    if not path.is_absolute():
        path = vault / path
    known = {f.name for f in fields(EmbeddingSettings)}
    return PalaceSettings(
        path=path,
        embedding=EmbeddingSettings(**{k: v for k, v in embedding.items() if k in known}),
        **palace,
    )
