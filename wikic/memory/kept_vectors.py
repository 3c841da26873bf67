"""The embeddings of memory texts, kept under `.wikic/cache/` from one run to the next.

A memory joining a page is compared with every item the page has (`merge.py`), by their embeddings. A
user's page gathers thousands of items over the years, and embedding all of them again in every run that
adds one costs seconds (the packaged model embeds about a thousand short texts a second here): so each
text's vector is kept, by the text's hash, for the model that made it. At most `MAX_KEPT` vectors are
kept, those used last. The file is a NumPy archive read without pickle (a vault may come from anywhere); a
damaged or foreign one is ignored and written anew.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from wikic.vault.state import MEMORY_VECTORS, read_cache_bytes, write_cache

if TYPE_CHECKING:
    import numpy as np

FORMAT = 1
MAX_KEPT = 20_000  # vectors (2 KB each for the packaged model's 512 dimensions): 40 MB at most


def _key(text: str) -> bytes:
    return hashlib.sha1(text.encode("utf-8")).digest()


class KeptVectors:
    """The vectors of `model` (`dim` float32 numbers each) kept in the vault at `root`, read on first use and
    written by `save` when it gained some."""

    def __init__(self, root: Path, model: str, dim: int) -> None:
        self._root = root
        self._identity = f"{FORMAT}|{model}"
        self._dim = dim
        self._vectors: dict[bytes, np.ndarray] | None = None  # in the order they were last used
        self._added = False

    def _loaded(self) -> dict[bytes, np.ndarray]:
        if self._vectors is None:
            self._vectors = self._read()
        return self._vectors

    def _read(self) -> dict[bytes, np.ndarray]:
        import numpy as np

        data = read_cache_bytes(self._root, MEMORY_VECTORS)
        if not data:
            return {}
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as archive:
                identity, keys, vectors = str(archive["identity"]), archive["keys"], archive["vectors"]
        except Exception:  # noqa: BLE001 - a damaged cache (whatever NumPy raises on it) is rebuilt, never trusted
            return {}
        if (identity != self._identity or keys.dtype != np.dtype("S20") or keys.ndim != 1
                or vectors.dtype != np.float32 or vectors.shape[1:] != (self._dim,) or len(keys) != len(vectors)):
            return {}  # another model's, or not what this module writes
        return {bytes(key): vector for key, vector in zip(keys, vectors, strict=True)}

    def get(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The kept vectors of those of `texts` that have one (each now counts as used last)."""
        kept = self._loaded()
        out = {}
        for text in texts:
            key = _key(text)
            vector = kept.pop(key, None)
            if vector is not None:
                kept[key] = out[text] = vector
        return out

    def put(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        kept = self._loaded()
        for text, vector in zip(texts, vectors, strict=True):
            key = _key(text)
            kept.pop(key, None)  # to the end: used last
            kept[key] = vector
        self._added = self._added or bool(len(texts))

    def save(self) -> None:
        """Write the vectors when this run added some: the `MAX_KEPT` used last."""
        if not self._added or self._vectors is None:
            return
        import numpy as np

        items = list(self._vectors.items())[-MAX_KEPT:]
        buffer = io.BytesIO()
        np.savez(buffer, identity=np.array(self._identity), keys=np.array([key for key, _ in items], dtype="S20"),
                 vectors=np.stack([vector for _, vector in items]))
        write_cache(self._root, MEMORY_VECTORS, buffer.getvalue())
        self._added = False
