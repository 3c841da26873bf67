"""Hybrid retrieval: dense vectors + corpus-level BM25 + title/alias matches, fused per file.

Each retriever scores files by their best drawer (MaxP: one strong section is what makes a page relevant;
averaging would punish long pages). BM25 also scores whole files, so a page whose terms are spread over
sections is not lost. How the three rankings become one is the `[palace] fusion` setting:

- "calibrated" (default): each score read against what it could be for this query. A BM25 score counts as
  its share of the query's ceiling (the score of a page made of exactly the query's words), full weight from
  `REACH` of it up; a cosine counts as its share of the query's best cosine. Half each. A weak lexical match
  (one shared word or bigram, or a query in another language than the page) then weighs little, where
  min-max normalisation would give the best of the weak matches the full lexical weight.
- "convex": each retriever's scores min-max normalised per query, then meaning (dense) and words (BM25)
  weighed half each (Bruch et al., ACM TOIS 2023, "An analysis of fusion functions for hybrid retrieval").
- "rrf": reciprocal rank fusion as Cormack et al. (SIGIR 2009) define it, each ranking adding
  1 / (rrf_k + rank), k = 60, every ranking counting the same: no calibration of cosines against BM25.

Up to 50,000 drawers the dense side compares the query with every drawer's vector (copies kept in the
manifest); beyond, chromadb's HNSW index answers. Either way the drawers BM25 ranks highest get their exact
cosines, so a page found by its words has its meaning counted too. docs/palace.md has the numbers.
"""

from __future__ import annotations

import heapq
import re
import sys
import unicodedata
from collections import defaultdict
from collections.abc import Collection, Iterable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from wikic.errors import UsageError
from wikic.palace.chunking import searchable
from wikic.palace.manifest import DenseTable, DrawerRecord, Filters, Manifest, damage_reported
from wikic.palace.palace import Palace
from wikic.palace.sources import OTHER_WING, WINGS
from wikic.settings import PalaceSettings
from wikic.text.question import bounded_question
from wikic.text.scripts import has_cjk

# Dense candidates per query: enough drawers to cover many distinct files once grouped.
DENSE_POOL = 200
# With a filter, the unfiltered query asks this many times the pool before falling back to chromadb's filter.
OVERFETCH = 4
SNIPPET_CHARS = 280
DENSE_WEIGHT = 0.5
# calibrated: the share of the query's BM25 ceiling at which a page gets the full lexical weight.
REACH = 0.7
# BM25's best drawers given exact cosines when the vector index did not return them.
EXACT_CANDIDATES = 100
# A query that names a page (title, alias, file name) almost always wants that page: the match counts as
# much as one whole kind of evidence (half of the best fused score, 1, under either fusion), so it beats one
# retriever's doubt but not both.
TITLE_BONUS = 0.5
# A hit's score is its file's fused evidence (at most 1 under either fusion) plus the title bonus, divided by
# the most the two can add up to: a number in [0, 1] that ranks the files of one query (not a probability,
# and not comparable across queries).
MAX_SCORE = 1 + TITLE_BONUS


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

    def __init__(self, files: Iterable[tuple[str, str, list[str]]]) -> None:
        """`files`: each file's (path, title, aliases), as `Manifest.titles` gives them."""
        self.words: dict[str, set[str]] = defaultdict(set)
        self.cjk: dict[str, set[str]] = defaultdict(set)
        for path, title, aliases in files:
            stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0].replace("-", " ").replace("_", " ")
            for name in {_norm(c) for c in (title, stem, *aliases) if c}:
                if has_cjk(name):
                    if len(name.replace(" ", "")) >= 2:
                        self.cjk[name.replace(" ", "")].add(path)
                elif len(name) >= 3 and len(name.split()) <= self.MAX_WORDS:
                    self.words[name].add(path)

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


_WORD = re.compile(r"\w+")


def _norm(text: str) -> str:
    if not text.isascii():  # NFKC changes no ASCII text: most names skip it
        text = unicodedata.normalize("NFKC", text)
    return " ".join(_WORD.findall(text.lower()))


