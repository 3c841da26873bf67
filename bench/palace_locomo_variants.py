"""Ablations of the palace's retrieval on LoCoMo-10 (same protocol as bench/locomo.py).

Indexes each conversation once through the palace, then ranks every question with several fusion variants
built from the palace's own signals (dense drawer similarities, corpus-level BM25 over drawers and over
files), so the variants differ only in how they combine evidence. Used to choose methods, and to report
what each one gives; not part of CI.

Example:
    OMP_NUM_THREADS=1 .venv/bin/python bench/palace_locomo_variants.py --provider use
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import chromadb  # noqa: E402
import numpy as np  # noqa: E402
from locomo import CATEGORY, DATA, evidence_sessions, recall, sessions_of  # noqa: E402

from wikic.palace import Palace, search  # noqa: E402
from wikic.settings import load_settings  # noqa: E402
from wikic.text.terms import tokenize  # noqa: E402


def rrf(rankings: list[list[str]], k: int = 60) -> dict[str, float]:
    """Reciprocal rank fusion (Cormack et al. 2009), the palace's first fusion method."""
    fused: dict[str, float] = defaultdict(float)
    for ranking in rankings:
        for rank, key in enumerate(ranking):
            fused[key] += 1.0 / (k + rank + 1)
    return fused


def by_best(scores: dict[str, float], path_of: dict[str, str]) -> list[str]:
    best: dict[str, float] = {}
    for i, s in scores.items():
        p = path_of[i]
        best[p] = max(best.get(p, -1e9), s)
    return sorted(best, key=lambda p: -best[p])


def by_top2(scores: dict[str, float], path_of: dict[str, str]) -> list[str]:
    per: dict[str, list[float]] = defaultdict(list)
    for i, s in scores.items():
        per[path_of[i]].append(s)
    agg = {p: sorted(v, reverse=True)[0] + 0.5 * (sorted(v, reverse=True)[1:2] or [0])[0] for p, v in per.items()}
    return sorted(agg, key=lambda p: -agg[p])


def rm3_query(palace: Palace, query: str, bm25_drawers: dict[str, float], n_docs: int = 5, n_terms: int = 10) -> str:
    """Pseudo-relevance feedback: add the most frequent terms of the top BM25 drawers (RM3-style)."""
    top = sorted(bm25_drawers, key=lambda i: -bm25_drawers[i])[:n_docs]
    recs = palace.manifest.drawers_by_id(top)
    counts: Counter[str] = Counter()
    qterms = set(tokenize(query))
    for i in top:
        toks = tokenize(recs[i].text)
        total = len(toks) or 1
        for t, c in Counter(toks).items():
            counts[t] += bm25_drawers[i] * c / total
    extra = [t for t, _ in counts.most_common(n_terms * 3) if t not in qterms][:n_terms]
    return query + " " + " ".join(extra)


