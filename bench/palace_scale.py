"""Palace at scale: indexing throughput, search latency and disk size on a synthetic 10,000-page vault.

The vault is generated deterministically (seeded): wiki pages in the four page folders with frontmatter,
three headed sections each, text drawn from a Zipf-distributed vocabulary so that BM25 sees realistic term
statistics. Queries are 4–6 words taken from a random section; hit@10 (the page is among the results) is
reported as a sanity check, not as a quality measure.

Example:
    OMP_NUM_THREADS=1 .venv/bin/python bench/palace_scale.py --pages 10000 --provider use
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from wikic.palace import Palace, search  # noqa: E402
from wikic.settings import load_settings  # noqa: E402

FOLDERS = {"entity": "entities", "concept": "concepts", "comparison": "comparisons", "query": "queries"}
COMMON = ("the of and to in is that for it as with was on be by this are from or at an which have not has "
          "model data system page source search memory vector index query language graph link").split()


def vocabulary(rng: random.Random, n: int) -> list[str]:
    syllables = ["ka", "lo", "mi", "ta", "ren", "vo", "shi", "an", "el", "dor", "qui", "zu", "per", "gan", "tho"]
    words = set()
    while len(words) < n:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def make_vault(root: Path, pages: int, seed: int = 7) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    vocab = COMMON.__class__(COMMON) + vocabulary(rng, 20000)
    weights = [1.0 / (rank + 1) for rank in range(len(vocab))]
    (root / "SCHEMA.md").write_text("# Wiki Schema\n")
    probes: list[tuple[str, str]] = []
    for n in range(pages):
        kind = rng.choice(list(FOLDERS))
        title_words = rng.sample(vocab[200:], 2)
        name = f"{'-'.join(title_words)}-{n}"
        rel = f"{FOLDERS[kind]}/{name}.md"
        sections = []
        for s in range(3):
            paragraphs = [" ".join(rng.choices(vocab, weights, k=rng.randint(25, 60))) + "." for _ in range(2)]
            sections.append(f"## {' '.join(rng.sample(vocab[100:], 2)).title()}\n\n" + "\n\n".join(paragraphs))
            if s == 1 and n % 50 == 0:
                words = paragraphs[0].rstrip(".").split()
                start = rng.randint(0, max(len(words) - 6, 0))
                probes.append((" ".join(words[start : start + rng.randint(4, 6)]), rel))
        text = (f"---\ntitle: {' '.join(title_words).title()}\ntype: {kind}\ntags: [{rng.choice(['a', 'b', 'c'])}]\n"
                f"created: 2026-01-01\nupdated: 2026-01-01\nsources: []\n---\n# {' '.join(title_words).title()}\n\n"
                + "\n\n".join(sections) + "\n")
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return probes


def disk_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=10000)
    ap.add_argument("--provider", default="use", choices=["use", "static"])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--out", type=Path, default=None, help="write the result JSON here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="palace-scale-") as tmp:
        vault = Path(tmp)
        t0 = time.perf_counter()
        probes = make_vault(vault, args.pages)
        gen_s = time.perf_counter() - t0
        (vault / "wikic.toml").write_text(f'[embedding]\nprovider = "{args.provider}"\n')
        palace = Palace(vault, load_settings(vault, env={}))
        t0 = time.perf_counter()
        report = palace.sync()
        index_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        again = palace.sync()
        noop_s = time.perf_counter() - t0
        size = disk_size(vault / ".wikic" / "palace")
        rng = random.Random(11)
        queries = [rng.choice(probes) for _ in range(args.queries)]
        search(palace, "warm up", k=10)
        latencies, hits = [], 0
        for q, rel in queries:
            t0 = time.perf_counter()
            results = search(palace, q, k=10)
            latencies.append(1000 * (time.perf_counter() - t0))
            hits += any(r.path == rel for r in results)
        latencies.sort()
        filtered = []
        for q, _ in queries[:50]:
            t0 = time.perf_counter()
            search(palace, q, k=10, wing="entities")
            filtered.append(1000 * (time.perf_counter() - t0))
        filtered.sort()
        palace.close()
        result = {
            "pages": args.pages,
            "provider": args.provider,
            "drawers": report.drawers_total,
            "generate_s": round(gen_s, 1),
            "index_s": round(index_s, 1),
            "chunks_per_s": round(report.drawers_total / index_s, 1),
            "noop_reindex_s": round(noop_s, 2),
            "noop_embedded": again.drawers_embedded,
            "search_ms_median": round(statistics.median(latencies), 1),
            "search_ms_p95": round(latencies[int(0.95 * (len(latencies) - 1))], 1),
            "search_wing_filter_ms_median": round(statistics.median(filtered), 1),
            "hit_at_10": round(hits / len(queries), 3),
            "palace_mb": round(size / 1e6, 1),
            "palace_files": {p.name: round(disk_size(p) / 1e6 if p.is_dir() else p.stat().st_size / 1e6, 1)
                             for p in (vault / ".wikic" / "palace").iterdir()},
        }
    print(json.dumps(result, indent=2))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
