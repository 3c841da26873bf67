"""Memory benchmarks: what bringing conversations into a vault costs. One function per measurement, each
returning a dict of numbers, so more measurements (the session-start briefing) sit beside them.

    python bench/memory_bench.py                           # every measurement
    python bench/memory_bench.py --only capture --runs 30
    python bench/memory_bench.py --only export --export-mb 200 --subset 20
    python bench/memory_bench.py --json out.json --keep /tmp/mem-bench
    python bench/memory_bench.py --only wake_up --reps 9 [--vault DIR]
    python bench/memory_bench.py --only merge

capture  `wikic capture` as an assistant's hook runs it: the console entry point in a new process, a hook
         payload on stdin, on a generated 10,000-page vault (bench/gen_vault.py). Before each run the
         session file grows by one exchange, so every run copies new lines (after one untimed run that writes
         the bytecode cache, as an installed wikic has it). Reports the wall time of each
         whole process (p50, p95, max; target p95 <= 300 ms), the child's peak RSS, and the same Python
         doing nothing (`-c pass`, run between the captures): on a loaded machine, what any process pays.
export   a generated ChatGPT export (`conversations.json`, ~200 MB, thousands of conversations) brought in
         by a child process: every conversation into its transcript, the export kept once (capture only,
         no model; `wikic.conversations.intake.bring_in`); time and peak RSS, which must stay bounded
         whatever the export's size (it streams). Then the total, `wikic ingest` of the first `--subset`
         conversations as an export of their own with a scripted model (tests' FakeLLM, no network):
         transcripts written and compiled, time and peak RSS.
wake_up  `wikic wake-up`'s briefing on a generated 10,000-page vault with memories added the way the
         compiler writes them (`memory_wake_up.py`): cold (no derived index) and warm, wall and CPU time,
         in-process; target warm <= 0.5 s.
merge    20 memories joining a user's page of 500, 2,000 and 5,000 items (`memory_blocks`, duplicates judged
         by the packaged USE model), CPU seconds, in-process: in a run with no vectors kept (`first`), and in
         a run after one that kept the page's vectors under `.wikic/cache/` (`kept`).

Every child's peak RSS comes from `os.wait4` (resource usage of that child alone). Run it with the Python
of the venv where wikic is installed; the machine's load average is printed with the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))  # memory_wake_up beside this script
sys.path.insert(0, str(REPO / "tests"))  # the tests' scripted model (fake_llm.FakeLLM)
WORDS = ("vector store memory palace session transcript embedding query page link anchor claim source model "
         "python project deploy release branch review test build cache index graph lint note wiki").split()


def run_child(args: list[str], *, stdin: bytes = b"", env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run a process to its end: wall seconds, peak RSS in MB (of that child alone), exit code, stderr."""
    environment = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1", **(env or {})}
    # as installed: bytecode is cached (pip compiles it); an environment that forbids it would time the compiler
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    process = subprocess.Popen(
        args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=environment
    )
    assert process.stdin is not None and process.stderr is not None
    process.stdin.write(stdin)
    process.stdin.close()
    err = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return {"seconds": seconds, "rss_mb": usage.ru_maxrss / 1024, "code": process.returncode, "stderr": err.decode()}


def wikic_command() -> list[str]:
    """The `wikic` console script beside this Python (what a hook runs), else the same entry point via -c."""
    script = Path(sys.executable).with_name("wikic")
    return [str(script)] if script.exists() else [sys.executable, "-c", "from wikic.cli import main; main()"]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


# -- capture -------------------------------------------------------------------------------------------