def run(sample: dict, provider: str, chunk_tokens: int | None, dates: bool,
        official: list[dict]) -> dict[str, list[tuple[int, float, float]]]:
    out: dict[str, list[tuple[int, float, float]]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp)
        (vault / "SCHEMA.md").write_text("# Wiki Schema\n")
        tdir = vault / "raw" / "transcripts"
        tdir.mkdir(parents=True)
        for n, text in sessions_of(sample["conversation"], dates):
            (tdir / f"session_{n}.txt").write_text(text + "\n")
        toml = f'[embedding]\nprovider = "{provider}"\n'
        if chunk_tokens:
            toml += f"[palace]\nchunk_tokens = {chunk_tokens}\n"
        (vault / "wikic.toml").write_text(toml)
        palace = Palace(vault, load_settings(vault, env={}))
        palace.sync()
        # every stored vector, read straight from chromadb (this script holds no key)
        col = chromadb.PersistentClient(path=str(palace.settings.path)).get_collection(palace.settings.collection)
        got = col.get(include=["embeddings", "metadatas"])
        ids = list(got["ids"])
        emb = np.array(got["embeddings"], dtype=np.float32)
        path_of = {i: m["path"] for i, m in zip(ids, got["metadatas"], strict=True)}
        ordinal = {i: int(m["ordinal"]) for i, m in zip(ids, got["metadatas"], strict=True)}
        by_path_ord = {(path_of[i], ordinal[i]): n for n, i in enumerate(ids)}
        centroids = {}
        for pth in set(path_of.values()):
            rows = emb[[n for n, i in enumerate(ids) if path_of[i] == pth]].mean(axis=0)
            centroids[pth] = rows / np.linalg.norm(rows)
        for qa in sample["qa"]:
            q = str(qa["question"])
            ev = sorted(evidence_sessions(qa.get("evidence", [])))
            cat = qa["category"]
            qv = palace.embedder.embed_query(q)
            sims = emb @ qv
            dense = {i: float(s) for i, s in zip(ids, sims, strict=True)}
            bd, bf = palace.manifest.bm25(q)
            files_bf = sorted(bf, key=lambda p: -bf[p])
            # dense PRF (Rocchio): move the query toward its 3 nearest drawers
            top3 = np.argsort(-sims)[:3]
            qv2 = qv + 0.5 * emb[top3].mean(axis=0)
            dense_prf = {i: float(s) for i, s in zip(ids, emb @ qv2, strict=True)}
            # neighbour smoothing: a drawer's score plus half of its best neighbour (context spills over)
            smooth = {}
            for i in ids:
                n = by_path_ord
                p, o = path_of[i], ordinal[i]
                nb = [sims[n[(p, o + d)]] for d in (-1, 1) if (p, o + d) in n]
                smooth[i] = float(sims[n[(p, o)]] + 0.5 * max(nb, default=0.0))
            # file centroid: the mean of a file's drawer vectors, a summary of the whole session/page
            cent_scores = {pth: float(c @ qv) for pth, c in centroids.items()}
            files_cent = sorted(cent_scores, key=lambda p: -cent_scores[p])
            rm3 = rm3_query(palace, q, bd)
            bd3, bf3 = palace.manifest.bm25(rm3)
            variants = {
                "dense_max": [by_best(dense, path_of)],
                "bm25_drawer_max": [by_best(bd, path_of)],
                "bm25_file": [files_bf],
                "rrf_dense+bm25file": [by_best(dense, path_of), files_bf],
                "rrf_dense+bm25drawer": [by_best(dense, path_of), by_best(bd, path_of)],
                "rrf_all3": [by_best(dense, path_of), by_best(bd, path_of), files_bf],
                "rrf_all3_dense_top2": [by_top2(dense, path_of), by_best(bd, path_of), files_bf],
                "rrf_all3_dense_prf": [by_best(dense_prf, path_of), by_best(bd, path_of), files_bf],
                "rrf_all3_dense_smooth": [by_best(smooth, path_of), by_best(bd, path_of), files_bf],
                "rrf_all3_rm3": [by_best(dense, path_of), by_best(bd3, path_of), sorted(bf3, key=lambda p: -bf3[p])],
                "rrf_all3+rm3": [by_best(dense, path_of), by_best(bd, path_of), files_bf,
                                 sorted(bf3, key=lambda p: -bf3[p])],
                "dense_centroid": [files_cent],
                "rrf_all3+centroid": [by_best(dense, path_of), by_best(bd, path_of), files_bf, files_cent],
                "rrf_dense+centroid+bm25file": [by_best(dense, path_of), files_cent, files_bf],
                "rrf_all3+dense_prf": [by_best(dense, path_of), by_best(bd, path_of), files_bf,
                                       by_best(dense_prf, path_of)],
            }
            # convex combination of min-max normalised scores (Bruch et al., TOIS 2023, "An analysis of fusion
            # functions for hybrid retrieval"): keeps the score gaps that RRF throws away. alpha fixed at 0.5.
            def best_scores(scores: dict[str, float]) -> dict[str, float]:
                out: dict[str, float] = {}
                for i, v in scores.items():
                    out[path_of[i]] = max(out.get(path_of[i], -1e9), v)
                return out

            def mm(scores: dict[str, float]) -> dict[str, float]:
                if not scores:
                    return {}
                lo, hi = min(scores.values()), max(scores.values())
                return {k: (v - lo) / (hi - lo) if hi > lo else 1.0 for k, v in scores.items()}

            d_n, bd_n, bf_n = mm(best_scores(dense)), mm(best_scores(bd)), mm(bf)
            convex = {}
            for alpha in (0.3, 0.5, 0.7):
                convex[alpha] = {p: alpha * d_n.get(p, 0) + (1 - alpha) * 0.5 * (bd_n.get(p, 0) + bf_n.get(p, 0))
                                 for p in set(d_n) | set(bd_n) | set(bf_n)}
            for name, lists in variants.items():
                fused = rrf(lists)
                ranked = [int(Path(p).stem.split("_")[1]) for p in sorted(fused, key=lambda p: -fused[p])]
                out[name].append((cat, recall(ev, ranked, 5), recall(ev, ranked, 10)))
            # the shipped pipeline itself, through wikic's search API
            hits = search(palace, q, k=10)
            ranked = [int(Path(h.path).stem.split("_")[1]) for h in hits]
            out["wikic search() (shipped)"].append((cat, recall(ev, ranked, 5), recall(ev, ranked, 10)))
            official.append({"category": cat, "evidence": ev, "ranked": ranked})
            for alpha, scores in convex.items():
                ranked = [int(Path(p).stem.split("_")[1]) for p in sorted(scores, key=lambda p: -scores[p])]
                out[f"convex_dense{alpha}"].append((cat, recall(ev, ranked, 5), recall(ev, ranked, 10)))
        palace.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA, required=DATA is None, help="locomo10.json (or LOCOMO_DATA)")
    ap.add_argument("--provider", default="use")
    ap.add_argument("--chunk-tokens", type=int, default=None)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--dates", action="store_true")
    args = ap.parse_args()
    data = json.loads(args.data.read_text())[: args.limit]
    total: dict[str, list[tuple[int, float, float]]] = defaultdict(list)
    tag = f"variants-{args.provider}-{args.chunk_tokens or 'default'}{'-dates' if args.dates else ''}"
    cache = REPO / "bench" / "out" / "locomo" / tag
    cache.mkdir(parents=True, exist_ok=True)
    for sample in data:
        official: list[dict] = []
        for k, v in run(sample, args.provider, args.chunk_tokens, args.dates, official).items():
            total[k].extend(v)
        # the same per-conversation file bench/locomo.py writes, so its summary can be recomputed from it
        (cache / f"{sample['sample_id']}.json").write_text(json.dumps(
            {"sample_id": sample["sample_id"], "drawers": 0, "index_s": 0.0, "search_s": 0.0, "questions": official}))
        print(f"done {sample['sample_id']}", file=sys.stderr, flush=True)
    questions = len(next(iter(total.values())))
    print(f"provider={args.provider} chunk_tokens={args.chunk_tokens or 'default'} dates={args.dates} "
          f"questions={questions}")
    cats = sorted(CATEGORY)
    print(f"{'variant':28s} {'R@5':>6s} {'R@10':>6s}  " + " ".join(f"{CATEGORY[c][:9]:>9s}" for c in cats) + "  (R@10)")
    for name, rows in total.items():
        r5 = 100 * sum(r[1] for r in rows) / len(rows)
        r10 = 100 * sum(r[2] for r in rows) / len(rows)
        per = []
        for c in cats:
            sub = [r[2] for r in rows if r[0] == c]
            per.append(f"{100 * sum(sub) / max(len(sub), 1):9.1f}")
        print(f"{name:28s} {r5:6.2f} {r10:6.2f}  " + " ".join(per))


if __name__ == "__main__":
    main()
