"""One validated settings object for a vault: every section of `wikic.toml`, then the environment, then flags.

Precedence: defaults < `VAULT/wikic.toml` < environment variables < explicit overrides (CLI flags). An
override whose value is `None` never overrides: CLI options default to `None` so an unset flag leaves the
file and environment alone.

The whole file is validated at once, whoever reads it: every bad key is reported with its section, where
it came from (`wikic.toml:LINE`, the variable, or the flag) and, for an unknown key, the known ones.

API keys come from the environment only. They live in `SecretStr`s so they never show in `repr`, logs or
tracebacks, and `wikic.toml` may not hold one (a key in a file ends up in git).

A vault is often a clone or a synced folder, so its `wikic.toml` may not decide what is its user's. The API
key from the environment goes only to an endpoint the user named: in a variable or a flag, the provider's
default (no base_url anywhere), or one listed in `trusted_endpoints` of the user's own config
(`~/.config/wikic/config.toml`, `wikic trust URL`). An endpoint only the vault names gets no key
(`KeyWithheld`): a server on loopback, which needs none (Ollama, llama.cpp), is asked without it, any other
is refused before a request is made. Likewise what widens what wikic reaches beyond the vault (`[mcp] allow`,
`[capture] allow`, a palace elsewhere) comes from the user's config or the environment, and a `wikic.toml`
that sets it is refused, naming the key and where it belongs.

Settings and shipped files, in detail:

- `settings.load_settings` is the one loader of `wikic.toml`: `config_file.py` reads the TOML (BOM
  tolerated, syntax errors as `path:line:col`, the line of every key), then the environment variables and
  CLI overrides are laid over it and `Settings` (pydantic, strict, `extra="forbid"`: one model per section,
  `[llm]`, `[ingest]`, `[palace]`, `[embedding]`, `[lint]`, `[capture]`, `[search]`) validates the whole
  file at once; every number has a range and must be finite (`allow_inf_nan=False`). Every problem
  is collected into one `ConfigError` naming section, key and origin (file line, variable or flag), with
  the known keys for an unknown one. The faces load it through their `VaultContext` (once a run, again
  only when the file changed), so every command refuses a bad file with the same message. Lint reads `[lint] strict`
  only as the default of `--strict`;
  rule severities belong to SCHEMA.md.
- `resources.py` is the one reader of the top-level `templates/` and `schema/` (packaged as
  `wikic/_data/` by hatch `force-include`; read from the repository root in a checkout or an editable
  install). `vault/init.py` copies `templates/vault/` and `schema/SCHEMA.md`; `pages/index_file.py` and
  `pages/log_file.py` take the index title, section headings and log header from the same skeleton (and
  so does every module that starts an `index.md`); the compiler and query write-back open new pages from
  `templates/pages/<type>.md`, whose frontmatter keys also fix the order every page's frontmatter is
  written in. `vault/fields.py` is the one list of page frontmatter fields (required keys, value types):
  lint's `frontmatter` rule and `pages/frontmatter.py` use it, and `json_schemas.py` generates
  `schema/frontmatter/*.schema.json` from it and `schema/chunk-plan.schema.json` from the `ChunkPlan`
  model; a test holds the checked-in files to the code.
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args
from urllib.parse import urlparse, urlsplit

from annotated_types import Ge, Gt, Le, Lt
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from wikic.config_file import read_config_file, read_user_config, user_config_path
from wikic.errors import ConfigError
from wikic.redact import without_credentials

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"

# Environment variables per (section, key), most specific first: the WIKIC_ name wins over the OpenAI SDK's.
ENV_VARS: dict[tuple[str, str], tuple[str, ...]] = {
    ("llm", "base_url"): ("WIKIC_LLM_BASE_URL", "OPENAI_BASE_URL"),
    ("llm", "model"): ("WIKIC_LLM_MODEL",),
    ("llm", "api_key"): ("WIKIC_LLM_API_KEY", "OPENAI_API_KEY"),
    ("embedding", "provider"): ("WIKIC_EMBEDDING_PROVIDER",),
    ("embedding", "model"): ("WIKIC_EMBEDDING_MODEL",),
    ("embedding", "base_url"): ("WIKIC_EMBEDDING_BASE_URL",),
    ("embedding", "api_key"): ("WIKIC_EMBEDDING_API_KEY", "OPENAI_API_KEY"),
    ("palace", "url"): ("WIKIC_PALACE_URL",),
    ("palace", "path"): ("WIKIC_PALACE_PATH",),
}
# Read only when neither the file nor a variable above sets the key, as the openai client itself would.
ENV_FALLBACKS: dict[tuple[str, str], tuple[str, ...]] = {("embedding", "base_url"): ("OPENAI_BASE_URL",)}
# Keys that must never be in a file, with the variables to use instead.
SECRET_KEYS = {key: names for key, names in ENV_VARS.items() if key[1] == "api_key"}
# Keys a vault's wikic.toml may not set, since they widen what wikic reaches beyond the vault: they belong in
# the user's own config (`UserSettings`), from where they are laid over the vault's settings.
USER_KEYS = (("mcp", "allow"), ("capture", "allow"))
# keys of the user's own config alone, which a vault's wikic.toml may not hold at all
_USER_ONLY_KEYS = (("search", "serve"), ("search", "serve_idle"))
# The command-line flags that set a key (`overrides`), so a bad value is reported under the flag's name.
FLAGS: dict[tuple[str, str], str] = {
    ("llm", "model"): "--model",
    ("llm", "base_url"): "--base-url",
    ("llm", "concurrency"): "--concurrency",
    ("llm", "strategy"): "--strategy",
}

# Upper bounds shared by the keys of one kind: beyond them a value is a mistake (a typo, an extra digit, a
# value meant for another unit), never a setting, and some would overflow where they are used.
DAY_SECONDS = 86_400  # any wait: a model, a fetch, an embedding endpoint, a lock
MAX_TOKENS = 1_000_000  # any token count: more than any model's window

# The embedding providers with what a person choosing one needs to know. The one list: the error for an
# unknown provider shows it, and a test holds README.md and docs/palace.md to it.
PROVIDERS = {
    "use": "multilingual, default",
    "e5": "better, slower",
    "static": "tiny, fast",
    "openai": "an OpenAI-compatible endpoint",
}
# How search combines dense and BM25 evidence (see wikic/palace/hybrid.py).
Fusion = Literal["calibrated", "convex", "rrf"]
FUSIONS: tuple[str, ...] = get_args(Fusion)
# How extraction asks the model for a source's plan (LLMSettings.strategy).
Strategy = Literal["auto", "single", "two-pass"]


def _header_safe_key(value: object) -> object:
    """An API key without the whitespace around it (a key pasted from a file ends in a line break); None when
    nothing is left. What still cannot be sent in an `Authorization` header is refused, without the key."""
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    if not isinstance(value, str):
        return value
    key = value.strip()
    if not key:
        return None
    if not all(" " <= c <= "~" or c == "\t" for c in key):
        raise ValueError(
            "is not a valid HTTP header value: it holds a line break, a control character or a non-ASCII "
            "character (the key is not shown; copy it again)"
        )
    return key


def provider_choices() -> str:
    """'"use" (multilingual, default), ... or "openai" (...)'."""
    named = [f'"{name}" ({what})' for name, what in PROVIDERS.items()]
    return ", ".join(named[:-1]) + " or " + named[-1]


def http_url(value: str, example: str) -> str:
    """`value` as an endpoint's URL (without a trailing slash), or ValueError saying what is wrong with it:
    the one check of every URL in the settings, so a URL the HTTP client would choke on (an unclosed `[`,
    a port out of range, a space) is a configuration error naming its key, never a traceback."""
    if any(c.isspace() or not c.isprintable() for c in value):
        raise ValueError(f"must be an http(s) URL like {example}, without spaces or control characters")
    try:
        parsed = urlsplit(value)
        parsed.port  # noqa: B018 - read for the ValueError of a port that is no number or out of range
    except ValueError as exc:
        raise ValueError(f"is not a valid URL ({exc}): write it like {example}") from None
    host = parsed.hostname or ""
    if parsed.scheme not in ("http", "https") or not host:
        raise ValueError(f"must be an http(s) URL like {example}")
    if not (_ip_literal(host) if ":" in host else all(c.isalnum() or c in "-._~%" for c in host)):
        raise ValueError(f"is not a valid URL (bad host {host!r}): write it like {example}")
    return value.rstrip("/")


def _ip_literal(host: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(host.partition("%")[0])  # an IPv6 zone (`fe80::1%eth0`) is no part of the address
    except ValueError:
        return False
    return True


def endpoint_origin(url: str) -> str:
    """`scheme://host[:port]` of a valid endpoint URL (see `http_url`), lowercased, without credentials, path,
    query or the scheme's default port: what an API key is sent to, and so what trusting an endpoint trusts."""
    parts = urlsplit(url)
    scheme, host, port = parts.scheme.lower(), parts.hostname or "", parts.port
    shown = f"[{host}]" if ":" in host else host
    default = {"http": 80, "https": 443}[scheme]
    return f"{scheme}://{shown}" + (f":{port}" if port is not None and port != default else "")


