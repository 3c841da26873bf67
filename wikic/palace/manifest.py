"""The palace's manifest: every indexed file and its drawers, in SQLite beside the vectors.

It records what each file was when indexed (hash, wing, title, aliases, type, tags) and each drawer's text
and lines, and answers the questions search asks of them (filters, drawer to file). The BM25 postings
(`bm25.py`) live in the same database, so a file's drawers and their terms change in one transaction.

It also keeps a copy of every drawer's vector (float16), so search can compare the query with all of them
exactly: an approximate HNSW index misses true neighbours that sit apart from the rest of the palace (a few
Chinese pages among thousands of English ones), which no search breadth short of most of the graph finds.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from wikic.errors import PalaceDamaged, PalaceError
from wikic.palace import bm25
from wikic.palace.bm25 import Lexical
from wikic.palace.damage import is_damaged_database
from wikic.palace.slices import slices


@dataclass(frozen=True)
class FileRecord:
    path: str
    file_hash: str
    wing: str
    title: str
    aliases: list[str]
    type: str | None
    tags: list[str]


@dataclass(frozen=True)
class DrawerRecord:
    id: str
    path: str
    ordinal: int
    heading: str
    text: str
    line_start: int
    line_end: int
    content_hash: str


@dataclass(frozen=True)
class Filters:
    wing: str | None = None
    tag: str | None = None
    path_prefix: str | None = None

    @property
    def active(self) -> bool:
        return bool(self.wing or self.tag or self.path_prefix)


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files(
  path TEXT PRIMARY KEY, file_hash TEXT NOT NULL, wing TEXT NOT NULL, title TEXT NOT NULL,
  aliases TEXT NOT NULL, type TEXT, tags TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS drawers(
  rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, path TEXT NOT NULL, ordinal INTEGER NOT NULL,
  heading TEXT NOT NULL, text TEXT NOT NULL, line_start INTEGER NOT NULL, line_end INTEGER NOT NULL,
  content_hash TEXT NOT NULL, length INTEGER NOT NULL, tids TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS drawers_path ON drawers(path);
CREATE TABLE IF NOT EXISTS vectors(id TEXT PRIMARY KEY, vec BLOB NOT NULL) WITHOUT ROWID;
"""
# Up to this many drawers search compares the query with every vector (in memory: 2 KB per 512-d drawer,
# 100 MB at the limit); a larger palace uses the approximate index alone.
EXACT_MAX = 50_000


@dataclass(frozen=True)
class DenseTable:
    """Every drawer's unit vector, row = the drawer's rid (rows of rids without a drawer are zero)."""

    matrix: np.ndarray
    present: np.ndarray
    ids: dict[int, str]
    rid_of: dict[str, int]

    def cosines(self, vector: np.ndarray, ids: Iterable[str]) -> dict[str, float]:
        """Cosine of `vector` with each of these drawers (unknown ids are left out)."""
        rids = [(i, self.rid_of[i]) for i in ids if i in self.rid_of]
        if not rids:
            return {}
        q = np.asarray(vector, dtype=np.float32)
        sims = self.matrix[[r for _, r in rids]] @ (q / max(float(np.linalg.norm(q)), 1e-12))
        return {i: float(x) for (i, _), x in zip(rids, sims, strict=True)}


class ManifestDamaged(PalaceDamaged):
    """SQLite found the manifest's file damaged: unlike chromadb's failures, that needs no second look."""


