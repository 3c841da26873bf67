"""Corpus-level BM25 over every drawer of the palace, kept in SQLite beside the vectors.

Why not BM25 over the vector shortlist (MemPalace's way): its IDF is computed over ~20 documents and it can
only re-order what the vectors already found. Here IDF comes from the whole palace, and the lexical ranking
is a retriever of its own. SQLite gives incremental updates, one writer with many readers (WAL), and no
extra dependency. The same table doubles as the palace's manifest of files and drawers.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from wikic.errors import PalaceError
from wikic.text.terms import tokenize

K1 = 1.2
B = 0.75


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
CREATE TABLE IF NOT EXISTS terms(tid INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS postings(tid INTEGER NOT NULL, rid INTEGER NOT NULL, tf INTEGER NOT NULL,
  PRIMARY KEY(tid, rid)) WITHOUT ROWID;
"""


class LexicalIndex:
    """The BM25 index and manifest. Writers must hold the palace lock; readers never wait for it."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(path, timeout=60.0, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            raise PalaceError(f"cannot open the palace's lexical index {path}: {exc}") from None
        self._cache: _DrawerTable | None = None
        self._cache_key: str | None = None
        self._allowed: dict[tuple[str, Filters], set[int]] = {}
        self._id_sets: dict[tuple[str, int], tuple[set[int], set[str]]] = {}

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

    def file_records(self, paths: Iterable[str]) -> dict[str, FileRecord]:
        paths = list(paths)
        out: dict[str, FileRecord] = {}
        for start in range(0, len(paths), 500):
            part = paths[start : start + 500]
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
        ids = list(ids)
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
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
        self._allowed.clear()
        self._id_sets.clear()

    def rollback(self) -> None:
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    def clear(self) -> None:
        for table in ("files", "drawers", "terms", "postings", "meta"):
            self._db.execute(f"DELETE FROM {table}")

    def remove_file(self, path: str) -> None:
        for rid, tids in self._db.execute("SELECT rid, tids FROM drawers WHERE path=?", (path,)).fetchall():
            self._db.executemany(
                "DELETE FROM postings WHERE tid=? AND rid=?", [(int(t), rid) for t in tids.split()]
            )
        self._db.execute("DELETE FROM drawers WHERE path=?", (path,))
        self._db.execute("DELETE FROM files WHERE path=?", (path,))

    def _term_ids(self, terms: Iterable[str]) -> dict[str, int]:
        terms = list(terms)
        self._db.executemany("INSERT OR IGNORE INTO terms(term) VALUES(?)", [(t,) for t in terms])
        out: dict[str, int] = {}
        for start in range(0, len(terms), 500):
            part = terms[start : start + 500]
            marks = ",".join("?" * len(part))
            out.update(self._db.execute(f"SELECT term, tid FROM terms WHERE term IN ({marks})", part).fetchall())
        return out

    def put_file(self, record: FileRecord, drawers: Sequence[DrawerRecord], embed_texts: Sequence[str]) -> None:
        """Replace everything stored about `record.path` (tokenising is cheap; only vectors are precious)."""
        self.remove_file(record.path)
        self._db.execute(
            "INSERT INTO files(path, file_hash, wing, title, aliases, type, tags) VALUES(?,?,?,?,?,?,?)",
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
        counted = [Counter(tokenize(t)) for t in embed_texts]
        tids = self._term_ids({term for c in counted for term in c})
        for drawer, counts in zip(drawers, counted, strict=True):
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
            rid = cur.lastrowid
            self._db.executemany(
                "INSERT INTO postings(tid, rid, tf) VALUES(?,?,?)", [(tids[t], rid, n) for t, n in counts.items()]
            )

    # -- reads ------------------------------------------------------------------------------------------------
    def _table(self) -> _DrawerTable:
        """Per-drawer facts every query needs (id, file, length), held in memory until the next write:
        one table scan per generation instead of an SQL lookup per matched drawer per query."""
        key = self.get_meta("generation") or ""
        if self._cache is None or key != self._cache_key:
            rows = self._db.execute("SELECT rid, id, path, length FROM drawers").fetchall()
            paths: list[str] = []
            path_index: dict[str, int] = {}
            size = (max(r[0] for r in rows) + 1) if rows else 1
            file_of = np.full(size, -1, dtype=np.int32)
            length = np.zeros(size, dtype=np.float32)
            ids: dict[int, str] = {}
            for rid, drawer_id, path, n in rows:
                if path not in path_index:
                    path_index[path] = len(paths)
                    paths.append(path)
                file_of[rid] = path_index[path]
                length[rid] = n
                ids[rid] = drawer_id
            file_len = np.bincount(file_of[file_of >= 0], weights=length[file_of >= 0], minlength=len(paths))
            self._cache = _DrawerTable(ids, {v: k for k, v in ids.items()}, paths, path_index, file_of, length,
                                       file_len.astype(np.float32))
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

    def ids_for_rids(self, rids: Iterable[int]) -> list[str]:
        table = self._table()
        return [table.ids[r] for r in rids if r in table.ids]

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
        """BM25 scores of drawers (by id) and of whole files (by path) for `query`.

        File scores treat a file as the concatenation of its drawers, so a page whose evidence is spread over
        several sections still ranks; drawer scores find the one section that says it all.
        """
        terms = Counter(tokenize(query))
        if not terms:
            return {}, {}
        table = self._table()
        n_drawers = len(table.ids)
        if not n_drawers:
            return {}, {}
        n_files = len(table.paths)
        mean_len = float(table.length.sum()) / n_drawers
        mean_file = float(table.file_len.sum()) / max(n_files, 1)
        marks = ",".join("?" * len(terms))
        tid_of = dict(self._db.execute(f"SELECT term, tid FROM terms WHERE term IN ({marks})", list(terms)))
        mask = None
        if allowed is not None:
            mask = np.zeros(len(table.file_of), dtype=bool)
            mask[np.fromiter(allowed, dtype=np.int64, count=len(allowed))] = True
        drawer_score = np.zeros(len(table.file_of), dtype=np.float32)
        file_score = np.zeros(n_files, dtype=np.float32)
        for term, tid in tid_of.items():
            rows = self._db.execute("SELECT rid, tf FROM postings WHERE tid=?", (tid,)).fetchall()
            if not rows:
                continue
            arr = np.array(rows, dtype=np.int64)
            rid, tf = arr[:, 0], arr[:, 1].astype(np.float32)
            weight = terms[term]
            idf = math.log(1 + (n_drawers - len(rid) + 0.5) / (len(rid) + 0.5))
            norm = tf + K1 * (1 - B + B * table.length[rid] / mean_len)
            contrib = weight * idf * tf * (K1 + 1) / norm
            if mask is not None:
                contrib = contrib * mask[rid]
            np.add.at(drawer_score, rid, contrib)
            # file level: tf summed over the file's drawers, df counted in files
            files = table.file_of[rid]
            ftf = np.bincount(files, weights=tf, minlength=n_files).astype(np.float32)
            present = np.nonzero(ftf)[0]
            fidf = math.log(1 + (n_files - len(present) + 0.5) / (len(present) + 0.5))
            fnorm = ftf[present] + K1 * (1 - B + B * table.file_len[present] / mean_file)
            file_score[present] += weight * fidf * ftf[present] * (K1 + 1) / fnorm
        hit = np.nonzero(drawer_score > 0)[0]
        drawers = {table.ids[int(r)]: float(drawer_score[r]) for r in hit}
        if mask is not None:
            allowed_files = {int(table.file_of[r]) for r in hit}
            files_out = {table.paths[f]: float(file_score[f]) for f in allowed_files if file_score[f] > 0}
        else:
            files_out = {table.paths[int(f)]: float(file_score[f]) for f in np.nonzero(file_score > 0)[0]}
        return drawers, files_out


@dataclass
class _DrawerTable:
    ids: dict[int, str]
    rid_of: dict[str, int]
    paths: list[str]
    path_index: dict[str, int]
    file_of: np.ndarray  # rid -> index into paths (-1: no such rid)
    length: np.ndarray  # rid -> drawer length in terms
    file_len: np.ndarray  # file index -> summed drawer lengths