def exchange(session: str, n: int) -> bytes:
    """One user line and one assistant line of a Claude Code session."""
    stamp = f"2026-11-30T{10 + n // 3600 % 10:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
    lines = [
        {
            "type": "user",
            "sessionId": session,
            "cwd": "/home/u/p",
            "uuid": f"u{n}",
            "timestamp": stamp,
            "message": {"role": "user", "content": f"Question {n}: " + " ".join(random.choices(WORDS, k=30))},
        },
        {
            "type": "assistant",
            "sessionId": session,
            "cwd": "/home/u/p",
            "uuid": f"a{n}",
            "timestamp": stamp,
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": " ".join(random.choices(WORDS, k=120))},
                    {"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {"command": "ls"}},
                ],
            },
        },
    ]
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def capture_p95(workdir: Path, *, runs: int = 25, pages: int = 10_000) -> dict[str, Any]:
    vault = workdir / "vault-10k"
    if not (vault / "SCHEMA.md").exists():
        subprocess.run([sys.executable, str(REPO / "bench" / "gen_vault.py"), str(vault), "--pages", str(pages),
                        "--seed", "1", "--quiet", "--force"], check=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    home = workdir / "home"
    folder = home / ".claude" / "projects" / "bench"
    folder.mkdir(parents=True, exist_ok=True)
    session = folder / "session.jsonl"
    session.write_bytes(b"".join(exchange("bench-session", n) for n in range(200)))  # a session well under way
    payload = json.dumps({"session_id": "bench-session", "transcript_path": str(session), "cwd": "/home/u/p",
                          "hook_event_name": "Stop", "stop_hook_active": False}).encode()
    command = [*wikic_command(), "capture", "--vault", str(vault), "--tool", "claude-code"]
    run_child(command, stdin=payload, env={"HOME": str(home)})  # warm-up: the first run writes the bytecode cache
    times, rss, bare = [], [], []
    for n in range(runs):
        with open(session, "ab") as fh:
            fh.write(exchange("bench-session", 300 + n))
        result = run_child(command, stdin=payload, env={"HOME": str(home)})
        if result["code"] != 0 or result["stderr"]:
            raise SystemExit(f"capture failed: {result}")
        times.append(result["seconds"])
        rss.append(result["rss_mb"])
        # the same interpreter doing nothing, run between captures: what the machine's load costs any process
        bare.append(run_child([sys.executable, "-c", "pass"])["seconds"])
    queued = sorted((vault / ".wikic" / "capture" / "queue").glob("*.jsonl"))  # the warm-up's included
    return {
        "runs": runs,
        "pages": pages,
        "p50_ms": round(statistics.median(times) * 1000, 1),
        "p95_ms": round(percentile(times, 0.95) * 1000, 1),
        "max_ms": round(max(times) * 1000, 1),
        "peak_rss_mb": round(max(rss), 1),
        "queued_files": len(queued),
        "target_p95_ms": 300,
        "python_alone_p50_ms": round(statistics.median(bare) * 1000, 1),
        "python_alone_p95_ms": round(percentile(bare, 0.95) * 1000, 1),
    }


# -- a large ChatGPT export ----------------------------------------------------------------------------


def chatgpt_conversation(i: int, messages: int, words: int) -> dict[str, Any]:
    mapping: dict[str, Any] = {"root": {"id": "root", "message": None, "parent": None, "children": ["m0"]}}
    for m in range(messages):
        role = "user" if m % 2 == 0 else "assistant"
        mapping[f"m{m}"] = {
            "id": f"m{m}",
            "parent": "root" if m == 0 else f"m{m - 1}",
            "children": [f"m{m + 1}"] if m + 1 < messages else [],
            "message": {
                "id": f"m{m}",
                "author": {"role": role},
                "create_time": 1796000000.0 + i * 600 + m,
                "recipient": "all",
                "metadata": {},
                "content": {"content_type": "text", "parts": [" ".join(random.choices(WORDS, k=words))]},
            },
        }
    return {
        "id": f"conv-{i:06d}",
        "conversation_id": f"conv-{i:06d}",
        "title": f"Conversation {i} about {random.choice(WORDS)}",
        "create_time": 1796000000.0 + i * 600,
        "current_node": f"m{messages - 1}",
        "mapping": mapping,
    }


def write_export(path: Path, megabytes: float, *, messages: int = 24, words: int = 600) -> int:
    """A conversations.json of about `megabytes` MB, written one conversation at a time; its count."""
    count = 0
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("[")
        while fh.tell() < megabytes * 1_000_000:
            fh.write(("," if count else "") + json.dumps(chatgpt_conversation(count, messages, words)))
            count += 1
        fh.write("]")
    return count


BRING_IN = textwrap.dedent("""
    import sys
    from pathlib import Path
    from wikic.context import VaultContext
    from wikic.conversations.detect import detect
    from wikic.conversations.intake import bring_in
    root, export = Path(sys.argv[1]), Path(sys.argv[2])
    intake = bring_in(root, [detect(export)])
    print(len(intake.transcripts), file=sys.stderr)
""")

INGEST_SUBSET = textwrap.dedent("""
    import sys
    from pathlib import Path
    from wikic.ingest.pipeline import IngestOptions, ingest
    from fake_llm import FakeLLM
    llm = FakeLLM().respond_with(lambda messages: {"summary": "A conversation.", "entities": [], "concepts": [],
                                                   "comparisons": [], "relations": []})
    report = ingest(VaultContext(Path(sys.argv[1])), IngestOptions(inputs=[sys.argv[2]], use_palace=False), llm=llm)
    compiled = sum(1 for s in report.sources if s.status == "compiled")
    print(f"{compiled} {len(llm.history)}", file=sys.stderr)
""")


def export_ingest(workdir: Path, *, megabytes: float = 200, subset: int = 20) -> dict[str, Any]:
    export = workdir / "conversations.json"
    started = time.perf_counter()
    count = write_export(export, megabytes)
    generated = time.perf_counter() - started
    size_mb = export.stat().st_size / 1_000_000
    vault = workdir / "vault-export"
    shutil.rmtree(vault, ignore_errors=True)
    subprocess.run([*wikic_command(), "init", str(vault)], check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "PYTHONPATH": str(REPO)})
    capture = run_child([sys.executable, "-c", BRING_IN, str(vault), str(export)])
    if capture["code"] != 0:
        raise SystemExit(f"bring_in failed: {capture['stderr']}")
    transcripts = int(capture["stderr"].split()[-1])
    again = run_child([sys.executable, "-c", BRING_IN, str(vault), str(export)])  # the same export: nothing to do

    small = workdir / "subset.json"
    with open(export, "rb") as fh:
        from wikic.conversations.jsonio import iter_array

        elements = []
        for element in iter_array(fh, str(export)):
            elements.append(element)
            if len(elements) >= subset:
                break
    small.write_text(json.dumps(elements))
    vault2 = workdir / "vault-subset"
    shutil.rmtree(vault2, ignore_errors=True)
    subprocess.run([*wikic_command(), "init", str(vault2)], check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "PYTHONPATH": str(REPO)})
    total = run_child(
        [sys.executable, "-c", INGEST_SUBSET, str(vault2), str(small)], env={"WIKIC_EMBEDDING_PROVIDER": "static"}
    )
    if total["code"] != 0:
        raise SystemExit(f"ingest failed: {total['stderr']}")
    compiled, calls = (int(x) for x in total["stderr"].split()[-2:])
    return {
        "export_mb": round(size_mb, 1),
        "conversations": count,
        "generated_s": round(generated, 1),
        "capture_s": round(capture["seconds"], 2),
        "capture_peak_rss_mb": round(capture["rss_mb"], 1),
        "transcripts": transcripts,
        "again_s": round(again["seconds"], 2),
        "again_peak_rss_mb": round(again["rss_mb"], 1),
        "subset": subset,
        "subset_total_s": round(total["seconds"], 2),
        "subset_peak_rss_mb": round(total["rss_mb"], 1),
        "subset_compiled": compiled,
        "subset_model_calls": calls,
    }