def _loopback(origin: str) -> bool:
    """Whether the endpoint is a server on this machine's loopback (by name or address, never looked up)."""
    import ipaddress

    host = urlsplit(origin).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class KeyWithheld:
    """The API key from the environment, kept from an endpoint that only the vault's wikic.toml names and the
    user has not trusted. A server on loopback is asked without the key (local servers need none; one that
    does answers 401, and `unauthorized` says why); any other endpoint is refused before a request is made."""

    section: str  # "llm" or "embedding"
    origin: str  # where the key would have gone (`endpoint_origin`)
    named_at: str  # where the vault names it: "/path/wikic.toml:3"
    variable: str  # the environment variable holding the key

    @property
    def loopback(self) -> bool:
        return _loopback(self.origin)

    def _why(self) -> str:
        return (f"[{self.section}] base_url in the vault's {self.named_at} names {self.origin}, which you have not "
                "trusted")

    def _trust(self) -> str:
        return (
            f"if {self.origin} is yours to trust with that key, run `wikic trust {self.origin}`; or name the "
            f"endpoint yourself in {ENV_VARS[self.section, 'base_url'][0]}"
        )

    def refusal(self) -> ConfigError:
        return ConfigError(f"refusing to send the API key in {self.variable} to {self.origin}: {self._why()}",
                           hint=self._trust())

    def unauthorized(self) -> str:
        """What an HTTP 401 from the endpoint means: the key was not sent, why, and how to send it."""
        return f"the API key in {self.variable} was not sent: {self._why()}; {self._trust()}"