def _title_matches(palace: Palace, query: str) -> list[str]:
    generation = palace.manifest.get_meta("generation")
    cached_generation, index = palace.title_cache
    if index is None or cached_generation != generation or generation is None:
        index = TitleIndex(palace.manifest.titles())
        palace.title_cache = (generation, index)
    return index.matches(query)


# How a file's drawer scores become the file's score, as weights of its best, second, third... drawer.
# "max" is MaxP (Dai & Callan, SIGIR 2019): one strong section makes a page relevant. The others also credit
# further matching drawers, for questions whose evidence is spread over one file's sections.
AGGREGATES: dict[str, tuple[float, ...]] = {
    "max": (1.0,),
    "sum3": (1.0, 1.0, 1.0),
    "harmonic3": (1.0, 1 / 2, 1 / 3),
}


@dataclass(frozen=True)
class Retrieval:
    """How search turns the retrievers' scores into one ranking: `fusion` and `rrf_k` are the [palace]
    settings; `aggregate` (a key of AGGREGATES), `reach`, `exact` and `exhaustive` (compare the query with
    every stored vector rather than ask the approximate index) are switches for the benchmarks, not settings.
    `postings` bounds the lexical side of a long query (a whole source, as ingest asks): only the query's
    rarest terms are scored, whose postings add up to at most that many rows, so its cost does not grow with
    the palace (None: every term)."""

    fusion: str = "calibrated"
    rrf_k: int = 60
    aggregate: str = "max"
    reach: float = REACH
    exact: int = EXACT_CANDIDATES
    exhaustive: bool = True
    postings: int | None = None

    @classmethod
    def of(cls, settings: PalaceSettings) -> Retrieval:
        return cls(fusion=settings.fusion, rrf_k=settings.rrf_k)


def per_file(scores: dict[str, float], path_of: dict[str, str], aggregate: str = "max") -> dict[str, float]:
    """File scores from drawer scores: the weighted sum of each file's best drawers (AGGREGATES)."""
    weights = AGGREGATES[aggregate]
    if len(weights) == 1:  # each file's best drawer: no list and heap per file (a search fuses thousands)
        top: dict[str, float] = {}
        for drawer_id, score in scores.items():
            path = path_of.get(drawer_id)
            if path is not None and (path not in top or score > top[path]):
                top[path] = score
        return {path: score + 0.0 for path, score in top.items()}  # + 0.0: as the sum below, -0.0 is 0.0
    grouped: dict[str, list[float]] = defaultdict(list)
    for drawer_id, score in scores.items():
        path = path_of.get(drawer_id)
        if path is not None:
            grouped[path].append(score)
    out: dict[str, float] = {}
    for path, values in grouped.items():
        best = heapq.nlargest(len(weights), values)
        # further drawers only ever add: a negative similarity is no evidence, not evidence against
        out[path] = best[0] + sum(w * max(v, 0.0) for w, v in zip(weights[1:], best[1:], strict=False))
    return out


def minmax(scores: dict[str, float]) -> dict[str, float]:
    """Scores mapped to [0, 1] within this query; items a retriever did not return count as 0."""
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi <= lo:
        return dict.fromkeys(scores, 1.0)
    return {key: (value - lo) / (hi - lo) for key, value in scores.items()}


def reciprocal_ranks(scores: dict[str, float], k: int) -> dict[str, float]:
    """Reciprocal rank fusion's share of each item, 1 / (k + rank), scaled by k + 1 so the first item gets
    1 as under min-max (the order is RRF's; the scale keeps the title bonus meaning the same). Equal scores
    share a rank, so ties do not depend on ids."""
    out: dict[str, float] = {}
    rank, previous = 0, None
    for position, key in enumerate(sorted(scores, key=lambda x: -scores[x]), 1):
        if scores[key] != previous:
            rank, previous = position, scores[key]
        out[key] = (k + 1) / (k + rank)
    return out


