"""The chromadb side of the palace: one collection of drawer vectors, embedded or on a chroma server.

Vectors are always passed explicitly. The collection carries a registered embedding function that refuses
to run, so nothing can fall back to chromadb's default model (which would try to download one).
The collection's metadata records the embedder identity and a generation token that every write changes.
Everything here runs where the index files may be written: an embedded palace runs it in a child process that
holds no secret (store_process.py), a chroma server palace runs it in the caller.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from typing import Any

import chromadb
import numpy as np
from chromadb import Documents, EmbeddingFunction, Embeddings
from chromadb.api.shared_system_client import SharedSystemClient
from chromadb.utils.embedding_functions import register_embedding_function

from wikic.errors import PalaceDamaged, PalaceError
from wikic.palace.damage import is_damage
from wikic.palace.slices import SQL_VARIABLES, slices
from wikic.palace.store_process import GENERATION_KEY
from wikic.redact import without_credentials
from wikic.settings import PalaceSettings


@register_embedding_function
class ExplicitEmbeddings(EmbeddingFunction[Documents]):
    """Stands in for chromadb's default model: wikic computes every vector itself."""

    def __init__(self) -> None:
        pass

    def __call__(self, input: Documents) -> Embeddings:
        raise PalaceError("internal error: the palace asked chromadb to embed text; wikic passes vectors itself")

    @staticmethod
    def name() -> str:
        return "wikic-explicit"

    def get_config(self) -> dict[str, Any]:
        return {}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> ExplicitEmbeddings:
        return ExplicitEmbeddings()

    def is_legacy(self) -> bool:
        return False


# HNSW's search breadth. chromadb's default (100) loses true neighbours inside large palaces; search asks for
# 200 drawers anyway, and a wider beam costs little next to the rest of a query.
EF_SEARCH = 1000
DATABASE_FILE = "chroma.sqlite3"  # what chromadb's embedded client keeps in the palace folder


def new_generation() -> str:
    return f"{time.time_ns():x}-{secrets.token_hex(4)}"