@contextmanager
def damage_reported(path: Path) -> Iterator[None]:
    """Report a damaged manifest database as ManifestDamaged, wherever a statement finds it."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        if not is_damaged_database(exc):
            raise
        raise ManifestDamaged(f"the palace's manifest {path} is damaged: {exc}") from None


class Manifest:
    """Files, drawers and their BM25 terms. Writers must hold the palace lock; readers never wait for it."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(path, timeout=60.0, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA + bm25.SCHEMA)
        except sqlite3.Error as exc:
            kind = ManifestDamaged if is_damaged_database(exc) else PalaceError
            raise kind(f"cannot open the palace's manifest {path}: {exc}") from None
        self._cache: bm25.DrawerTable | None = None
        self._cache_key: str | None = None
        # how many drawers hold each term (up to a bound), for the generation of `_cache_key` (`bm25.rarest`)
        self._counted: tuple[str | None, dict[tuple[int, int], int]] = (None, {})
        self._allowed: dict[tuple[str, Filters], set[int]] = {}
        self._id_sets: dict[tuple[str, int], tuple[set[int], set[str]]] = {}
        self._dense: tuple[str, DenseTable | None] | None = None

    def close(self) -> None:
        self._db.close()

    # -- meta -------------------------------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, value))

    # -- manifest ---------------------------------------------------------------------------------------------
    def files(self) -> dict[str, FileRecord]:
        rows = self._db.execute("SELECT path, file_hash, wing, title, aliases, type, tags FROM files")
        return {r[0]: FileRecord(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], json.loads(r[6])) for r in rows}

    def titles(self) -> list[tuple[str, str, list[str]]]:
        """Every file's (path, title, aliases): what search's title index is made of, without the rest of each
        record (most files have no alias: their `[]` is not decoded)."""
        rows = self._db.execute("SELECT path, title, aliases FROM files")
        return [(path, title, [] if aliases == "[]" else json.loads(aliases)) for path, title, aliases in rows]

    def file_records(self, paths: Iterable[str]) -> dict[str, FileRecord]:
        out: dict[str, FileRecord] = {}
        for part in slices(paths):
            marks = ",".join("?" * len(part))
            rows = self._db.execute(
                f"SELECT path, file_hash, wing, title, aliases, type, tags FROM files WHERE path IN ({marks})", part
            )
            out.update(
                {r[0]: FileRecord(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], json.loads(r[6])) for r in rows}
            )
        return out

    def drawer_ids(self, path: str | None = None) -> set[str]:
        if path is None:
            return {r[0] for r in self._db.execute("SELECT id FROM drawers")}
        return {r[0] for r in self._db.execute("SELECT id FROM drawers WHERE path=?", (path,))}

    def drawers_of(self, path: str) -> list[DrawerRecord]:
        rows = self._db.execute(
            "SELECT id, path, ordinal, heading, text, line_start, line_end, content_hash FROM drawers "
            "WHERE path=? ORDER BY ordinal",
            (path,),
        )
        return [DrawerRecord(*r) for r in rows]

    def drawers_by_id(self, ids: Iterable[str]) -> dict[str, DrawerRecord]:
        out: dict[str, DrawerRecord] = {}
        for part in slices(ids):
            marks = ",".join("?" * len(part))
            rows = self._db.execute(
                "SELECT id, path, ordinal, heading, text, line_start, line_end, content_hash FROM drawers "
                f"WHERE id IN ({marks})",
                part,
            )
            out.update({r[0]: DrawerRecord(*r) for r in rows})
        return out

    def counts(self) -> tuple[int, int]:
        files = self._db.execute("SELECT count(*) FROM files").fetchone()[0]
        drawers = self._db.execute("SELECT count(*) FROM drawers").fetchone()[0]
        return files, drawers

    # -- writes (caller holds the palace lock) ----------------------------------------------------------------
    def begin(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        self._db.execute("COMMIT")
        self._cache = None
        self._dense = None
        self._counted = (None, {})
        self._allowed.clear()
        self._id_sets.clear()

    def rollback(self) -> None:
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    def clear(self) -> None:
        for table in ("files", "drawers", *bm25.TABLES, "vectors", "meta"):
            self._db.execute(f"DELETE FROM {table}")

    def remove_file(self, path: str) -> None:
        """Forget the file, its drawers and their vectors."""
        self._drop_drawers(self._db.execute("SELECT rid, id, tids FROM drawers WHERE path=?", (path,)).fetchall())
        self._db.execute("DELETE FROM files WHERE path=?", (path,))

    def _drop_drawers(self, rows: Iterable[tuple[int, str, str]]) -> None:
        for rid, drawer_id, tids in rows:
            bm25.remove_postings(self._db, rid, tids)
            self._db.execute("DELETE FROM vectors WHERE id=?", (drawer_id,))
            self._db.execute("DELETE FROM drawers WHERE rid=?", (rid,))

    def put_file(self, record: FileRecord, drawers: Sequence[DrawerRecord], embed_texts: Sequence[str]) -> None:
        """Replace everything stored about `record.path`. A drawer the file had already keeps its row, terms and
        vector (its id is a hash of its embedded text): only its place in the file is rewritten, so a long page
        that gained a line costs the drawers that changed, not all of its drawers. New drawers' vectors are
        added with `put_vectors`."""
        before = {row[1]: row for row in self._db.execute(
            "SELECT rid, id, tids FROM drawers WHERE path=?", (record.path,)).fetchall()}
        wanted = {d.id for d in drawers}
        self._drop_drawers(row for drawer_id, row in before.items() if drawer_id not in wanted)
        self._db.execute(
            "INSERT OR REPLACE INTO files(path, file_hash, wing, title, aliases, type, tags) VALUES(?,?,?,?,?,?,?)",
            (
                record.path,
                record.file_hash,
                record.wing,
                record.title,
                json.dumps(record.aliases, ensure_ascii=False),
                record.type,
                json.dumps(record.tags, ensure_ascii=False),
            ),
        )
        self._db.executemany(
            "UPDATE drawers SET ordinal=?, heading=?, text=?, line_start=?, line_end=? WHERE rid=?",
            [(d.ordinal, d.heading, d.text, d.line_start, d.line_end, before[d.id][0]) for d in drawers
             if d.id in before],
        )
        fresh = [(d, t) for d, t in zip(drawers, embed_texts, strict=True) if d.id not in before]
        counted = bm25.term_counts([t for _, t in fresh])
        tids = bm25.term_ids(self._db, {term for c in counted for term in c})
        for (drawer, _), counts in zip(fresh, counted, strict=True):
            cur = self._db.execute(
                "INSERT INTO drawers(id, path, ordinal, heading, text, line_start, line_end, content_hash, length,"
                " tids) VALUES(?,?,?,?,?,?,?,?,?,?)",
                (
                    drawer.id,
                    drawer.path,
                    drawer.ordinal,
                    drawer.heading,
                    drawer.text,
                    drawer.line_start,
                    drawer.line_end,
                    drawer.content_hash,
                    sum(counts.values()),
                    " ".join(str(tids[t]) for t in counts),
                ),
            )
            assert cur.lastrowid is not None
            bm25.add_postings(self._db, cur.lastrowid, counts, tids)

    def put_vectors(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        """Keep a copy of these drawers' unit vectors (float16) for exact search."""
        full = np.asarray(vectors, dtype=np.float32)
        half = (full / np.maximum(np.linalg.norm(full, axis=1, keepdims=True), 1e-12)).astype(np.float16)
        self._db.executemany("INSERT OR REPLACE INTO vectors(id, vec) VALUES(?,?)",
                             [(i, half[n].tobytes()) for n, i in enumerate(ids)])

    def missing_vectors(self) -> list[str]:
        """Drawers whose vector has no copy here (a palace made before the copies, or caught up from a server)."""
        return [r[0] for r in self._db.execute("SELECT id FROM drawers WHERE id NOT IN (SELECT id FROM vectors)")]

    # -- reads ------------------------------------------------------------------------------------------------
    def dense(self) -> DenseTable | None:
        """Every drawer's vector, for exact search; None when some drawer has no copy yet, or the palace holds
        more than EXACT_MAX drawers. Loaded once per generation."""
        key = self.get_meta("generation") or ""
        if self._dense is not None and self._dense[0] == key:
            return self._dense[1]
        table = self._table()
        found: DenseTable | None = None
        if 0 < len(table.ids) <= EXACT_MAX:
            rows = self._db.execute("SELECT id, vec FROM vectors").fetchall()
            pairs = [(table.rid_of[i], v) for i, v in rows if i in table.rid_of]
            if len(pairs) == len(table.ids):
                dim = len(pairs[0][1]) // 2
                matrix = np.zeros((len(table.file_of), dim), dtype=np.float32)
                rids = np.fromiter((r for r, _ in pairs), dtype=np.int64, count=len(pairs))
                matrix[rids] = np.frombuffer(b"".join(v for _, v in pairs), dtype=np.float16).reshape(-1, dim)
                present = np.zeros(len(table.file_of), dtype=bool)
                present[rids] = True
                found = DenseTable(matrix, present, table.ids, table.rid_of)
        self._dense = (key, found)
        return found

    def _table(self) -> bm25.DrawerTable:
        key = self.get_meta("generation") or ""
        if self._cache is None or key != self._cache_key:
            self._cache = bm25.load_table(self._db)
            self._cache_key = key
        return self._cache

    def paths_of(self, drawer_ids: Iterable[str]) -> dict[str, str]:
        """The file of each drawer id the index knows (unknown ids are left out)."""
        table = self._table()
        out: dict[str, str] = {}
        for drawer_id in drawer_ids:
            rid = table.rid_of.get(drawer_id)
            if rid is not None:
                out[drawer_id] = table.paths[table.file_of[rid]]
        return out

    def allowed_rids(self, filters: Filters) -> set[int] | None:
        """Drawers that pass the filters (None: no filter). Cached until the next write: the same few
        filters (a wing, a tag) come back query after query."""
        if not filters.active:
            return None
        key = (self.get_meta("generation") or "", filters)
        cached = self._allowed.get(key)
        if cached is None:
            cached = self._allowed_rids(filters)
            if len(self._allowed) > 32:
                self._allowed.clear()
            self._allowed[key] = cached
        return cached

    def _allowed_rids(self, filters: Filters) -> set[int]:
        sql = "SELECT d.rid FROM drawers d JOIN files f ON f.path = d.path WHERE 1=1"
        args: list[str] = []
        if filters.wing:
            sql += " AND f.wing = ?"
            args.append(filters.wing)
        if filters.path_prefix:
            sql += " AND substr(d.path, 1, ?) = ?"
            args.extend([str(len(filters.path_prefix)), filters.path_prefix])
        if filters.tag:
            sql += " AND EXISTS (SELECT 1 FROM json_each(f.tags) WHERE lower(json_each.value) = lower(?))"
            args.append(filters.tag.lstrip("#"))
        return {r[0] for r in self._db.execute(sql, args)}

    def ids_of_rids(self, rids: set[int]) -> set[str]:
        """Drawer ids of an allowed-rids set, cached alongside it."""
        key = ("ids", id(rids))
        table = self._table()
        cached = self._id_sets.get(key)
        if cached is None or cached[0] is not rids:
            if len(self._id_sets) > 32:
                self._id_sets.clear()
            cached = (rids, {table.ids[r] for r in rids if r in table.ids})
            self._id_sets[key] = cached
        return cached[1]

    def bm25(self, query: str, allowed: set[int] | None = None) -> tuple[dict[str, float], dict[str, float]]:
        """BM25 scores of drawers (by id) and of whole files (by path) for `query` (see `bm25.score`)."""
        return bm25.score(self._db, self._table(), query, allowed)

    def lexical(self, query: str, allowed: set[int] | None = None, *, postings: int | None = None) -> Lexical:
        """`bm25` with the query's ceilings, for calibrated fusion; with `postings`, only the query's rarest
        terms, whose postings add up to at most that many rows (see `bm25.lexical`)."""
        table = self._table()
        if self._counted[0] != self._cache_key:
            self._counted = (self._cache_key, {})
        return bm25.lexical(self._db, table, query, allowed, postings=postings, known=self._counted[1])