class _Section(BaseModel):
    # strict: TOML has real types, so "60" (a string) is a mistake, not a number, in every section alike;
    # TOML also has inf and nan, which no setting means
    # hide_input_in_errors: a ValidationError printed as it is (a traceback) never shows an API key
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False, hide_input_in_errors=True)

    def __repr_args__(self) -> Any:
        # a URL's credentials (`https://user:pass@host/v1`) stay out of repr, as the API keys do
        for name, value in super().__repr_args__():
            yield name, without_credentials(value) if isinstance(value, str) else value


class _Endpoint(_Section):
    """A section whose requests go to an OpenAI-compatible endpoint, with the API key from the environment."""

    # Environment only (see module docstring); excluded from dumps and repr.
    api_key: SecretStr | None = Field(None, repr=False, exclude=True)
    # Set by `load_settings` when the key is kept from the endpoint (then `api_key` is None).
    _withheld: KeyWithheld | None = PrivateAttr(None)

    _api_key = field_validator("api_key", mode="before")(_header_safe_key)

    @property
    def key_withheld(self) -> KeyWithheld | None:
        return self._withheld

    def sendable_key(self) -> str | None:
        """The API key to send to this section's endpoint, None when there is none to send; ConfigError, before
        any request, when the key is withheld from an endpoint that is not on loopback (see `KeyWithheld`)."""
        if self._withheld is not None and not self._withheld.loopback:
            raise self._withheld.refusal()
        return self.api_key.get_secret_value() if self.api_key is not None else None