def calibrated(scores: dict[str, float], ceiling: float) -> dict[str, float]:
    """Scores as shares of `ceiling`, capped at 1 (no ceiling: no evidence)."""
    if ceiling <= 0:
        return dict.fromkeys(scores, 0.0)
    return {key: min(1.0, max(value, 0.0) / ceiling) for key, value in scores.items()}


def fuse(
    dense: dict[str, float],
    lexical: list[dict[str, float]],
    *,
    fusion: str = "calibrated",
    rrf_k: int = 60,
    dense_weight: float = DENSE_WEIGHT,
    ceilings: list[float] | None = None,
    reach: float = REACH,
    keys: Collection[str] | None = None,
) -> dict[str, float]:
    """One score per item from a dense and one or more lexical retrievers; absent items get 0 from a retriever.
    `keys`: the items to score (default: every item of the lists), each scored as among all of them (the
    best cosine, the min-max range and the ranks are the whole lists').

    "calibrated": `dense_weight` times the cosine as a share of the best cosine, plus the rest times the mean
    lexical score as a share of `reach` times its list's ceiling (`ceilings`, one per lexical list).
    "convex": the same weights over min-max normalised scores (Bruch et al., TOIS 2023). "rrf": the sum of
    1 / (rrf_k + rank) over all the lists, each counting the same, as Cormack et al. (SIGIR 2009) define it
    (ranks need no calibration), divided by the number of lists so that first everywhere scores 1.
    """
    def asked(scores: dict[str, float]) -> dict[str, float]:
        return scores if keys is None else {key: scores[key] for key in keys if key in scores}

    if fusion == "rrf":
        ranked = [asked(reciprocal_ranks(x, rrf_k)) for x in (dense, *lexical)]
        return {key: sum(x.get(key, 0.0) for x in ranked) / len(ranked) for key in set().union(*ranked)}
    if fusion == "calibrated":
        if ceilings is None or len(ceilings) != len(lexical):
            raise ValueError("calibrated fusion needs one ceiling per lexical list")
        d = calibrated(asked(dense), max(dense.values(), default=0.0))
        lex = [calibrated(asked(x), reach * c) for x, c in zip(lexical, ceilings, strict=True)]
    else:
        d, lex = asked(minmax(dense)), [asked(minmax(x)) for x in lexical]
    keys = set(d).union(*lex)
    # the same arithmetic as the mean below (sum() starts from 0: "0 +"), without a generator per key, for the
    # one and two lexical lists search fuses (thousands of keys a query)
    rest = 1 - dense_weight
    if len(lex) == 1:
        (only,) = lex
        return {key: dense_weight * d.get(key, 0.0) + rest * (0 + only.get(key, 0.0)) / 1 for key in keys}
    if len(lex) == 2:
        first, second = lex
        return {key: dense_weight * d.get(key, 0.0) + rest * (0 + first.get(key, 0.0) + second.get(key, 0.0)) / 2
                for key in keys}
    return {key: dense_weight * d.get(key, 0.0) + rest * sum(x.get(key, 0.0) for x in lex) / len(lex) for key in keys}


def nearest(table: DenseTable, vector: np.ndarray, n: int, allowed: set[int] | None) -> list[tuple[str, float]]:
    """The `n` drawers nearest to `vector` by exact cosine (among the `allowed` rids), best first."""
    q = np.asarray(vector, dtype=np.float32)
    sims = table.matrix @ (q / max(float(np.linalg.norm(q)), 1e-12))
    keep = table.present
    if allowed is not None:
        keep = keep.copy()
        mask = np.zeros(len(keep), dtype=bool)
        rids = np.fromiter(allowed, dtype=np.int64, count=len(allowed))
        mask[rids[rids < len(keep)]] = True  # a drawer newer than the loaded vectors waits for the next load
        keep &= mask
    candidates = np.nonzero(keep)[0]
    if len(candidates) > n:
        candidates = candidates[np.argpartition(-sims[candidates], n - 1)[:n]]
    best = candidates[np.argsort(-sims[candidates], kind="stable")]
    return [(table.ids[int(r)], float(sims[r])) for r in best]


