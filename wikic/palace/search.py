"""Hybrid retrieval: dense vectors + corpus-level BM25 + title/alias matches, fused per file.

Each retriever scores files by their best drawer (max aggregation: one strong section is what makes a page
relevant; averaging would punish long pages). BM25 also scores whole files, so a page whose terms are spread
over sections is not lost. Scores are min-max normalised per query and combined convexly with equal weight
for the two kinds of evidence, meaning (dense) and words (BM25): Bruch et al. (ACM TOIS 2023, "An analysis
of fusion functions for hybrid retrieval") found such a convex combination better than reciprocal rank
fusion, which throws away how far apart the scores are. 0.5 is the neutral weight, not a tuned one.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from wikic.errors import UsageError
from wikic.palace.lexical import FileRecord, Filters
from wikic.palace.palace import Palace
from wikic.palace.sources import OTHER_WING, WINGS

# Dense candidates per query: enough drawers to cover many distinct files once grouped.
DENSE_POOL = 200
# With a filter, the unfiltered query asks this many times the pool before falling back to chromadb's filter.
OVERFETCH = 4
SNIPPET_CHARS = 280
DENSE_WEIGHT = 0.5
# A query that names a page (title, alias, file name) almost always wants that page: the match counts as
# much as one whole kind of evidence, so it beats one retriever's doubt but not both.
TITLE_BONUS = 0.5


@dataclass(frozen=True)
class SearchHit:
    path: str
    score: float
    heading: str
    snippet: str
    line_start: int
    line_end: int
    wing: str
    title: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class TitleIndex:
    """Titles, aliases and file names of every file, for "does the query name a page?" in O(query length).

    Latin-script names are looked up among the query's word n-grams; CJK names (no word boundaries) are
    looked for as substrings.
    """

    MAX_WORDS = 8

    def __init__(self, files: Iterable[FileRecord]) -> None:
        self.words: dict[str, set[str]] = defaultdict(set)
        self.cjk: dict[str, set[str]] = defaultdict(set)
        for record in files:
            stem = record.path.rsplit("/", 1)[-1].rsplit(".", 1)[0].replace("-", " ").replace("_", " ")
            for name in {_norm(c) for c in (record.title, stem, *record.aliases) if c}:
                if _is_cjk(name):
                    if len(name.replace(" ", "")) >= 2:
                        self.cjk[name.replace(" ", "")].add(record.path)
                elif len(name) >= 3 and len(name.split()) <= self.MAX_WORDS:
                    self.words[name].add(record.path)

    def matches(self, query: str) -> list[str]:
        """Paths named in `query`, the longest name first."""
        q = _norm(query)
        words = q.split()
        best: dict[str, int] = {}
        for i in range(len(words)):
            for j in range(i + 1, min(len(words), i + self.MAX_WORDS) + 1):
                name = " ".join(words[i:j])
                for path in self.words.get(name, ()):
                    best[path] = max(best.get(path, 0), len(name))
        if self.cjk:
            flat = q.replace(" ", "")
            for name, paths in self.cjk.items():
                if name in flat:
                    for path in paths:
                        best[path] = max(best.get(path, 0), len(name))
        return sorted(best, key=lambda p: (-best[p], p))


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", unicodedata.normalize("NFKC", text).lower()))


def _title_matches(palace: Palace, query: str) -> list[str]:
    generation = palace.lexical.get_meta("generation")
    cached_generation, index = palace.title_cache
    if index is None or cached_generation != generation or generation is None:
        index = TitleIndex(palace.lexical.files().values())
        palace.title_cache = (generation, index)
    return index.matches(query)


def _is_cjk(text: str) -> bool:
    return any("\u3040" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" for ch in text)


def _best_per_file(scores: dict[str, float], path_of: dict[str, str]) -> dict[str, float]:
    best: dict[str, float] = {}
    for drawer_id, score in scores.items():
        path = path_of.get(drawer_id)
        if path is not None and score > best.get(path, float("-inf")):
            best[path] = score
    return best


def minmax(scores: dict[str, float]) -> dict[str, float]:
    """Scores mapped to [0, 1] within this query; items a retriever did not return count as 0."""
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi <= lo:
        return dict.fromkeys(scores, 1.0)
    return {key: (value - lo) / (hi - lo) for key, value in scores.items()}


def fuse(
    dense: dict[str, float], lexical: list[dict[str, float]], dense_weight: float = DENSE_WEIGHT
) -> dict[str, float]:
    """Convex combination of normalised dense scores and the mean of the normalised lexical scores."""
    d = minmax(dense)
    lex = [minmax(x) for x in lexical]
    keys = set(d).union(*lex)
    return {
        key: dense_weight * d.get(key, 0.0) + (1 - dense_weight) * sum(x.get(key, 0.0) for x in lex) / len(lex)
        for key in keys
    }


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1].rstrip() + "…"


def search(
    palace: Palace,
    query: str,
    k: int = 10,
    *,
    wing: str | None = None,
    tag: str | None = None,
    path: str | None = None,
) -> list[SearchHit]:
    """The `k` best distinct files for `query`, each with its best drawer."""
    if k < 1:
        raise UsageError("k must be at least 1")
    if wing is not None and wing not in (*WINGS, OTHER_WING):
        raise UsageError(f"unknown wing {wing!r}", hint=f"wings: {', '.join((*WINGS, OTHER_WING))}")
    if not query.strip():
        return []
    collection = palace.refresh()
    if collection is None:
        return []
    palace.check_identity(dict(collection.metadata or {}))
    lex = palace.lexical
    filters = Filters(wing=wing, tag=tag, path_prefix=path.strip("/") if path else None)
    allowed = lex.allowed_rids(filters)
    if allowed is not None and not allowed:
        return []

    bm25_drawers, bm25_files = lex.bm25(query, allowed)

    vector = palace.embedder.embed_query(query)
    pool = max(DENSE_POOL, 10 * k)
    if allowed is None:
        dense = palace.store.query(vector, pool, collection=collection)
    else:
        # chromadb pre-filters in SQLite, which costs ~150 ms at 100k drawers; an unfiltered query of a
        # larger pool, filtered here, is ~10x cheaper and enough unless the filter keeps very little
        allowed_ids = lex.ids_of_rids(allowed)
        wide = palace.store.query(vector, max(1, int(OVERFETCH * pool)), collection=collection)
        dense = [(i, sim) for i, sim in wide if i in allowed_ids][:pool]
        # a quarter of the pool still covers far more than k files; fewer means the filter is too narrow
        if len(dense) < min(pool // 4, len(allowed_ids)) and len(wide) == max(1, int(OVERFETCH * pool)):
            if filters.tag or filters.path_prefix:
                dense = palace.store.query(vector, pool, ids=sorted(allowed_ids), collection=collection)
            else:
                dense = palace.store.query(vector, pool, where={"wing": wing}, collection=collection)
    # drawers the lexical index does not know yet (a writer is mid-way) are left out until it catches up
    path_of = lex.paths_of({i for i, _ in dense} | set(bm25_drawers))
    dense_scores = {i: s for i, s in dense if i in path_of}

    titles = _title_matches(palace, query)
    if filters.active:
        allowed_paths = set(path_of.values()) | set(bm25_files)
        titles = [t for t in titles if t in allowed_paths]

    file_scores = fuse(
        _best_per_file(dense_scores, path_of), [_best_per_file(bm25_drawers, path_of), bm25_files]
    )
    for rank, title_path in enumerate(titles):
        # the longest name found counts fully; shorter ones (a substring of it, say) slightly less
        file_scores[title_path] = file_scores.get(title_path, 0.0) + TITLE_BONUS / (1 + 0.1 * rank)
    drawer_scores = fuse(dense_scores, [bm25_drawers])
    best_drawer: dict[str, str] = {}
    for drawer_id, score in drawer_scores.items():
        p = path_of.get(drawer_id)
        if p is not None and (p not in best_drawer or score > drawer_scores[best_drawer[p]]):
            best_drawer[p] = drawer_id

    ranked = sorted(file_scores, key=lambda p: (-file_scores[p], p))
    files = lex.file_records(ranked[: 2 * k + 20])
    records = lex.drawers_by_id([best_drawer[p] for p in ranked[: 2 * k + 20] if p in best_drawer])
    hits: list[SearchHit] = []
    for p in ranked:
        record = files.get(p)
        if record is None:
            continue
        drawer = records.get(best_drawer[p]) if p in best_drawer else None
        if drawer is None:
            first = lex.drawers_of(p)
            if not first:
                continue
            drawer = first[0]
        hits.append(SearchHit(
            path=p,
            score=round(file_scores[p], 6),
            heading=drawer.heading,
            snippet=_snippet(drawer.text),
            line_start=drawer.line_start,
            line_end=drawer.line_end,
            wing=record.wing,
            title=record.title,
        ))
        if len(hits) == k:
            break
    return hits