class LLMSettings(_Endpoint):
    """`[llm]`: which OpenAI-compatible endpoint and model to call, and how."""

    base_url: str | None = None  # None: the OpenAI SDK default (api.openai.com)
    model: str | None = None
    timeout: float = Field(120.0, gt=0, le=DAY_SECONDS)
    # Seconds one request may take in all, its reply read whole (None: `llm.stream.reply_deadline`'s default).
    deadline: float | None = Field(None, gt=0, le=DAY_SECONDS)
    max_retries: int = Field(2, ge=0, le=20)
    concurrency: int = Field(2, ge=1, le=64)
    temperature: float = Field(0.0, ge=0, le=2)
    max_output_tokens: int = Field(4096, ge=16, le=MAX_TOKENS)
    # How extraction asks: one call for the whole plan ("single"), names first and then their claims
    # ("two-pass", for small local models), or "auto" (single, switching per endpoint when plans come back thin).
    strategy: Strategy = "auto"
    # After an ingest, one call per changed page writes its claims as checked prose (`compile/prose.py`);
    # false keeps the claim lists.
    compose: bool = True
    price_per_1k_input: float | None = Field(None, ge=0, le=1000)
    price_per_1k_output: float | None = Field(None, ge=0, le=1000)
    # Server-specific request fields sent as they are, e.g. llama.cpp's `repeat_penalty`, Ollama's `options`.
    extra_body: dict[str, Any] = Field(default_factory=dict)

    @field_validator("base_url")
    @classmethod
    def _endpoint_url(cls, value: str | None) -> str | None:
        return None if value is None else http_url(value, "http://localhost:11434/v1")

    @field_validator("extra_body")
    @classmethod
    def _json_numbers(cls, value: dict[str, Any]) -> dict[str, Any]:
        # sent as JSON, which has no inf or nan: the server would refuse the request, or the client fail on it
        def finite(item: Any) -> bool:
            if isinstance(item, float):
                return math.isfinite(item)
            if isinstance(item, dict):
                return all(finite(v) for v in item.values())
            if isinstance(item, list):
                return all(finite(v) for v in item)
            return True

        if not finite(value):
            raise ValueError("holds inf or nan, which JSON cannot send: give a finite number")
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