def wake_up_time(workdir: Path, *, pages: int = 10_000, reps: int = 7, vault: Path | None = None) -> dict[str, Any]:
    """`wikic wake-up`'s briefing on a generated vault with memories (or on `vault`), cold and warm."""
    from memory_wake_up import add_memories, measure_wake_up

    root = vault or workdir / "wake-up-vault"
    if vault is None and not root.exists():
        subprocess.run([sys.executable, str(HERE / "gen_vault.py"), str(root), "--pages", str(pages), "--quiet"],
                       check=True)
    added = add_memories(root) if not (root / "identity.md").exists() else 0
    return {"memories_added": added, **measure_wake_up(root, reps)}


def merge_time(workdir: Path, *, sizes: tuple[int, ...] = (500, 2_000, 5_000), joining: int = 20,
               reps: int = 3) -> dict[str, Any]:
    """`joining` memories merged into a user's page that holds N items already (`memory_blocks`, as a compile
    calls it), with the packaged USE model judging duplicates: CPU seconds, median of `reps`, a new
    Deduplicator each time (a run's own): with no vectors kept, then with those an earlier run kept."""
    import datetime as dt

    from wikic.memory.merge import Deduplicator, memory_blocks, packaged_embedder, packaged_vectors
    from wikic.pages.blocks import digest
    from wikic.vault.formats.markers import begin_line, end_line
    from wikic.vault.formats.memory_items import MemoryItem, block_key, render_items
    from wikic.vault.init import init_vault

    rng = random.Random(3)
    embed = packaged_embedder()
    if embed is None:
        raise SystemExit("merge: the packaged embedding model cannot be loaded")
    out: dict[str, Any] = {"joining": joining}
    key = block_key("persona")
    for size in sizes:
        items = [MemoryItem("persona", dt.date(2025, 1, 1) + dt.timedelta(days=i % 300),
                            f"The user {' '.join(rng.choice(WORDS) for _ in range(6))} ({i}).",
                            (f"raw/transcripts/s{i}.md:L3",)) for i in range(size)]
        body = render_items(items, lambda anchor: f"^[{anchor}]")
        page = f"# User\n\n{begin_line(key, digest(body))}\n{body}\n{end_line(key)}\n"
        new = [["persona", f"The user {' '.join(rng.choice(WORDS) for _ in range(5))} now.",
                f"raw/transcripts/new.md:L{k + 1}", 0.5, "2025-12-01"] for k in range(joining)]
        vault = workdir / f"merge-{size}"
        init_vault(vault)
        for label, kept in (("first", None), ("kept", packaged_vectors(vault))):
            if kept is not None:  # an earlier run left the page's vectors
                Deduplicator(lambda: embed, kept).best(new[0][1], [item.plain for item in items])
                kept.save()
            times = []
            for _ in range(reps):
                started = time.process_time()
                fresh = None if kept is None else packaged_vectors(vault)  # a run's own
                dedup = Deduplicator(lambda: embed, fresh)
                memory_blocks(page, new, lambda text: text, lambda anchor: f"^[{anchor}]", dedup)
                times.append(time.process_time() - started)
            out[f"items_{size}_{label}_s"] = round(statistics.median(times), 3)
    return out