def exact_cosines(palace: Palace, vector: np.ndarray, ids: list[str]) -> dict[str, float]:
    """Cosine of `vector` with each of these drawers' stored vectors."""
    stored = palace.store.vectors(ids)
    if not stored:
        return {}
    keys = list(stored)
    matrix = np.stack([stored[i] for i in keys])
    q = np.asarray(vector, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1) * max(float(np.linalg.norm(q)), 1e-12)
    sims = matrix @ q / np.maximum(norms, 1e-12)
    return {i: float(x) for i, x in zip(keys, sims, strict=True)}


def _snippet(text: str) -> str:
    """A drawer's text as one line a reader sees first: a folded callout (a composed page's `> [!quote]- Claims`
    under its prose) is what a reader opens, not reads, so it is left out where open text remains; a drawer
    holding only such a callout shows what it folds, without the callout's syntax."""
    text = searchable(text)
    if "[!" in text:
        shown = _FOLDED.sub("", text)
        text = shown if shown.strip() else _CALLOUT_TITLE.sub("", _QUOTE_MARK.sub("", text))
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1].rstrip() + "…"


# a folded callout (`> [!type]- Title` and the quoted lines under it), and a callout's title and quote marks
_FOLDED = re.compile(r"^[ \t]*>[ \t]*\[![^\]\n]*\]-.*(?:\n[ \t]*>.*)*", re.MULTILINE)
_CALLOUT_TITLE = re.compile(r"^[ \t]*\[![^\]\n]*\][-+]?.*$", re.MULTILINE)
_QUOTE_MARK = re.compile(r"^[ \t]*>[ \t]?", re.MULTILINE)


def _best_drawers(
    lex: Manifest, shown: list[str], dense: dict[str, float], bm25: dict[str, float], path_of: dict[str, str],
    how: Retrieval, ceiling: float,
) -> tuple[dict[str, str], dict[str, DrawerRecord]]:
    """Each of the `shown` files' best drawer by its own fused score (only theirs are fused), the first in
    the file among equals; and the records of those drawers."""
    wanted = set(shown)
    mine = [i for i in {*dense, *bm25} if path_of.get(i) in wanted]
    scores = fuse(dense, [bm25], fusion=how.fusion, rrf_k=how.rrf_k, ceilings=[ceiling], reach=how.reach, keys=mine)
    tops: dict[str, list[str]] = {}
    for drawer_id, score in scores.items():
        p = path_of[drawer_id]
        held = tops.get(p)
        if held is None or score > scores[held[0]]:
            tops[p] = [drawer_id]
        elif score == scores[held[0]]:
            held.append(drawer_id)
    records = lex.drawers_by_id([i for ids in tops.values() for i in ids])
    best = {p: min(ids, key=lambda i: (records[i].ordinal, i) if i in records else (sys.maxsize, i))
            for p, ids in tops.items()}
    return best, records


def search(
    palace: Palace,
    query: str,
    k: int = 10,
    *,
    wing: str | None = None,
    tag: str | None = None,
    path: str | None = None,
    retrieval: Retrieval | None = None,
) -> list[SearchHit]:
    """The `k` best distinct files for `query`, each with its best drawer. `retrieval` overrides how
    evidence is fused (default: the palace's settings). A damaged palace raises PalaceDamaged, whose hint
    is `wikic index` (which repairs it)."""
    with damage_reported(palace.manifest_path()):
        return _search(palace, query, k, wing=wing, tag=tag, path=path, retrieval=retrieval)


