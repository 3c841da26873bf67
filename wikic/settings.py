"""One validated settings object for a vault: `wikic.toml`, then the environment, then CLI flags.

Precedence (contract §7): defaults < `VAULT/wikic.toml` < environment < explicit overrides (CLI flags).
An override whose value is `None` never overrides: CLI options default to `None` so an unset flag leaves
the file and environment alone.

The API key is the one value that comes from the environment only. It lives in a `SecretStr` so it never
shows in `repr`, logs or tracebacks, and `wikic.toml` may not hold it (a key in a file ends up in git).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from wikic.config_file import read_config
from wikic.errors import ConfigError
from wikic.vault.layout import CONFIG_FILE

# Environment variables, most specific first: the WIKIC_ name wins over the OpenAI SDK's own.
ENV_VARS: dict[str, tuple[str, ...]] = {
    "base_url": ("WIKIC_LLM_BASE_URL", "OPENAI_BASE_URL"),
    "model": ("WIKIC_LLM_MODEL",),
    "api_key": ("WIKIC_LLM_API_KEY", "OPENAI_API_KEY"),
}

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"

# Sections other modules own; accepted as plain tables so this module needs no knowledge of them.
PASSTHROUGH_SECTIONS = ("palace", "embedding", "lint")


class LLMSettings(BaseModel):
    """`[llm]`: which OpenAI-compatible endpoint and model to call, and how."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str | None = None  # None: the OpenAI SDK default (api.openai.com)
    model: str | None = None
    timeout: float = Field(120.0, gt=0)
    max_retries: int = Field(2, ge=0, le=20)
    concurrency: int = Field(2, ge=1, le=64)
    temperature: float = Field(0.0, ge=0, le=2)
    max_output_tokens: int = Field(4096, ge=16)
    # How extraction asks: one call for the whole plan ("single"), names first and then their claims
    # ("two-pass", for small local models), or "auto" (single, switching per endpoint when plans come back thin).
    strategy: Literal["auto", "single", "two-pass"] = "auto"
    price_per_1k_input: float | None = Field(None, ge=0)
    price_per_1k_output: float | None = Field(None, ge=0)
    # Server-specific request fields sent as they are, e.g. llama.cpp's `repeat_penalty`, Ollama's `options`.
    extra_body: dict[str, Any] = Field(default_factory=dict)
    # Environment only (see module docstring); excluded from dumps and repr.
    api_key: SecretStr | None = Field(None, repr=False, exclude=True)

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https:// (e.g. http://localhost:11434/v1)")
        return value

    @property
    def endpoint(self) -> str:
        """The base URL requests go to, for messages and cache keys."""
        return (self.base_url or OPENAI_DEFAULT_BASE_URL).rstrip("/")

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        """Cost in the configured currency, or None when no price is configured."""
        if self.price_per_1k_input is None and self.price_per_1k_output is None:
            return None
        return (
            prompt_tokens * (self.price_per_1k_input or 0.0) + completion_tokens * (self.price_per_1k_output or 0.0)
        ) / 1000


class IngestSettings(BaseModel):
    """`[ingest]`: limits for source capture and chunking."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_source_mb: float = Field(25.0, gt=0)
    fetch_timeout: float = Field(30.0, gt=0)
    chunk_tokens: int = Field(6000, ge=200)
    chunk_overlap_tokens: int = Field(200, ge=0)

    @property
    def max_source_bytes(self) -> int:
        return int(self.max_source_mb * 1024 * 1024)


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    llm: LLMSettings = LLMSettings()
    ingest: IngestSettings = IngestSettings()
    palace: dict[str, Any] = Field(default_factory=dict)
    embedding: dict[str, Any] = Field(default_factory=dict)
    lint: dict[str, Any] = Field(default_factory=dict)


def load_settings(
    vault_root: Path,
    overrides: Mapping[str, Any] | None = None,
    *,
    env: Mapping[str, str] | None = None,
) -> Settings:
    """Read `vault_root/wikic.toml` (optional), apply the environment and `overrides`, validate.

    `overrides` keys are `[llm]` keys (`{"model": "x", "base_url": None}`) or dotted `section.key`
    (`{"ingest.max_source_mb": 5}`). Every problem is reported at once, each with its key and origin.
    """
    env = os.environ if env is None else env
    path = vault_root / CONFIG_FILE
    data = read_config(vault_root)
    origins: dict[tuple[str, ...], str] = {}
    _record_origins(data, (), str(path), origins)

    llm = data.setdefault("llm", {})
    if isinstance(llm, dict):
        if "api_key" in llm:
            raise ConfigError(
                f"{path}: [llm] api_key must not be stored in a file",
                hint="remove it and set WIKIC_LLM_API_KEY (or OPENAI_API_KEY) in the environment instead",
            )
        for key, names in ENV_VARS.items():
            for name in names:
                value = env.get(name)
                if value:  # an empty variable counts as unset
                    llm[key] = value
                    origins[("llm", key)] = f"environment variable {name}"
                    break
    for raw_key, value in (overrides or {}).items():
        if value is None:
            continue
        section, _, key = raw_key.rpartition(".")
        section = section or "llm"
        if section == "llm" and key == "api_key":
            raise ConfigError("the API key cannot be passed as a flag", hint="set WIKIC_LLM_API_KEY in the environment")
        target = data.setdefault(section, {})
        if not isinstance(target, dict):
            raise ConfigError(f"{path}: [{section}] must be a table")
        target[key] = value
        origins[(section, key)] = "command-line option"

    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(
            _render_errors(exc, origins, str(path)), hint=f"fix the keys above in {path} (or the named variable/flag)"
        ) from None


def _record_origins(node: Any, prefix: tuple[str, ...], origin: str, out: dict[tuple[str, ...], str]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            out[(*prefix, str(key))] = origin
            if not prefix:  # only top-level tables; deeper keys share their table's origin
                _record_origins(value, (*prefix, str(key)), origin, out)


def _render_errors(exc: ValidationError, origins: Mapping[tuple[str, ...], str], file: str) -> str:
    lines = ["invalid settings:"]
    for err in exc.errors():
        loc = tuple(str(part) for part in err["loc"])
        where = origins.get(loc[:2]) or origins.get(loc[:1]) or file
        if len(loc) == 1:
            key = f"[{loc[0]}]"
        else:
            key = f"[{loc[0]}] {'.'.join(loc[1:])}"
        if err["type"] == "extra_forbidden":
            message = "unknown key" if len(loc) > 1 else "unknown section"
        else:
            message = err["msg"]
            if "input" in err and not isinstance(err["input"], dict) and loc[-1] != "api_key":
                message += f" (got {err['input']!r})"
        lines.append(f"  {key}: {message} (from {where})")
    return "\n".join(lines)
