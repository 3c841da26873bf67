"""Bilingual retrieval: does fusion ever lose to its own dense half? Dense-only, BM25-only and fused hit@k.

The set (`bench/bilingual/`): 28 short concept pages, 14 in Chinese and 14 in English, and 84 queries, three
per page: a paraphrase in the page's language, a short query in the other language, a long question in the
other language. Written for this benchmark; the held-out checks have their own set.

Small vault: the 28 pages alone. `--large`: the same pages inside a 2,000-page vault made by gen_vault.py
(kept under bench/out/bilingual/ and indexed once, so a second run only searches).

Rankings compared, hit@1 and hit@3 (the expected page first, among the first three):
- dense (index): the query's nearest drawers from chromadb's HNSW index, best drawer per file;
- dense (exact): cosines against every stored vector (what search uses up to 50,000 drawers);
- BM25: file-level BM25 alone;
- one row per fusion (`wikic search` itself, title matches included);
- with `--variants`, calibrated fusion with other `reach` values, and over the HNSW index instead of the
  exact cosines (with and without exact cosines for BM25's best drawers).

Example:
    OMP_NUM_THREADS=1 .venv/bin/python bench/bilingual.py
    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python bench/bilingual.py --large
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from wikic.palace import Palace, search  # noqa: E402 - after the thread limits and sys.path above
from wikic.palace.hybrid import Retrieval, per_file  # noqa: E402
from wikic.settings import FUSIONS, load_settings  # noqa: E402

SET = REPO / "bench" / "bilingual"
FOLDER = "concepts"


def pages() -> dict[str, str]:
    """Vault path -> text of every page of the set."""
    return {f"{FOLDER}/{p.name}": p.read_text(encoding="utf-8") for p in sorted((SET / "pages").glob("*.md"))}


def queries() -> list[dict[str, str]]:
    lines = (SET / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def write_pages(root: Path) -> None:
    for rel, text in pages().items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def small_vault(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "SCHEMA.md").write_text("# Wiki Schema\n## Domain\nBilingual concepts\n", encoding="utf-8")
    (root / "wikic.toml").write_text("", encoding="utf-8")
    write_pages(root)
    return root


def large_vault(root: Path, n_pages: int) -> Path:
    if not (root / "SCHEMA.md").is_file():
        subprocess.run([sys.executable, str(REPO / "bench" / "gen_vault.py"), str(root), "--pages", str(n_pages),
                        "--seed", "1", "--quiet", "--force"], check=True)
        (root / "wikic.toml").write_text("", encoding="utf-8")
    write_pages(root)
    return root


def rank(scores: dict[str, float]) -> list[str]:
    return sorted(scores, key=lambda p: (-scores[p], p))


def all_vectors(palace: Palace) -> tuple[list[str], np.ndarray]:
    ids = sorted(palace.manifest.drawer_ids())
    stored: dict[str, np.ndarray] = {}
    for start in range(0, len(ids), 2000):
        stored.update(palace.store.vectors(ids[start : start + 2000]))
    keys = [i for i in ids if i in stored]
    matrix = np.stack([stored[i] for i in keys])
    return keys, matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)


def evaluate(palace: Palace, qs: list[dict[str, str]], fusions: list[str], exact: bool) -> dict[str, list[list[str]]]:
    """Per ranking, the ranked paths (first 10) of every query."""
    out: dict[str, list[list[str]]] = defaultdict(list)
    keys, matrix = all_vectors(palace) if exact else ([], np.zeros((0, 1)))
    path_of = palace.manifest.paths_of(set(keys)) if exact else {}
    for q in qs:
        vector = palace.embedder.embed_query(q["query"])
        dense = dict(palace.store.query(vector, 200))
        dense_paths = palace.manifest.paths_of(set(dense))
        out["dense (index)"].append(rank(per_file(dense, dense_paths))[:10])
        if exact:
            qn = vector / max(float(np.linalg.norm(vector)), 1e-12)
            sims = matrix @ qn
            out["dense (exact)"].append(rank(per_file(dict(zip(keys, map(float, sims), strict=True)), path_of))[:10])
        _, files = palace.manifest.bm25(q["query"])
        out["BM25"].append(rank(files)[:10])
        for fusion in fusions:
            hits = search(palace, q["query"], k=10, retrieval=dataclasses.replace(Retrieval(), fusion=fusion))
            out[f"fused: {fusion}"].append([h.path for h in hits])
        for label, retrieval in VARIANTS.items():
            hits = search(palace, q["query"], k=10, retrieval=retrieval)
            out[label].append([h.path for h in hits])
    return out


# Extra fused rankings measured when choosing parameters (--variants).
VARIANTS: dict[str, Retrieval] = {}


def hit(ranked: list[str], expected: str, k: int) -> bool:
    return expected in ranked[:k]


def table(results: dict[str, list[list[str]]], qs: list[dict[str, str]]) -> str:
    groups = {"all": list(range(len(qs)))}
    for i, q in enumerate(qs):
        groups.setdefault(f"{q['kind']}-{q['length']}", []).append(i)
    header = "| ranking | " + " | ".join(f"{g} (n={len(ix)}) hit@1 / hit@3" for g, ix in groups.items()) + " |"
    lines = [header, "|---|" + "---|" * len(groups)]
    for label, ranked in results.items():
        cells = []
        for ix in groups.values():
            h1 = 100 * sum(hit(ranked[i], qs[i]["page"], 1) for i in ix) / len(ix)
            h3 = 100 * sum(hit(ranked[i], qs[i]["page"], 3) for i in ix) / len(ix)
            cells.append(f"{h1:.1f} / {h3:.1f}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def misses(results: dict[str, list[list[str]]], qs: list[dict[str, str]], label: str) -> str:
    rows = []
    for q, ranked in zip(qs, results[label], strict=True):
        if not hit(ranked, q["page"], 1):
            rows.append(f"  {q['query']!r}: want {q['page']}, got {ranked[:3]}")
    return f"{label} misses at 1:\n" + "\n".join(rows) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--large", action="store_true", help="the pages inside a generated 2,000-page vault")
    ap.add_argument("--pages", type=int, default=2000, help="--large: pages of the generated vault")
    ap.add_argument("--fusion", action="append", choices=FUSIONS, help="fusions to report (default: all)")
    ap.add_argument("--variants", action="store_true", help="also calibrated fusion with other reach / exact values")
    ap.add_argument("--misses", default=None, metavar="RANKING", help="list the hit@1 misses of this ranking")
    ap.add_argument("--json", type=Path, default=None, help="write the table's numbers here")
    args = ap.parse_args()
    fusions = args.fusion or list(FUSIONS)
    if args.variants:
        for reach in (0.5, 0.7, 1.0):
            VARIANTS[f"calibrated reach {reach}"] = Retrieval(fusion="calibrated", reach=reach)
        VARIANTS["calibrated over the index"] = Retrieval(fusion="calibrated", exhaustive=False)
        VARIANTS["calibrated over the index, no exact cosines"] = Retrieval(fusion="calibrated", exhaustive=False,
                                                                           exact=0)
        VARIANTS["convex over the index, no exact cosines"] = Retrieval(fusion="convex", exhaustive=False, exact=0)
    qs = queries()
    with tempfile.TemporaryDirectory(prefix="bilingual-") as tmp:
        if args.large:
            root = large_vault(REPO / "bench" / "out" / "bilingual" / f"vault-{args.pages}", args.pages)
        else:
            root = small_vault(Path(tmp) / "vault")
        palace = Palace(root, load_settings(root, env={}))
        started = time.perf_counter()
        report = palace.sync()
        print(f"{root.name}: {report.files_total} files, {report.drawers_total} drawers "
              f"({report.drawers_embedded} embedded in {time.perf_counter() - started:.0f} s)", flush=True)
        started = time.perf_counter()
        results = evaluate(palace, qs, fusions, exact=True)
        print(f"{len(qs)} queries in {time.perf_counter() - started:.0f} s\n")
        palace.close()
    print(table(results, qs))
    if args.misses:
        print(misses(results, qs, args.misses))
    if args.json:
        numbers = {label: {"hit@1": 100 * sum(hit(r, q["page"], 1) for r, q in zip(ranked, qs, strict=True)) / len(qs),
                           "hit@3": 100 * sum(hit(r, q["page"], 3) for r, q in zip(ranked, qs, strict=True)) / len(qs)}
                   for label, ranked in results.items()}
        args.json.write_text(json.dumps(numbers, indent=2))


if __name__ == "__main__":
    main()