MEASUREMENTS = {"capture": capture_p95, "export": export_ingest, "wake_up": wake_up_time, "merge": merge_time}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", choices=sorted(MEASUREMENTS), action="append", help="run only these measurements")
    ap.add_argument("--runs", type=int, default=25, help="capture: processes timed (at least 20)")
    ap.add_argument("--pages", type=int, default=10_000, help="capture: pages of the generated vault")
    ap.add_argument("--export-mb", type=float, default=200, help="export: size of the generated export")
    ap.add_argument("--subset", type=int, default=20, help="export: conversations compiled with the scripted model")
    ap.add_argument("--reps", type=int, default=7, help="wake_up: warm repetitions")
    ap.add_argument("--vault", type=Path, help="wake_up: an existing vault (memories are added to it once)")
    ap.add_argument("--keep", type=Path, help="work in this folder and keep it (default: a temporary one, removed)")
    ap.add_argument("--json", type=Path, help="also write the results here")
    args = ap.parse_args(argv)
    random.seed(1)
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="wikic-memory-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    options = {
        "capture": {"runs": args.runs, "pages": args.pages},
        "export": {"megabytes": args.export_mb, "subset": args.subset},
        "wake_up": {"pages": args.pages, "reps": args.reps, "vault": args.vault},
        "merge": {"reps": min(args.reps, 3)},
    }
    results: dict[str, Any] = {"load_average": os.getloadavg(), "cpus": os.cpu_count()}
    try:
        for name in args.only or list(MEASUREMENTS):
            results[name] = MEASUREMENTS[name](workdir, **options[name])
            print(f"{name}: {json.dumps(results[name])}", flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    print(f"load average {results['load_average']}, {results['cpus']} CPUs")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