class IngestSettings(_Section):
    """`[ingest]`: limits for source capture and chunking."""

    max_source_mb: float = Field(25.0, gt=0, le=4096)
    fetch_timeout: float = Field(30.0, gt=0, le=DAY_SECONDS)
    chunk_tokens: int = Field(6000, ge=200, le=MAX_TOKENS)
    chunk_overlap_tokens: int = Field(200, ge=0, le=MAX_TOKENS // 2)
    review: bool = False  # every run's changes become a proposal a person reviews (`wikic review`)
    judge: bool = False  # the model judges each claim and composed sentence before it is written (`compile/judge.py`)

    @field_validator("chunk_overlap_tokens")
    @classmethod
    def _less_than_half_a_chunk(cls, value: int, info: ValidationInfo) -> int:
        # each chunk starts this far before the last one ended: at half a chunk or more, a source would be
        # asked about in many times as many calls
        chunk = info.data.get("chunk_tokens")
        if chunk is not None and value > chunk // 2:
            raise ValueError(f"must be at most half of chunk_tokens ({chunk // 2} for chunk_tokens = {chunk})")
        return value

    @property
    def max_source_bytes(self) -> int:
        return int(self.max_source_mb * 1024 * 1024)


# The palace's default place: a folder of the vault's state (`.wikic/`, named in wikic/vault/layout.py; a test
# holds the two together), written vault-relative as `[palace] path` is.
DEFAULT_PALACE_DIR = ".wikic/palace"


class PalaceSettings(_Section):
    """`[palace]`: where the palace lives, how drawers are cut and how search fuses its evidence."""

    # Relative paths are under the vault (resolved when the file is loaded for a vault).
    path: Path = Field(Path(DEFAULT_PALACE_DIR), strict=False, validate_default=True)
    url: str | None = None  # a chroma server instead of the embedded store
    collection: str = "wikic_drawers"
    # Upper bound of a drawer, in the embedder's own tokens (the embedder may force a lower one).
    chunk_tokens: int = Field(128, ge=16, le=8192)
    lock_timeout: float = Field(600.0, ge=0, le=DAY_SECONDS)
    fusion: Fusion = "calibrated"
    # 60 is the constant of Cormack et al. (SIGIR 2009), used unchanged by nearly everyone since.
    rrf_k: int = Field(60, ge=1, le=10_000)

    @field_validator("path")
    @classmethod
    def _under_the_vault(cls, value: Path, info: ValidationInfo) -> Path:
        vault = (info.context or {}).get("vault")
        if value.is_absolute() or vault is None:
            return value  # an absolute path may put the palace elsewhere on purpose (another disk)
        if os.path.normpath(value).split(os.sep)[0] == os.pardir:
            raise ValueError(
                "a relative path must stay inside the vault; write an absolute path to keep the palace elsewhere"
            )
        return Path(vault) / value

    @field_validator("url")
    @classmethod
    def _server_url(cls, value: str | None) -> str | None:
        return None if value is None else http_url(value, "http://127.0.0.1:8000")

    @field_validator("collection")
    @classmethod
    def _collection_name(cls, value: str) -> str:
        if not (3 <= len(value) <= 512) or not all(c.isalnum() or c in "._-" for c in value):
            raise ValueError("must be 3-512 characters of letters, digits, '.', '_', '-'")
        return value

    @property
    def host_port(self) -> tuple[str, int, bool]:
        """(host, port, ssl) of the chroma server; only meaningful when `url` is set."""
        assert self.url is not None
        parsed = urlparse(self.url)
        ssl = parsed.scheme == "https"
        return parsed.hostname or "localhost", parsed.port or (443 if ssl else 8000), ssl


class SearchSettings(_Section):
    """`[search]`: optional model help for `wikic search` (off by default; see wikic/query/assist.py)."""

    rerank: Literal["none", "llm"] = "none"  # "llm": the configured [llm] model reorders the best candidates
    rewrite: bool = False  # the model rewrites the question into a search query, searched beside it
    rerank_candidates: int = Field(30, ge=2, le=100)
    token_budget: int = Field(8000, ge=500, le=MAX_TOKENS)  # prompt and reply tokens one search may spend on the model


class EmbeddingSettings(_Endpoint):
    """`[embedding]`: which model turns text into vectors. `model` names the endpoint's model for `openai`."""

    provider: str = "use"
    model: str | None = None
    base_url: str | None = None
    batch_size: int = Field(64, ge=1, le=4096)
    timeout: float = Field(60.0, gt=0, le=DAY_SECONDS)
    max_retries: int = Field(2, ge=0, le=20)
    # Input limit of an openai-compatible model, in its tokens; we cannot measure a remote model's window.
    max_input_tokens: int = Field(512, ge=1, le=MAX_TOKENS)

    @field_validator("base_url")
    @classmethod
    def _endpoint_url(cls, value: str | None) -> str | None:
        return None if value is None else http_url(value, "http://127.0.0.1:11434/v1")

    @field_validator("provider")
    @classmethod
    def _known_provider(cls, value: str) -> str:
        if value not in PROVIDERS:
            raise ValueError(f"unknown embedding provider: choose {provider_choices()}")
        return value

    @model_validator(mode="after")
    def _provider_needs(self) -> EmbeddingSettings:
        if self.provider == "openai":
            if not self.model:
                raise ValueError("provider = \"openai\" needs model = \"<the endpoint's model name>\"")
            if not self.base_url:
                raise ValueError("provider = \"openai\" needs base_url, e.g. \"http://127.0.0.1:11434/v1\"")
        elif self.model:
            raise ValueError(f"model is only for provider = \"openai\"; the {self.provider!r} model is built in")
        return self


class LintSettings(_Section):
    """`[lint]`: how `wikic lint` judges. Rule severities are SCHEMA.md's (`## Lint`), not this file's."""

    strict: bool = False  # warnings fail too; the --strict / --no-strict flag overrides it


class CaptureSettings(_Section):
    """`[capture]`: what `wikic capture` may read besides the assistants' own session folders."""

    # Folders (absolute, `~/...`, or relative to the vault) whose session files a hook may name: from the
    # user's own config only (`USER_KEYS`); `wikic capture` reads it there itself (`config_file.capture_allow`).
    allow: list[str] = Field(default_factory=list)


class EvalSettings(_Section):
    """`[eval]`: the judge of `wikic eval --judge` and `--calibrate`. It asks the `[llm]` endpoint, with its key as
    `[llm]` sends it; only the model may differ (a judge on another endpoint is named with `--base-url`, by you)."""

    model: str | None = None  # None: the [llm] model judges


class ExportSettings(_Section):
    """`[export]`: how `wikic export site` writes the site."""

    # The page template, a file inside the vault (relative to it); `--template FILE` overrides it. None: the
    # template wikic ships (docs/export.md names its placeholders).
    template: str | None = None


class McpSettings(_Section):
    """`[mcp]`: what the MCP server's clients may hand its `ingest` tool besides the vault's own files."""

    # Folders (absolute, `~/...`, or relative to the vault) whose files a client may ingest, and URL prefixes
    # (`http://127.0.0.1:8080/`) it may fetch although they are on a local or private network: from the user's
    # own config only (`USER_KEYS`).
    allow: list[str] = Field(default_factory=list)


class Settings(_Section):
    """The whole `wikic.toml`, one section per table."""

    llm: LLMSettings = LLMSettings()
    ingest: IngestSettings = IngestSettings()
    palace: PalaceSettings = PalaceSettings()
    embedding: EmbeddingSettings = EmbeddingSettings()
    lint: LintSettings = LintSettings()
    capture: CaptureSettings = CaptureSettings()
    search: SearchSettings = SearchSettings()
    eval: EvalSettings = EvalSettings()
    mcp: McpSettings = McpSettings()
    export: ExportSettings = ExportSettings()


SECTIONS: dict[str, type[_Section]] = {
    name: info.annotation for name, info in Settings.model_fields.items()  # type: ignore[misc]
}


class _UserCapture(_Section):
    vault: str | None = None  # the vault `wikic capture` uses when none is named (read by conversations/queue.py)
    allow: list[str] = Field(default_factory=list)


class _UserMcp(_Section):
    allow: list[str] = Field(default_factory=list)


class _UserSearch(_Section):
    # `wikic search` starts `wikic serve` in the background for the vault it searched when none answers, so the
    # searches after it are answered at once; the server stops after `serve_idle` seconds without a search
    serve: bool = False
    serve_idle: float = Field(default=900.0, ge=1, le=7 * 86_400)


class UserSettings(_Section):
    """The user's own config (`~/.config/wikic/config.toml`): what no vault may decide for its user."""

    # Endpoints the API key from the environment may be sent to although only a vault's wikic.toml names them,
    # each as its `endpoint_origin` (`wikic trust URL` adds one).
    trusted_endpoints: list[str] = Field(default_factory=list)
    capture: _UserCapture = _UserCapture()
    mcp: _UserMcp = _UserMcp()
    search: _UserSearch = _UserSearch()

    @field_validator("trusted_endpoints")
    @classmethod
    def _origins(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(endpoint_origin(http_url(url, "https://llm.example.com")) for url in value))


def load_user_settings(env: Mapping[str, str] | None = None) -> UserSettings:
    """The user's own config, validated (ConfigError naming its keys and lines, as for wikic.toml)."""
    return _user_settings(os.environ if env is None else env)[0]


def _user_settings(env: Mapping[str, str]) -> tuple[UserSettings, dict[tuple[str, ...], str]]:
    config = read_user_config(env)
    path = str(config.path)
    origins = {loc: f"{path}:{line}" for loc, line in config.lines.items() if len(loc) <= 2}
    try:
        return UserSettings.model_validate(config.data), origins
    except ValidationError as exc:
        top_keys = [key for key, value in config.data.items() if not isinstance(value, dict)]
        raise ConfigError(
            _render(_problems(exc, UserSettings), origins, path, top_keys), hint=f"fix the keys above in {path}"
        ) from None


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
    config = read_config_file(vault_root)
    path = str(config.path)
    data = config.data
    origins: dict[tuple[str, ...], str] = {}
    for loc, line in config.lines.items():
        if len(loc) <= 2:  # deeper keys (inside extra_body) share their key's origin
            origins[loc] = f"{path}:{line}"
    problems: list[tuple[tuple[str, ...], str]] = []

    for (section, key), names in SECRET_KEYS.items():
        table = data.get(section)
        if isinstance(table, dict) and key in table:
            del table[key]
            problems.append(
                ((section, key), f"must not be stored in a file: set {' or '.join(names)} in the environment")
            )
    user, user_origins = _user_settings(env)
    problems += _reach_from_the_vault(data, Path(vault_root), user_config_path(env))
    for section, key in USER_KEYS:
        value = getattr(getattr(user, section), key)
        table = data.setdefault(section, {})
        if value and isinstance(table, dict) and (section, key) not in {loc for loc, _ in problems}:
            table[key] = list(value)
            origins[(section, key)] = user_origins.get((section, key), str(user_config_path(env)))
    for (section, key), names in ENV_VARS.items():
        _from_environment(data, origins, env, section, key, names)
    for (section, key), names in ENV_FALLBACKS.items():
        table = data.get(section)
        if not (isinstance(table, dict) and table.get(key)):
            _from_environment(data, origins, env, section, key, names)
    for raw_key, value in (overrides or {}).items():
        if value is None:
            continue
        section, _, key = raw_key.rpartition(".")
        section = section or "llm"
        if (section, key) in SECRET_KEYS:
            raise ConfigError(
                "an API key cannot be passed as a flag", hint=f"set {SECRET_KEYS[section, key][0]} in the environment"
            )
        target = data.setdefault(section, {})
        if isinstance(target, dict):
            target[key] = value
            flag = FLAGS.get((section, key))
            origins[(section, key)] = f"the {flag} flag" if flag else "command-line option"

    for section in SECTIONS:
        data.setdefault(section, {})  # validated too, so defaults that depend on the vault are resolved
    try:
        settings = Settings.model_validate(data, context={"vault": Path(vault_root)})
    except ValidationError as exc:
        problems.extend(_problems(exc))
        settings = None
    if problems:
        raise ConfigError(_render(problems, origins, path), hint=_fix_hint(problems, origins, path))
    assert settings is not None
    return _withhold_keys(settings, origins, path, user.trusted_endpoints)


def _reach_from_the_vault(data: dict[str, Any], vault: Path, user_config: Path) -> list[tuple[tuple[str, ...], str]]:
    """The keys of the vault's own file that would widen what wikic reaches beyond the vault (or start a
    process on the user's machine), taken out of `data` and reported, each with where it belongs instead. An
    empty list widens nothing and may stay (the README's example shows one); a relative palace path is
    checked by `PalaceSettings` (it must stay inside)."""
    why = "the vault's own wikic.toml may not widen what wikic reaches (the vault may be a clone or a synced folder)"
    problems: list[tuple[tuple[str, ...], str]] = []
    for section, key in USER_KEYS:
        table = data.get(section)
        if isinstance(table, dict) and table.get(key):
            del table[key]
            problems.append(((section, key), f"{why}: list it under [{section}] {key} in your own {user_config}"))
    for section, key in _USER_ONLY_KEYS:
        table = data.get(section)
        if isinstance(table, dict) and key in table:
            del table[key]
            problems.append(((section, key), f"the vault's own wikic.toml may not start processes on your machine: "
                                             f"set [{section}] {key} in your own {user_config}"))
    table = data.get("palace")
    path = table.get("path") if isinstance(table, dict) else None
    if isinstance(path, str) and os.path.isabs(path):
        inside = Path(os.path.normpath(path)).is_relative_to(os.path.normpath(os.path.abspath(vault)))
        if not inside:
            assert isinstance(table, dict)
            del table["path"]
            problems.append((("palace", "path"), f"{why}: to keep the palace outside the vault, set "
                                                 f"{ENV_VARS['palace', 'path'][0]} in the environment"))
    return problems


def _withhold_keys(
    settings: Settings, origins: Mapping[tuple[str, ...], str], path: str, trusted: list[str]
) -> Settings:
    """`settings` with the API key taken from each section whose endpoint only the vault's file names and the
    user has not trusted (see `KeyWithheld`): the one place that decides where a key may go."""
    changed: dict[str, _Endpoint] = {}
    for section in ("llm", "embedding"):
        part: _Endpoint = getattr(settings, section)
        base_url = getattr(part, "base_url", None)
        if part.api_key is None or not base_url:
            continue  # no key to send, or the provider's default endpoint
        named_at = origins.get((section, "base_url")) or path
        if not (named_at == path or named_at.startswith(path + ":")):
            continue  # named by the user: a variable or a flag
        origin = endpoint_origin(base_url)
        if origin in trusted or origin == endpoint_origin(OPENAI_DEFAULT_BASE_URL):
            continue
        variable = origins.get((section, "api_key"), "").removeprefix("environment variable ")
        kept = part.model_copy(update={"api_key": None})
        kept._withheld = KeyWithheld(section, origin, named_at, variable)
        changed[section] = kept
    return settings.model_copy(update=changed) if changed else settings


def _from_environment(
    data: dict[str, Any],
    origins: dict[tuple[str, ...], str],
    env: Mapping[str, str],
    section: str,
    key: str,
    names: tuple[str, ...],
) -> None:
    for name in names:
        value = env.get(name)
        if value:  # an empty variable counts as unset
            table = data.setdefault(section, {})
            if isinstance(table, dict):
                table[key] = value
                origins[(section, key)] = f"environment variable {name}"
            return


def _fix_hint(problems: list[tuple[tuple[str, ...], str]], origins: Mapping[tuple[str, ...], str], path: str) -> str:
    """What to change, by where the bad values came from: the file, a variable, a flag."""
    came_from = {origins.get(loc[:2]) or origins.get(loc[:1]) or path for loc, _ in problems}
    kinds = []
    if any(o == path or o.startswith(path + ":") for o in came_from):
        kinds.append(f"the keys in {path}")
    if any(o.startswith("environment variable") for o in came_from):
        kinds.append("the environment variables")
    if any(o.startswith(("the --", "command-line")) for o in came_from):
        kinds.append("the flags (see the command's --help)")
    if kinds == [f"the keys in {path}"]:
        return f"fix the keys above in {path}"
    return "fix what is named above: " + (", ".join(kinds[:-1]) + " and " if len(kinds) > 1 else "") + kinds[-1]


def _problems(exc: ValidationError, root: type[BaseModel] | None = None) -> list[tuple[tuple[str, ...], str]]:
    out = []
    for err in exc.errors():
        loc = tuple(str(part) for part in err["loc"])
        if err["type"] == "extra_forbidden":
            out.append((loc, _unknown(loc) if root is None else _unknown_in(root, loc)))
            continue
        message = str(err["ctx"]["error"]) if err["type"] == "value_error" else err["msg"]
        value = err.get("input")
        if err["type"] == "float_type" and isinstance(value, int) and not isinstance(value, bool):
            message = _out_of_range(loc)  # an integer too large to be a float at all
        if "api_key" not in loc and not isinstance(value, dict):
            shown = without_credentials(repr(value))
            message += f" (got {shown if len(shown) <= 40 else shown[:37] + '...'})"
        out.append((loc, message))
    return out


def _out_of_range(loc: tuple[str, ...]) -> str:
    model = SECTIONS.get(loc[0])
    field = model.model_fields.get(loc[1]) if model is not None and len(loc) == 2 else None
    words = {Ge: "greater than or equal to", Gt: "greater than", Le: "less than or equal to", Lt: "less than"}
    bounds = [
        f"{words[type(m)]} {getattr(m, type(m).__name__.lower()):g}"
        for m in (field.metadata if field is not None else [])
        if type(m) in words
    ]
    return "Input should be a number " + " and ".join(bounds) if bounds else "Input should be a finite number"


def _unknown(loc: tuple[str, ...]) -> str:
    """'unknown key; did you mean ...? (known keys: ...)', for a key or a whole section."""
    if len(loc) == 1:
        known = list(SECTIONS)
        guess = difflib.get_close_matches(loc[0], known, n=1, cutoff=0.6)
        said = f"; did you mean [{guess[0]}]?" if guess else ""
        return f"unknown section{said} (known sections: {', '.join(f'[{s}]' for s in known)})"
    section, key = loc[0], loc[1]
    model = SECTIONS.get(section)
    known = [name for name in (model.model_fields if model else {}) if (section, name) not in SECRET_KEYS]
    guess = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    said = f"; did you mean '{guess[0]}'?" if guess else ""
    if section == "lint" and not guess:
        said = f"; rule severities are set in SCHEMA.md under '## Lint' (e.g. '- {key}: warning')"
    return f"unknown key{said} (known keys: {', '.join(known)})"


def _unknown_in(root: type[BaseModel], loc: tuple[str, ...]) -> str:
    """'unknown key; did you mean ...? (known: key, [table])', for a key of another file than wikic.toml."""
    model: Any = root
    for part in loc[:-1]:
        field = model.model_fields.get(part)
        model = field.annotation if field is not None else None
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            return "unknown key"
    names = list(model.model_fields)
    guess = difflib.get_close_matches(loc[-1], names, n=1, cutoff=0.6)
    said = f"; did you mean '{guess[0]}'?" if guess else ""
    tables = {name for name, f in model.model_fields.items()
              if isinstance(f.annotation, type) and issubclass(f.annotation, BaseModel)}
    return f"unknown key{said} (known: {', '.join(f'[{n}]' if n in tables else n for n in names)})"


def _render(
    problems: list[tuple[tuple[str, ...], str]],
    origins: Mapping[tuple[str, ...], str],
    file: str,
    top_keys: Collection[str] = (),
) -> str:
    """One line per problem, in file order: `[section] key: message (from wikic.toml:LINE)`; `top_keys` are
    the file's keys outside any table (the user's config has some), shown without brackets."""

    def where(loc: tuple[str, ...]) -> str:
        return origins.get(loc[:2]) or origins.get(loc[:1]) or file

    def order(item: tuple[tuple[str, ...], str]) -> tuple[int, int]:
        origin = where(item[0])
        line = origin.rpartition(":")[2] if origin.startswith(file + ":") else ""
        return (0, int(line)) if line.isdigit() else (1, 0)

    lines = ["invalid settings:"]
    for loc, message in sorted(problems, key=order):
        table = loc[0] if loc[0] in top_keys else f"[{loc[0]}]"
        key = table if len(loc) == 1 else f"[{loc[0]}] {'.'.join(loc[1:])}"
        lines.append(f"  {key}: {message} (from {where(loc)})")
    return "\n".join(lines)