def _search(
    palace: Palace,
    query: str,
    k: int,
    *,
    wing: str | None,
    tag: str | None,
    path: str | None,
    retrieval: Retrieval | None,
) -> list[SearchHit]:
    if k < 1:
        raise UsageError("k must be at least 1")
    if wing is not None and wing not in (*WINGS, OTHER_WING):
        raise UsageError(f"unknown wing {wing!r}", hint=f"wings: {', '.join((*WINGS, OTHER_WING))}")
    if not bounded_question(query, "query").strip():
        return []
    # a palace built with another model is refused before this one is loaded for nothing
    palace.check_recorded_model()
    # the palace process starts (it imports chromadb), then the query is embedded: loading the model overlaps it
    palace.store.start()
    vector = palace.embedder.embed_query(query)
    meta = palace.refresh()
    if meta is None:
        return []
    palace.check_identity(meta)
    lex = palace.manifest
    filters = Filters(wing=wing, tag=tag, path_prefix=path.strip("/") if path else None)
    allowed = lex.allowed_rids(filters)
    if allowed is not None and not allowed:
        return []

    how = retrieval or Retrieval.of(palace.settings)
    found = lex.lexical(query, allowed, postings=how.postings)
    bm25_drawers, bm25_files = found.drawers, found.files

    pool = max(DENSE_POOL, 10 * k)
    table = lex.dense() if how.exhaustive else None
    if table is not None:
        dense = nearest(table, vector, pool, allowed)
    elif allowed is None:
        dense = palace.store.query(vector, pool, refresh=False)
    else:
        # chromadb pre-filters in SQLite, which costs ~150 ms at 100k drawers; an unfiltered query of a
        # larger pool, filtered here, is ~10x cheaper and enough unless the filter keeps very little
        allowed_ids = lex.ids_of_rids(allowed)
        wide = palace.store.query(vector, max(1, int(OVERFETCH * pool)), refresh=False)
        dense = [(i, sim) for i, sim in wide if i in allowed_ids][:pool]
        # a quarter of the pool still covers far more than k files; fewer means the filter is too narrow
        if len(dense) < min(pool // 4, len(allowed_ids)) and len(wide) == max(1, int(OVERFETCH * pool)):
            if filters.tag or filters.path_prefix:
                dense = palace.store.query(vector, pool, ids=sorted(allowed_ids), refresh=False)
            else:
                dense = palace.store.query(vector, pool, where={"wing": wing}, refresh=False)
    dense_scores = dict(dense)
    if how.exact > 0:
        # a page BM25 ranks high keeps its meaning in the fusion even when it is not among the nearest
        wanted = [i for i in heapq.nlargest(how.exact, bm25_drawers, key=bm25_drawers.__getitem__)
                  if i not in dense_scores]
        if wanted:
            dense_scores.update(
                table.cosines(vector, wanted) if table is not None else exact_cosines(palace, vector, wanted)
            )
    # drawers the manifest does not know yet (a writer is mid-way) are left out until it catches up
    path_of = lex.paths_of(set(dense_scores) | set(bm25_drawers))
    dense_scores = {i: s for i, s in dense_scores.items() if i in path_of}

    titles = _title_matches(palace, query)
    if filters.active:
        allowed_paths = set(path_of.values()) | set(bm25_files)
        titles = [t for t in titles if t in allowed_paths]

    file_scores = fuse(
        per_file(dense_scores, path_of, how.aggregate),
        [per_file(bm25_drawers, path_of, how.aggregate), bm25_files],
        fusion=how.fusion,
        rrf_k=how.rrf_k,
        ceilings=[found.drawer_ceiling, found.file_ceiling],
        reach=how.reach,
    )
    for rank, title_path in enumerate(titles):
        # the longest name found counts fully; shorter ones (a substring of it, say) slightly less
        file_scores[title_path] = file_scores.get(title_path, 0.0) + TITLE_BONUS / (1 + 0.1 * rank)
    ranked = sorted(file_scores, key=lambda p: (-file_scores[p], p))
    shown = ranked[: 2 * k + 20]
    best_drawer, records = _best_drawers(lex, shown, dense_scores, bm25_drawers, path_of, how, found.drawer_ceiling)
    files = lex.file_records(shown)
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
            score=round(file_scores[p] / MAX_SCORE, 6),
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
