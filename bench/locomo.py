"""LoCoMo-10 retrieval benchmark for the palace (session granularity, no LLM).

Protocol (the one MemPalace's published numbers use): one fresh vault per
conversation; each session is one transcript file under raw/transcripts/ with every turn rendered as
`Speaker said, "text"` (image captions ignored); the question is the query; the palace's own search API
ranks files; recall@k = |evidence sessions ∩ top-k| / |evidence sessions| (empty evidence = 1.0), averaged
over all 1,986 questions.

The data (`locomo10.json` from the LoCoMo repository, snap-research/locomo) is CC BY-NC 4.0: give its path with
`--data` or the LOCOMO_DATA environment variable; it is never copied into the repository. Results per
conversation are cached under bench/out/ so a run can resume.

Held-out protocol: `--split dev` is the first 5 conversations of the data file, `--split test` the last 5.
Methods are chosen on dev only; test then says whether the choice generalises. A run writes, for each
split it covers, the overall and per-category recall to summary.json and summary.md in its cache folder.

Model help (`--rerank`, `--rewrite`): the palace's fused top 30 reordered by, or the question rewritten by,
any OpenAI-compatible endpoint (`--base-url`, `--model`; the key, if one is needed, from WIKIC_LLM_API_KEY);
replies are cached in the run's folder, and a failed reply keeps the fused order (counted in the summary).

Examples:
    OMP_NUM_THREADS=1 .venv/bin/python bench/locomo.py --provider use --split dev --fusion rrf
    OMP_NUM_THREADS=1 .venv/bin/python bench/locomo.py --provider e5 --split all
    OMP_NUM_THREADS=1 .venv/bin/python bench/locomo.py --split dev --rerank --base-url http://HOST:8080/v1 --model M
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pydantic import SecretStr  # noqa: E402 - after the thread limits and sys.path above

from wikic.llm.cache import ReplyCache  # noqa: E402 - after the thread limits and sys.path above
from wikic.llm.client import LLM, OpenAICompatible  # noqa: E402 - after the thread limits and sys.path above
from wikic.palace import Palace, chunking, search  # noqa: E402 - after the thread limits and sys.path above
from wikic.palace.hybrid import AGGREGATES, Retrieval, SearchHit, nearest, per_file  # noqa: E402 - after the thread limits and sys.path above
from wikic.query.assist import Assist, assisted_search  # noqa: E402 - after the thread limits and sys.path above
from wikic.settings import FUSIONS, LLMSettings, load_settings  # noqa: E402 - after the thread limits and sys.path above

CATEGORY = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
# Conversations per split, in the data file's order: choose methods on dev, report test.
SPLIT_SIZE = 5


NO_HIT = SearchHit("", 0.0, "", "", 0, 0, "", "")
DATA = Path(os.environ["LOCOMO_DATA"]) if os.environ.get("LOCOMO_DATA") else None  # locomo10.json

def sessions_of(conversation: dict, dates: bool = False) -> list[tuple[int, str]]:
    """(session number, transcript text). With `dates`, the transcript starts with the session's date line,
    as a real chat export would; the published protocol has no such line, so it is off by default."""
    out = []
    n = 1
    while f"session_{n}" in conversation:
        turns = conversation[f"session_{n}"]
        text = "\n".join(f'{t["speaker"]} said, "{t["text"]}"' for t in turns)
        if dates and conversation.get(f"session_{n}_date_time"):
            text = f"Conversation on {conversation[f'session_{n}_date_time']}\n{text}"
        out.append((n, text))
        n += 1
    return out


def evidence_sessions(evidence: list[str]) -> set[int]:
    out = set()
    for ev in evidence:
        for part in str(ev).replace(";", ",").split(","):
            part = part.strip()
            if part.startswith("D") and ":" in part:
                with contextlib.suppress(ValueError):
                    out.add(int(part[1:].split(":")[0]))
    return out


@dataclasses.dataclass(frozen=True)
class Method:
    """The retrieval choices a run measures: palace settings (written to the vault's wikic.toml) and
    search switches (passed to search)."""

    provider: str = "use"
    chunk_tokens: int | None = None
    fusion: str = "calibrated"
    rrf_k: int = 60
    aggregate: str = "max"
    packing: str = "greedy"

    def toml(self) -> str:
        palace = [f'fusion = "{self.fusion}"', f"rrf_k = {self.rrf_k}"]
        if self.chunk_tokens:
            palace.append(f"chunk_tokens = {self.chunk_tokens}")
        return f'[embedding]\nprovider = "{self.provider}"\n[palace]\n' + "\n".join(palace) + "\n"

    def tag(self) -> str:
        parts = [self.provider, self.fusion if self.fusion != "rrf" else f"rrf{self.rrf_k}", self.aggregate]
        if self.chunk_tokens:
            parts.append(f"c{self.chunk_tokens}")
        if self.packing != "greedy":
            parts.append(self.packing)
        return "-".join(parts)


def windows(units: list, budget: int, count: Callable[[str], int]) -> list[list]:
    """The `--packing windows` variant of the chunker's packer: a drawer starts at every unit (turn) and takes
    the units that fit, so every turn is embedded together with the turns after it; a window that ends where
    the previous one ended holds nothing new and is left out."""
    chunks: list[list] = []
    for start in range(len(units)):
        group, size = [], 0
        for unit in units[start:]:
            n = count(unit.text) + 1
            if group and size + n > budget:
                break
            group.append(unit)
            size += n
        if not chunks or group[-1] is not chunks[-1][-1]:
            chunks.append(group)
    return chunks


@contextlib.contextmanager
def packing(kind: str) -> Iterator[None]:
    """Swap the chunker's packer for a variant while a conversation is indexed (measured, not shipped)."""
    original = chunking._pack
    chunking._pack = windows if kind == "windows" else original
    try:
        yield
    finally:
        chunking._pack = original


def split_of(data: list[dict], split: str) -> list[dict]:
    if split == "dev":
        return data[:SPLIT_SIZE]
    if split == "test":
        return data[SPLIT_SIZE : 2 * SPLIT_SIZE]
    return data


@dataclasses.dataclass
class Helper:
    """The model help a run asks for (`--rerank`, `--rewrite`), with the model and the replies' cache."""

    assist: Assist
    llm: LLM
    cache: ReplyCache


def one_retriever(palace: Palace, question: str, ranking: str) -> list[str]:
    """Files ranked by one retriever alone: "dense" (exact cosines, best drawer per file) or "bm25" (whole-file
    BM25, i.e. BM25 over sessions)."""
    if ranking == "bm25":
        _, files = palace.manifest.bm25(question)
    else:
        table = palace.manifest.dense()
        assert table is not None
        near = dict(nearest(table, palace.embedder.embed_query(question), 200, None))
        files = per_file(near, palace.manifest.paths_of(set(near)))
    return sorted(files, key=lambda p: (-files[p], p))[:10]


def run_conversation(sample: dict, method: Method, dates: bool = False, helper: Helper | None = None,
                     questions: int | None = None, ranking: str = "fused") -> dict:
    with tempfile.TemporaryDirectory(prefix="locomo-vault-") as tmp:
        vault = Path(tmp)
        (vault / "SCHEMA.md").write_text("# Wiki Schema\n", encoding="utf-8")
        transcripts = vault / "raw" / "transcripts"
        transcripts.mkdir(parents=True)
        for n, text in sessions_of(sample["conversation"], dates):
            (transcripts / f"session_{n}.txt").write_text(text + "\n", encoding="utf-8")
        (vault / "wikic.toml").write_text(method.toml(), encoding="utf-8")
        settings = load_settings(vault, env={})
        palace = Palace(vault, settings)
        retrieval = dataclasses.replace(Retrieval.of(settings.palace), aggregate=method.aggregate)
        started = time.perf_counter()
        with packing(method.packing):
            report = palace.sync()
        index_s = time.perf_counter() - started
        rows = []
        started = time.perf_counter()
        for qa in sample["qa"][:questions]:
            fallback: list[str] = []
            if ranking != "fused":
                alone = one_retriever(palace, str(qa["question"]), ranking)
                hits = [dataclasses.replace(NO_HIT, path=p) for p in alone]
            elif helper is None:
                hits = search(palace, str(qa["question"]), k=10, retrieval=retrieval)
            else:
                found = assisted_search(palace, str(qa["question"]), 10, helper.assist, llm=helper.llm,
                                        cache=helper.cache, retrieval=retrieval)
                hits, fallback = found.hits, found.report.fallback
            ranked = [int(Path(h.path).stem.split("_")[1]) for h in hits]
            rows.append({"category": qa["category"], "evidence": sorted(evidence_sessions(qa.get("evidence", []))),
                         "ranked": ranked, **({"fallback": fallback} if fallback else {})})
        search_s = time.perf_counter() - started
        palace.close()
    return {"sample_id": sample["sample_id"], "drawers": report.drawers_total, "index_s": index_s,
            "search_s": search_s, "questions": rows}


def recall(evidence: list[int], ranked: list[int], k: int) -> float:
    if not evidence:
        return 1.0
    return len(set(evidence) & set(ranked[:k])) / len(evidence)


def summarise(results: list[dict]) -> dict:
    per_cat: dict[str, list[tuple[float, float]]] = defaultdict(list)
    allq = []
    for conv in results:
        for q in conv["questions"]:
            pair = (recall(q["evidence"], q["ranked"], 5), recall(q["evidence"], q["ranked"], 10))
            allq.append(pair)
            per_cat[CATEGORY.get(q["category"], str(q["category"]))].append(pair)
    def mean(xs: list[tuple[float, float]], i: int) -> float:
        return round(100 * sum(x[i] for x in xs) / len(xs), 2) if xs else 0.0
    return {
        "questions": len(allq),
        "R@5": mean(allq, 0),
        "R@10": mean(allq, 1),
        "per_category": {c: {"n": len(v), "R@5": mean(v, 0), "R@10": mean(v, 1)} for c, v in sorted(per_cat.items())},
        "drawers": sum(c["drawers"] for c in results),
        "index_seconds": round(sum(c["index_s"] for c in results), 1),
        "search_ms_per_question": round(1000 * sum(c["search_s"] for c in results) / max(len(allq), 1), 1),
        "model_fallbacks": sum(1 for c in results for q in c["questions"] if q.get("fallback")),
    }


def paired_delta(base: list[dict], other: list[dict], k: int) -> tuple[float, float]:
    """Mean change in recall@k per question, other minus base, with the half-width of its 95 % interval:
    a difference inside the interval is noise."""
    diffs = [100 * (recall(o["evidence"], o["ranked"], k) - recall(b["evidence"], b["ranked"], k))
             for b, o in zip(base, other, strict=True)]
    mean = sum(diffs) / len(diffs)
    var = sum((d - mean) ** 2 for d in diffs) / max(len(diffs) - 1, 1)
    return mean, 1.96 * (var / len(diffs)) ** 0.5


def summary_table(summaries: dict[str, dict]) -> str:
    """Markdown: R@5 / R@10 overall and per category, one column per split."""
    splits = list(summaries)
    cats = sorted({c for s in summaries.values() for c in s["per_category"]})
    lines = ["| category | " + " | ".join(f"{sp} R@5 | {sp} R@10" for sp in splits) + " |",
             "|---|" + "---|---|" * len(splits)]
    for cat in ["all", *cats]:
        cells = []
        for sp in splits:
            row = summaries[sp] if cat == "all" else summaries[sp]["per_category"].get(cat, {})
            n = row.get("questions", row.get("n", 0))
            cells.append(f"{row.get('R@5', 0):.2f} | {row.get('R@10', 0):.2f}")
        lines.append(f"| {cat} (n={n}) | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def compare(data: list[dict], results: dict[str, dict], other: Path, splits: list[str]) -> str:
    """Per split: this run minus the run cached in `other`, on the same questions."""
    lines = [f"change against {other.name} (95 % interval):"]
    for split in splits:
        ids = [s["sample_id"] for s in split_of(data, split) if s["sample_id"] in results]
        if not all((other / f"{i}.json").is_file() for i in ids):
            lines.append(f"  {split}: {other.name} lacks some of these conversations")
            continue
        mine = [q for i in ids for q in results[i]["questions"]]
        theirs = [q for i in ids for q in json.loads((other / f"{i}.json").read_text())["questions"]]
        cells = [f"R@{k} {m:+.2f} ± {h:.2f}" for k in (5, 10) for m, h in [paired_delta(theirs, mine, k)]]
        lines.append(f"  {split}: " + ", ".join(cells))
    return "\n".join(lines) + "\n"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA, required=DATA is None, help="locomo10.json (or LOCOMO_DATA)")
    parser.add_argument("--provider", default="use", choices=["use", "e5", "static"])
    parser.add_argument("--chunk-tokens", type=int, default=None)
    parser.add_argument("--split", default="all", choices=["dev", "test", "all"],
                        help="dev: first 5 conversations, test: last 5 (choose methods on dev only)")
    parser.add_argument("--fusion", default="calibrated", choices=FUSIONS, help="[palace] fusion")
    parser.add_argument("--rrf-k", type=int, default=60, help="[palace] rrf_k")
    parser.add_argument("--aggregate", default="max", choices=sorted(AGGREGATES),
                        help="how drawer scores become a file's score")
    parser.add_argument("--packing", default="greedy", choices=["greedy", "windows"],
                        help="windows: a drawer starts at every turn (a variant of the chunker's packing)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N conversations of the split")
    parser.add_argument("--ranking", default="fused", choices=["fused", "dense", "bm25"],
                        help="dense or bm25: one retriever alone, for comparison")
    parser.add_argument("--questions", type=int, default=None, help="only the first N questions of each conversation")
    parser.add_argument("--tag", default=None, help="name of this run's cache folder under bench/out/")
    parser.add_argument("--dates", action="store_true",
                        help="start each transcript with its session date (not the published protocol)")
    parser.add_argument("--fresh", action="store_true", help="ignore cached conversations")
    parser.add_argument("--rerank", action="store_true", help="the model reorders the fused top 30")
    parser.add_argument("--rewrite", action="store_true", help="the model's rewrite of the question is searched too")
    parser.add_argument("--base-url", default=os.environ.get("WIKIC_LLM_BASE_URL"), help="--rerank/--rewrite endpoint")
    parser.add_argument("--model", default=os.environ.get("WIKIC_LLM_MODEL"), help="--rerank/--rewrite model")
    parser.add_argument("--candidates", type=int, default=30, help="--rerank: how many fused hits the model sees")
    parser.add_argument("--token-budget", type=int, default=8000, help="model tokens one question may spend")
    parser.add_argument("--llm-timeout", type=float, default=120.0, help="seconds the endpoint may stay silent")
    parser.add_argument("--compare", default=None, metavar="TAG",
                        help="also print the paired change against an earlier run's cache folder, per split")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    if not args.data.is_file():
        sys.exit(f"LoCoMo data not found at {args.data}; pass --data PATH/locomo10.json")
    data = json.loads(args.data.read_text(encoding="utf-8"))
    method = Method(args.provider, args.chunk_tokens, args.fusion, args.rrf_k, args.aggregate, args.packing)
    tag = args.tag or method.tag() + ("-dates" if args.dates else "")
    tag += f"-q{args.questions}" if args.questions and not args.tag else ""
    tag = f"{args.provider}-{args.ranking}-only" if args.ranking != "fused" and not args.tag else tag
    helper = None
    if args.rerank or args.rewrite:
        if not (args.base_url and args.model):
            sys.exit("--rerank and --rewrite need --base-url and --model (or WIKIC_LLM_BASE_URL, WIKIC_LLM_MODEL)")
        key = os.environ.get("WIKIC_LLM_API_KEY")
        llm = OpenAICompatible(LLMSettings(base_url=args.base_url, model=args.model, timeout=args.llm_timeout,
                                           max_retries=1, api_key=SecretStr(key) if key else None))
        tag = args.tag or tag + ("-rewrite" if args.rewrite else "") + ("-rerank" if args.rerank else "") + \
            "-" + "".join(c if c.isalnum() or c in "._-" else "_" for c in args.model)
        assist = Assist(rerank=args.rerank, rewrite=args.rewrite, candidates=args.candidates,
                        token_budget=args.token_budget)
        helper = Helper(assist, llm, ReplyCache(REPO / "bench" / "out" / "locomo" / tag / "llm-cache"))
    cache = REPO / "bench" / "out" / "locomo" / tag
    cache.mkdir(parents=True, exist_ok=True)
    results = {}
    for sample in split_of(data, args.split)[: args.limit]:
        out = cache / f"{sample['sample_id']}.json"
        if out.is_file() and not args.fresh:
            results[sample["sample_id"]] = json.loads(out.read_text())
            continue
        res = run_conversation(sample, method, args.dates, helper, args.questions, args.ranking)
        out.write_text(json.dumps(res))
        results[sample["sample_id"]] = res
        part = summarise([res])
        print(f"{sample['sample_id']}: R@5 {part['R@5']} R@10 {part['R@10']} "
              f"({res['drawers']} drawers, index {res['index_s']:.1f}s, search {res['search_s']:.1f}s)", flush=True)
    summaries = {}
    for split in ("dev", "test", "all"):
        ids = [s["sample_id"] for s in split_of(data, split)]
        if all(i in results for i in ids) or split == args.split:
            summaries[split] = summarise([results[i] for i in ids if i in results])
    summary = {"run": tag, "method": dataclasses.asdict(method), "dates": args.dates,
               "assist": dataclasses.asdict(helper.assist) if helper else None, **summaries}
    (cache / "summary.json").write_text(json.dumps(summary, indent=2))
    table = f"{tag}\n\n{summary_table(summaries)}"
    if args.compare:
        table += "\n" + compare(data, results, REPO / "bench" / "out" / "locomo" / args.compare, list(summaries))
    (cache / "summary.md").write_text(table)
    print(table)


if __name__ == "__main__":
    main()