class VectorStore:
    """A chromadb collection of drawers. Re-opens itself when another process has written since."""

    def __init__(self, settings: PalaceSettings) -> None:
        self._settings = settings
        self._client: Any = None
        self._collection: Any = None
        self._seen_generation: str | None = None
        self._max_batch: int | None = None
        self._opened_files: tuple[int, int] | None = None  # the database file the client opened (device, inode)

    def start(self) -> None:
        """Nothing to start: this store runs in the calling process (see store_process.IsolatedStore)."""

    # -- connection -------------------------------------------------------------------------------------------
    def _connect(self) -> Any:
        settings = chromadb.config.Settings(anonymized_telemetry=False, allow_reset=False)
        try:
            if self._settings.url:
                host, port, ssl = self._settings.host_port
                return chromadb.HttpClient(host=host, port=port, ssl=ssl, settings=settings)
            self._settings.path.mkdir(parents=True, exist_ok=True)
            return chromadb.PersistentClient(path=str(self._settings.path), settings=settings)
        except Exception as exc:  # chromadb raises many types (connection, value, rust errors)
            where = self._settings.url or str(self._settings.path)
            raise self._failure(f"cannot open the palace at {where}", exc) from None

    def _failure(self, what: str, exc: Exception) -> PalaceError:
        """A chromadb failure as wikic reports it: an embedded palace's files may be damaged (see damage.py);
        a server's are the server's own."""
        if isinstance(exc, PalaceError):
            return exc
        message = without_credentials(f"{what}: {exc}")  # a server's URL may carry user:pass or a token
        return PalaceDamaged(message) if self._settings.url is None and is_damage(exc) else PalaceError(message)

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = self._connect()
            self._opened_files = self._database_file()
        return self._client

    def _database_file(self) -> tuple[int, int] | None:
        """The embedded palace's database file as (device, inode); None for a server or when it is missing."""
        if self._settings.url:
            return None
        try:
            st = (self._settings.path / DATABASE_FILE).stat()
        except OSError:
            return None
        return st.st_dev, st.st_ino

    def files_replaced(self) -> bool:
        """Whether the embedded palace this store opened was deleted or replaced on disk since (a vault removed
        and made again at the same path): its client still holds the old, unlinked database, which fails every
        write ("readonly database") and every read of a table made since. Whoever keeps the store must drop it
        and chromadb's system cache, which keys clients by path."""
        return self._client is not None and self._database_file() != self._opened_files

    def _step(self) -> int:
        """Ids per chromadb call: few enough for any SQLite build (chromadb passes a get's or a delete's ids
        as variables of one statement) and for the client's max batch size."""
        return min(SQL_VARIABLES, self._batch_limit())

    def _batch_limit(self) -> int:
        """Records the client takes per call (asked once: a server answers over the network)."""
        if self._max_batch is None:
            try:
                self._max_batch = max(1, int(self.client.get_max_batch_size()))
            except Exception:  # a client or server that cannot say: the safe size
                self._max_batch = SQL_VARIABLES
        return self._max_batch

    def _reopen(self) -> None:
        """A long-lived embedded client never sees vectors another process added (chromadb keeps its HNSW
        segment in memory); only dropping the shared system cache and connecting again refreshes it."""
        if not self._settings.url:
            SharedSystemClient.clear_system_cache()
        self._client = None
        self._collection = None

    def _current(self) -> Any | None:
        """The collection as last opened (None when the palace was never indexed)."""
        if self._collection is not None:
            return self._collection
        name = self._settings.collection
        try:
            self._collection = self.client.get_collection(name, embedding_function=ExplicitEmbeddings())
        except Exception as exc:
            if not isinstance(exc, PalaceError) and (
                "does not exist" in str(exc) or type(exc).__name__ == "NotFoundError"
            ):
                return None
            raise self._failure(f"cannot open palace collection {name!r}", exc) from None
        return self._collection

    def _existing(self) -> Any:
        col = self._current()
        if col is None:
            raise PalaceError(f"internal error: palace collection {self._settings.collection!r} was never created")
        return col

    def exists(self) -> bool:
        return self._current() is not None

    def create(self, identity: dict[str, Any]) -> None:
        name = self._settings.collection
        try:
            self._collection = self.client.get_or_create_collection(
                name,
                metadata={**identity, GENERATION_KEY: new_generation()},
                configuration={"hnsw": {"space": "cosine", "ef_search": EF_SEARCH}},
                embedding_function=ExplicitEmbeddings(),
            )
        except Exception as exc:
            raise self._failure(f"cannot open palace collection {name!r}", exc) from None

    def metadata(self) -> dict[str, Any]:
        col = self._current()
        return dict(col.metadata or {}) if col is not None else {}

    def ef_search(self) -> int | None:
        """The HNSW search breadth the collection is configured with (None: no collection)."""
        col = self._current()
        return None if col is None else int((col.configuration.get("hnsw") or {}).get("ef_search") or 0)

    def fresh(self) -> dict[str, Any] | None:
        """The collection's metadata, re-opened first if another process changed it since we last looked;
        None when the palace was never indexed."""
        self._collection = None
        current = self._current()
        if current is None:
            return None
        generation = (current.metadata or {}).get(GENERATION_KEY)
        if self._seen_generation is not None and generation != self._seen_generation:
            self._reopen()
            current = self._current()
            if current is None:
                return None
        self._collection = current
        self._seen_generation = generation
        return dict(current.metadata or {})

    def check(self) -> None:
        """Open the collection and read from it as search and writes do (a stored vector, a nearest-neighbour
        query, which first applies chromadb's log to the HNSW index); raises what fails."""
        col = self._current()
        if col is None:
            return
        try:
            if col.count():
                first = col.get(limit=1, include=["embeddings"])["embeddings"][0]
                col.query(query_embeddings=[first], n_results=1, include=["distances"])
        except Exception as exc:
            raise self._failure("cannot read the palace", exc) from None

    def settle(self) -> None:
        """Nothing to wait for: this store runs in the calling process (a server serialises its own writes)."""

    def release(self) -> None:
        """Let go of the palace's files (before they are moved)."""
        self._reopen()
        self._seen_generation = None

    def drop(self) -> None:
        try:
            self.client.delete_collection(self._settings.collection)
        except Exception as exc:
            if "does not exist" not in str(exc) and type(exc).__name__ != "NotFoundError":
                raise self._failure("cannot delete palace collection", exc) from None
        self._collection = None

    # -- writes -----------------------------------------------------------------------------------------------
    def add(self, ids: Sequence[str], vectors: np.ndarray, documents: Sequence[str],
            metadatas: Sequence[dict[str, Any]]) -> None:
        col = self._existing()
        step = self._step()
        try:
            for i in range(0, len(ids), step):
                col.upsert(
                    ids=list(ids[i : i + step]),
                    embeddings=vectors[i : i + step],
                    documents=list(documents[i : i + step]),
                    metadatas=list(metadatas[i : i + step]),
                )
        except Exception as exc:
            raise self._failure("cannot write drawers to the palace", exc) from None

    def update_metadata(self, ids: Sequence[str], metadatas: Sequence[dict[str, Any]]) -> None:
        col = self._existing()
        step = self._step()
        try:
            for i in range(0, len(ids), step):
                col.update(ids=list(ids[i : i + step]), metadatas=list(metadatas[i : i + step]))
        except Exception as exc:
            raise self._failure("cannot update drawer metadata", exc) from None

    def delete(self, ids: Sequence[str]) -> None:
        col = self._existing()
        try:
            for part in slices(ids, self._step()):
                col.delete(ids=part)
        except Exception as exc:
            raise self._failure("cannot delete drawers from the palace", exc) from None

    def all_ids(self) -> set[str]:
        col = self._current()
        if col is None:
            return set()
        out: set[str] = set()
        offset, step = 0, self._batch_limit()
        try:
            while True:
                batch = col.get(include=[], limit=step, offset=offset)
                out.update(batch["ids"])
                if len(batch["ids"]) < step:
                    return out
                offset += step
        except Exception as exc:
            raise self._failure("cannot read the palace's drawers", exc) from None

    def get(self, ids: Sequence[str]) -> tuple[list[str], list[str], list[dict[str, Any]]]:
        col = self._existing()
        out: tuple[list[str], list[str], list[dict[str, Any]]] = ([], [], [])
        try:
            for part in slices(ids, self._step()):
                got = col.get(ids=part, include=["documents", "metadatas"])
                out[0].extend(got["ids"])
                out[1].extend(got["documents"])
                out[2].extend(dict(m) for m in got["metadatas"])
        except Exception as exc:
            raise self._failure("cannot read drawers from the palace", exc) from None
        return out

    def mark_written(self, metadata: dict[str, Any]) -> str:
        """Give the collection a new generation token so long-running readers know to refresh."""
        col = self._existing()
        generation = new_generation()
        merged = {k: v for k, v in {**metadata, GENERATION_KEY: generation}.items() if not k.startswith("hnsw:")}
        try:
            col.modify(metadata=merged)
            # a palace made before the wider search beam gets it at its next write
            if int((col.configuration.get("hnsw") or {}).get("ef_search") or 0) < EF_SEARCH:
                col.modify(configuration={"hnsw": {"ef_search": EF_SEARCH}})
        except Exception as exc:
            raise self._failure("cannot update palace metadata", exc) from None
        self._seen_generation = generation
        return generation

    # -- reads ------------------------------------------------------------------------------------------------
    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of these drawers (those that exist), for exact cosines of candidates the
        approximate index did not return."""
        col = self._current()
        if col is None or not ids:
            return {}
        out: dict[str, np.ndarray] = {}
        try:
            for part in slices(ids, self._step()):
                got = col.get(ids=part, include=["embeddings"])
                for i, v in zip(got["ids"], got["embeddings"], strict=True):
                    out[i] = np.asarray(v, dtype=np.float32)
        except Exception as exc:
            raise self._failure("cannot read drawer vectors", exc) from None
        return out

    def query(self, vector: np.ndarray, n: int, ids: list[str] | None = None,
              where: dict[str, Any] | None = None, refresh: bool = True) -> list[tuple[str, float]]:
        """Nearest drawers as (id, cosine similarity), best first; `refresh=False` when the caller has just
        called fresh(). chromadb returns fewer than `n` when fewer exist, so no count() round trip is needed."""
        if refresh:
            self.fresh()
        col = self._current()
        if col is None or n <= 0 or (ids is not None and not ids):
            return []
        # a long id filter is asked a slice at a time (the nearest of all are among the nearest of each slice)
        parts: list[list[str] | None] = [None] if ids is None else list(slices(ids, self._batch_limit()))
        hits: list[tuple[str, float]] = []
        try:
            for part in parts:
                res = col.query(query_embeddings=[vector], n_results=n, ids=part, where=where, include=["distances"])
                hits += [(i, 1.0 - float(d)) for i, d in zip(res["ids"][0], res["distances"][0], strict=True)]
        except Exception as exc:
            raise self._failure("palace vector query failed", exc) from None
        if len(parts) > 1:
            hits = sorted(hits, key=lambda hit: -hit[1])[:n]
        return hits
