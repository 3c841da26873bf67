"""Start-up benchmark: how long each command takes, as a whole process, before it prints.

    python bench/startup.py                          # every command, 10 runs each, medians
    python bench/startup.py --runs 20 --json out.json
    python bench/startup.py --peer REF               # also time the commit REF (e.g. main) in the same run

Run it with the Python of the venv where wikic and all its extras are installed. Each measurement is one
`python -c "from wikic.cli import main; main()" ARGS...` process, from its start to its exit, with the tree
under test first on PYTHONPATH; the runs of all commands (and of the peer) are interleaved, so a busy
machine slows them alike. The vault is the example vault copied to a temporary folder, with no model
configured and its palace indexed (static embedder), so `status` has a palace to describe and `query` and
`ingest` stop at their configuration error, as a newcomer's first run does.

Target: `--help`, `lint`, `status` and every configuration error within 0.5 s (median).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET = 0.5
ENV = {
    "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "RAYON_NUM_THREADS": "1",
    "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False",
    "WIKIC_EMBEDDING_PROVIDER": "static",
}
SECRETS = ("WIKIC_LLM_BASE_URL", "WIKIC_LLM_MODEL", "WIKIC_LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY")
RUN = "from wikic.cli import main; main()"
QUESTION = "What is retrieval-augmented generation?"  # the example vault answers it: retrieval finds pages


def commands(vault: Path, broken: Path, source: Path) -> dict[str, tuple[list[str], set[int]]]:
    """name -> (arguments, the exit codes it may end with)."""
    return {
        "--help": (["--help"], {0}),
        "lint": (["lint", str(vault)], {0, 1}),
        "status": (["status", "--vault", str(vault)], {0}),
        "query, no model configured": (["query", QUESTION, "--vault", str(vault)], {2}),
        "ingest, no model configured": (["ingest", str(source), "--vault", str(vault)], {2}),
        "lint, broken wikic.toml": (["lint", str(broken)], {2}),
    }


def make_vault(tmp: Path) -> tuple[Path, Path, Path]:
    vault = tmp / "vault"
    shutil.copytree(REPO / "example-vault", vault)
    (vault / "wikic.toml").write_text("# no model configured\n", encoding="utf-8")
    broken = tmp / "broken"
    shutil.copytree(REPO / "example-vault", broken)
    (broken / "wikic.toml").write_text("[palace]\nfussion = 'rrf'\n", encoding="utf-8")
    source = tmp / "note.md"
    source.write_text("# A note\n\nAda Lovelace wrote the first program in 1843.\n", encoding="utf-8")
    env = _env(REPO)
    subprocess.run([sys.executable, "-c", RUN, "index", "--vault", str(vault)], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, "-c", RUN, "lint", str(vault)], env=env, stdout=subprocess.DEVNULL)
    return vault, broken, source


def checkout(ref: str, into: Path) -> Path:
    """The tree of commit `ref`, unpacked (the repository is not touched)."""
    data = subprocess.run(["git", "-C", str(REPO), "archive", ref], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def _env(tree: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SECRETS}
    env.update(ENV)
    env["PYTHONPATH"] = str(tree)
    return env


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_once(args: list[str], tree: Path, codes: set[int]) -> tuple[float, float]:
    """(wall, CPU) seconds of one `wikic ARGS` process."""
    cpu, started = _cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RUN, *args], env=_env(tree), capture_output=True,
                          stdin=subprocess.DEVNULL, cwd=tree.parent)  # not the repository: `-c` imports from the cwd
    elapsed = time.perf_counter() - started
    if done.returncode not in codes:
        raise SystemExit(f"`wikic {' '.join(args)}` ({tree}) exited {done.returncode}:\n"
                         f"{done.stderr.decode(errors='replace')[-2000:]}")
    return elapsed, _cpu() - cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10, help="runs per command (default 10)")
    ap.add_argument("--peer", metavar="REF", help="a commit to time in the same run, e.g. the one before a change")
    ap.add_argument("--json", metavar="FILE", type=Path, help="write the medians as JSON")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="wikic-startup-") as tmp_name:
        tmp = Path(tmp_name)
        vault, broken, source = make_vault(tmp)
        trees = {"this tree": REPO}
        if args.peer:
            trees[args.peer] = checkout(args.peer, tmp / "peer")
        cmds = commands(vault, broken, source)
        floor: list[float] = []
        times: dict[tuple[str, str], list[tuple[float, float]]] = {(c, t): [] for c in cmds for t in trees}
        for _ in range(args.runs):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], env=_env(REPO), check=True)
            floor.append(time.perf_counter() - started)
            for name, (argv, codes) in cmds.items():
                for label, tree in trees.items():
                    times[(name, label)].append(time_once(argv, tree, codes))

    def median(name: str, label: str, which: int) -> float:
        return statistics.median(run[which] for run in times[(name, label)])

    labels = list(trees)
    print(f"median of {args.runs} runs, seconds, wall (CPU); python -c pass: {statistics.median(floor):.3f}; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'command':<30}" + "".join(f"{label:>18}" for label in labels)
          + ("        ratio" if len(labels) > 1 else "") + "   target (wall)")
    for name in cmds:
        cells = "".join(f"{median(name, label, 0):>10.3f} ({median(name, label, 1):.3f})" for label in labels)
        ratio = f"{median(name, labels[0], 0) / median(name, labels[1], 0):>13.2f}" if len(labels) > 1 else ""
        wall = median(name, labels[0], 0)
        mark = "ok" if wall <= TARGET else f"over by {wall - TARGET:.3f}"
        print(f"{name:<30}{cells}{ratio}   {mark}")
    if args.json:
        out = {f"{name} [{label}]": {"wall": round(median(name, label, 0), 3), "cpu": round(median(name, label, 1), 3)}
               for name in cmds for label in labels}
        args.json.write_text(json.dumps({"runs": args.runs, "python_floor": round(statistics.median(floor), 3),
                                         "load_average": os.getloadavg()[0], "medians": out}, indent=2) + "\n",
                             encoding="utf-8")

if __name__ == "__main__":
    main()
