"""Review before write: what keeping a run as a proposal costs against writing it, and what accepting costs.

    python bench/review_bench.py                 # 3 repetitions, medians
    python bench/review_bench.py --reps 5 --pad 5000 --json out.json

The model is a scripted one in the process (no latency): what is timed is wikic's own work, which is all the
review path adds. A base vault is built once: `--base` sources compiled into pages (five subjects each), and
`--pad` plain notes beside them (a vault people keep notes in). Then, on fresh copies of it, one after the
other in each repetition:

- direct: `ingest` of `--new` new sources (five new subjects each: with the defaults, 100 new pages), written;
- review: the same run as `ingest --review` (made in a shadow of the vault, kept as a proposal);
- accept: `review accept` of that proposal (the whole of it, through one journal);

and the proposal's size on disk against the bytes the direct run wrote. Targets: review within 1.10x of
direct; accept of the 100-page proposal under 2 s. Medians are reported with the ratio measured in the same
repetition (the machine is shared: compare ratios, not seconds), with the load average.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ[_var] = "1"
for _var in ("WIKIC_LLM_BASE_URL", "WIKIC_LLM_MODEL", "WIKIC_LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
    os.environ.pop(_var, None)

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))  # the scripted model the tests use

from fake_llm import FakeLLM  # noqa: E402 - after the path entry above

from wikic.context import VaultContext  # noqa: E402
from wikic.ingest.pipeline import IngestOptions, ingest  # noqa: E402
from wikic.review.accept import accept  # noqa: E402
from wikic.review.propose import propose_ingest  # noqa: E402
from wikic.vault.init import init_vault  # noqa: E402

TODAY = dt.date(2026, 12, 6)
KINDS = ("sensor", "valve", "pump", "relay", "gauge")


def source_text(k: int) -> str:
    lines = [f"# Plant note {k}", ""]
    for j, kind in enumerate(KINDS):
        lines += [f"Unit {k}-{j} is a {kind} made by Corvel Works in {2000 + k % 20}.",
                  f"Unit {k}-{j} is serviced every {3 + j} months.", ""]
    return "\n".join(lines)


def plan_for(messages: list[dict[str, str]]) -> dict[str, Any]:
    text = str(messages[-1]["content"])
    marker = "# Plant note "
    at = text.find(marker)
    if at < 0:
        return {"summary": "nothing", "entities": [], "concepts": [], "comparisons": [], "relations": []}
    k = int(text[at + len(marker):].split("\n", 1)[0].strip())
    entities = []
    for j, kind in enumerate(KINDS):
        made = f"Unit {k}-{j} is a {kind} made by Corvel Works in {2000 + k % 20}."
        serviced = f"Unit {k}-{j} is serviced every {3 + j} months."
        entities.append({"name": f"Unit {k}-{j}", "kind": "product", "aliases": [], "summary": made,
                         "facts": [{"text": made, "quote": made}, {"text": serviced, "quote": serviced}]})
    return {"summary": f"Plant note {k}", "entities": entities, "concepts": [], "comparisons": [], "relations": []}


def model() -> FakeLLM:
    return FakeLLM().respond_with(plan_for)


def write_sources(folder: Path, first: int, n: int) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for k in range(first, first + n):
        path = folder / f"plant-note-{k}.md"
        path.write_text(source_text(k), encoding="utf-8")
        out.append(str(path))
    return out


def build_base(root: Path, inbox: Path, base: int, pad: int) -> list[str]:
    init_vault(root)
    schema = root / "SCHEMA.md"
    schema.write_text(schema.read_text(encoding="utf-8").replace("entity_min_references: 2",
                                                                 "entity_min_references: 1"), encoding="utf-8")
    ingest(root, options(write_sources(inbox / "base", 0, base)), llm=model())
    notes = root / "inbox" / "pad"
    notes.mkdir(parents=True, exist_ok=True)
    for i in range(pad):
        (notes / f"note-{i}.md").write_text(f"# Note {i}\n\nA plain note of the vault, number {i}.\n",
                                            encoding="utf-8")
    return []


def options(inputs: list[str]) -> IngestOptions:
    return IngestOptions(inputs=inputs, use_palace=False, compose=False, lint_after=False, today=TODAY)


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def one_rep(base: Path, work: Path, new: list[str]) -> dict[str, float]:
    direct, reviewed = work / "direct", work / "reviewed"
    for target in (direct, reviewed):
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(base, target)
    before = {p: p.stat().st_size for p in direct.rglob("*.md")}
    started = time.perf_counter()
    ingest(direct, options(new), llm=model())
    direct_s = time.perf_counter() - started
    written = sum(p.stat().st_size for p in direct.rglob("*.md") if before.get(p) != p.stat().st_size)

    context = VaultContext(reviewed, llm=model())
    started = time.perf_counter()
    made = propose_ingest(context, options(new))
    review_s = time.perf_counter() - started
    assert made.proposal is not None
    proposal_bytes = folder_bytes(reviewed / ".wikic" / "proposals" / made.proposal.id)
    pages = len(made.proposal.pages_created)
    started = time.perf_counter()
    done = accept(context, made.proposal.id)
    accept_s = time.perf_counter() - started
    assert done.closed
    return {"direct_s": direct_s, "review_s": review_s, "ratio": review_s / direct_s, "accept_s": accept_s,
            "pages": pages, "proposal_bytes": proposal_bytes, "direct_written_bytes": written}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=int, default=40, help="sources in the base vault (5 pages each)")
    parser.add_argument("--new", type=int, default=20, help="new sources a run compiles (5 pages each)")
    parser.add_argument("--pad", type=int, default=2000, help="plain notes in the base vault")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--json", type=Path, help="write the numbers here too")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="wikic-review-bench-") as tmp:
        work = Path(tmp)
        base = work / "base"
        build_base(base, work / "inbox", args.base, args.pad)
        new = write_sources(work / "inbox" / "new", args.base, args.new)
        files = sum(1 for p in base.rglob("*") if p.is_file())
        reps = [one_rep(base, work, new) for _ in range(args.reps)]
    med = {key: statistics.median(r[key] for r in reps) for key in reps[0]}
    out = {"base_files": files, "new_sources": args.new, "reps": reps, "median": med,
           "load_average": os.getloadavg()}
    print(f"base vault: {files:,} files; a run of {args.new} new sources makes {int(med['pages'])} pages")
    print(f"direct ingest  {med['direct_s']:.3f} s (median of {args.reps})")
    print(f"ingest --review {med['review_s']:.3f} s: {med['ratio']:.2f}x the direct run in the same repetition "
          "(target: at most 1.10x)")
    print(f"review accept  {med['accept_s']:.3f} s for {int(med['pages'])} new pages (target: under 2 s)")
    print(f"proposal on disk {med['proposal_bytes'] / 1024:.0f} KiB; the direct run wrote "
          f"{med['direct_written_bytes'] / 1024:.0f} KiB of notes")
    print(f"load average {out['load_average'][0]:.2f}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
