"""Corpus-level BM25 over every drawer of the palace, kept in SQLite beside the vectors.

Why not BM25 over the vector shortlist (MemPalace's way): its IDF is computed over ~20 documents and it can
only re-order what the vectors already found. Here IDF comes from the whole palace, and the lexical ranking
is a retriever of its own. SQLite gives incremental updates, one writer with many readers (WAL), and no
extra dependency. The postings live in the manifest's database (`manifest.py`), so one transaction updates
a file's drawers and their terms together; terms come from `wikic.text.terms.tokenize`.
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from wikic.palace.slices import slices
from wikic.text.terms import tokenize

K1 = 1.2
B = 0.75

# Each drawer row also keeps its length in terms and the ids of its terms (`drawers.length`, `drawers.tids`).
SCHEMA = """
CREATE TABLE IF NOT EXISTS terms(tid INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS postings(tid INTEGER NOT NULL, rid INTEGER NOT NULL, tf INTEGER NOT NULL,
  PRIMARY KEY(tid, rid)) WITHOUT ROWID;
"""
TABLES = ("terms", "postings")


@dataclass
class DrawerTable:
    """Per-drawer facts every query needs (id, file, length), held in memory until the next write: one table
    scan per generation instead of an SQL lookup per matched drawer per query."""

    ids: dict[int, str]
    rid_of: dict[str, int]
    paths: list[str]
    path_index: dict[str, int]
    file_of: np.ndarray  # rid -> index into paths (-1: no such rid)
    length: np.ndarray  # rid -> drawer length in terms
    file_len: np.ndarray  # file index -> summed drawer lengths


def load_table(db: sqlite3.Connection) -> DrawerTable:
    rows = db.execute("SELECT rid, id, path, length FROM drawers").fetchall()
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
    return DrawerTable(ids, {v: k for k, v in ids.items()}, paths, path_index, file_of, length,
                       file_len.astype(np.float32))


def term_counts(texts: Sequence[str]) -> list[Counter[str]]:
    """The terms of each drawer's embedded text, counted."""
    return [Counter(tokenize(t)) for t in texts]


def term_ids(db: sqlite3.Connection, terms: Iterable[str]) -> dict[str, int]:
    """The id of each term, new terms added."""
    terms = list(terms)
    db.executemany("INSERT OR IGNORE INTO terms(term) VALUES(?)", [(t,) for t in terms])
    return known_term_ids(db, terms)


def known_term_ids(db: sqlite3.Connection, terms: Iterable[str]) -> dict[str, int]:
    """The id of each of these terms the palace has seen."""
    out: dict[str, int] = {}
    for part in slices(terms):
        marks = ",".join("?" * len(part))
        out.update(db.execute(f"SELECT term, tid FROM terms WHERE term IN ({marks})", part).fetchall())
    return out


def add_postings(db: sqlite3.Connection, rid: int, counts: Counter[str], tids: dict[str, int]) -> None:
    db.executemany("INSERT INTO postings(tid, rid, tf) VALUES(?,?,?)", [(tids[t], rid, n) for t, n in counts.items()])


def remove_postings(db: sqlite3.Connection, rid: int, tids: str) -> None:
    """Drop a drawer's postings; `tids` is the drawer row's space-separated term ids."""
    db.executemany("DELETE FROM postings WHERE tid=? AND rid=?", [(int(t), rid) for t in tids.split()])


@dataclass(frozen=True)
class Lexical:
    """BM25 scores of drawers (by id) and files (by path) for one query, with each level's ceiling: the score
    the query would get against a document made of exactly its own words (`ceiling`), which a match's score
    can be read against (a share of it says how much of the query a page matches, whatever the vault)."""

    drawers: dict[str, float]
    files: dict[str, float]
    drawer_ceiling: float = 0.0
    file_ceiling: float = 0.0


def _ceiling(weights: dict[str, int], idf: dict[str, float], mean_len: float) -> float:
    """BM25 of a document whose terms are exactly `weights` (each as often as the query has it). Word pairs
    are left out: a page rarely repeats a query's phrasing, and they would only lift the ceiling."""
    words = {t: n for t, n in weights.items() if " " not in t}
    length = float(sum(words.values()))
    norm = K1 * (1 - B + B * length / max(mean_len, 1e-9))
    return sum(n * idf[t] * n * (K1 + 1) / (n + norm) for t, n in words.items())


def score(
    db: sqlite3.Connection, table: DrawerTable, query: str, allowed: set[int] | None = None
) -> tuple[dict[str, float], dict[str, float]]:
    """BM25 scores of drawers (by id) and of whole files (by path) for `query` (see `lexical`)."""
    found = lexical(db, table, query, allowed)
    return found.drawers, found.files


def rarest(
    db: sqlite3.Connection, tid_of: dict[str, int], postings: int, known: dict[tuple[int, int], int]
) -> dict[str, int]:
    """The rarest of these terms whose postings add up to at most `postings` rows: what a long query (a
    whole source) is scored by when its cost must not grow with the palace. A term's count stops at
    `postings` + 1 (a term that common never fits), and is kept in `known` (the caller's, for the palace's
    current generation), so the terms every query shares are counted once."""
    df: dict[str, int] = {}
    for term, tid in tid_of.items():
        count = known.get((tid, postings))
        if count is None:
            count = known[(tid, postings)] = db.execute(
                "SELECT count(*) FROM (SELECT 1 FROM postings WHERE tid=? LIMIT ?)", (tid, postings + 1)
            ).fetchone()[0]
        df[term] = count
    chosen: set[str] = set()
    rows = 0
    for term in sorted(df, key=lambda t: (df[t], t)):
        if rows + df[term] > postings:
            break
        rows += df[term]
        chosen.add(term)
    return {term: tid for term, tid in tid_of.items() if term in chosen}  # scored in the usual order


def lexical(
    db: sqlite3.Connection, table: DrawerTable, query: str, allowed: set[int] | None = None, *,
    postings: int | None = None, known: dict[tuple[int, int], int] | None = None,
) -> Lexical:
    """BM25 scores of drawers (by id) and of whole files (by path) for `query`, with their ceilings.

    File scores treat a file as the concatenation of its drawers, so a page whose evidence is spread over
    several sections still ranks; drawer scores find the one section that says it all. A query term the
    palace never saw counts in the ceilings at the highest IDF: no page matches that part of the query.
    With `postings`, only the query's rarest terms are scored (`rarest`; `known` keeps their counts), the
    others left out of the scores and the ceilings alike.
    """
    terms = Counter(tokenize(query))
    if not terms:
        return Lexical({}, {})
    n_drawers = len(table.ids)
    if not n_drawers:
        return Lexical({}, {})
    n_files = len(table.paths)
    mean_len = float(table.length.sum()) / n_drawers
    mean_file = float(table.file_len.sum()) / max(n_files, 1)
    tid_of = known_term_ids(db, terms)
    if postings is not None:
        chosen = rarest(db, tid_of, postings, known if known is not None else {})
        terms = Counter({t: n for t, n in terms.items() if t in chosen or t not in tid_of})
        tid_of = chosen
    mask = None
    if allowed is not None:
        mask = np.zeros(len(table.file_of), dtype=bool)
        rids = np.fromiter(allowed, dtype=np.int64, count=len(allowed))
        mask[rids[rids < len(mask)]] = True
    drawer_score = np.zeros(len(table.file_of), dtype=np.float32)
    file_score = np.zeros(n_files, dtype=np.float32)
    unseen_idf = math.log(1 + (n_drawers + 0.5) / 0.5)
    unseen_fidf = math.log(1 + (n_files + 0.5) / 0.5)
    idfs = dict.fromkeys(terms, unseen_idf)
    fidfs = dict.fromkeys(terms, unseen_fidf)
    for term, tid in tid_of.items():
        rows = db.execute("SELECT rid, tf FROM postings WHERE tid=?", (tid,)).fetchall()
        if not rows:
            continue
        arr = np.array(rows, dtype=np.int64)
        # Readers never wait for a writer: another process may have committed drawers since `table` was
        # loaded, and their postings are read here. Those wait for the next load, as the dense side does.
        arr = arr[arr[:, 0] < len(table.file_of)]
        arr = arr[table.file_of[arr[:, 0]] >= 0]
        if not len(arr):
            continue
        rid, tf = arr[:, 0], arr[:, 1].astype(np.float32)
        weight = terms[term]
        idf = math.log(1 + (n_drawers - len(rid) + 0.5) / (len(rid) + 0.5))
        idfs[term] = idf
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
        fidfs[term] = fidf
        fnorm = ftf[present] + K1 * (1 - B + B * table.file_len[present] / mean_file)
        file_score[present] += weight * fidf * ftf[present] * (K1 + 1) / fnorm
    hit = np.nonzero(drawer_score > 0)[0]
    drawers = {table.ids[int(r)]: float(drawer_score[r]) for r in hit}
    if mask is not None:
        allowed_files = {int(table.file_of[r]) for r in hit}
        files_out = {table.paths[f]: float(file_score[f]) for f in allowed_files if file_score[f] > 0}
    else:
        files_out = {table.paths[int(f)]: float(file_score[f]) for f in np.nonzero(file_score > 0)[0]}
    weights = dict(terms)
    return Lexical(drawers, files_out, _ceiling(weights, idfs, mean_len), _ceiling(weights, fidfs, mean_file))
