"""Hook install benchmark: what the published pre-commit hook costs to install, with the real
`pre-commit`.

    python bench/hook_install.py                  # the hook of HEAD: 3 installs from a warm pip cache, medians
    python bench/hook_install.py --runs 5 --json out.json
    python bench/hook_install.py --peer REF       # also install the hook of commit REF, in the same run

Run it with the Python of the venv where wikic's dev extra is installed (it brings `pre-commit`). For each
commit measured, the repository is cloned (a git clone, as pre-commit clones a hook repository), and a
throwaway git repository holding a copy of the example vault gets a `.pre-commit-config.yaml` naming that
clone, the commit and the `wikic-lint` hook. Each run uses an empty PRE_COMMIT_HOME, so
`pre-commit install-hooks` builds the hook's virtualenv from nothing (pip's own cache is kept: the first run
warms it and is not counted). Reported: the install's wall time, the size of the hook's environment (all of
it, and without the pip/setuptools/wheel that virtualenv seeds into every environment), and that
`pre-commit run --all-files` then passes on the example vault.

Targets: at most 30 s from a warm pip cache, at most 60 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 30.0
TARGET_MB = 60.0
SEEDED = ("pip", "setuptools", "wheel", "_distutils_hack", "distutils-precedence.pth")
CONFIG = """repos:
  - repo: {repo}
    rev: {rev}
    hooks:
      - id: wikic-lint
        args: [--strict, --as-of, "2026-11-29"]
"""


def _git(*args: str, cwd: Path) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@wikic.invalid",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@wikic.invalid")
    done = subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args], cwd=cwd,
                          env=env, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def _size(path: Path, skip: tuple[str, ...] = ()) -> int:
    total = 0
    for dirpath, dirnames, filenames in os.walk(path):
        here = Path(dirpath)
        if here.name == "site-packages":
            dirnames[:] = [d for d in dirnames if not d.startswith(skip)]
            filenames = [f for f in filenames if not f.startswith(skip)]
        total += sum((here / f).lstat().st_size for f in filenames)
    return total


def hook_repo(ref: str, tmp: Path, label: str) -> tuple[Path, str]:
    """A clone of this repository, and the full SHA of `ref` in it."""
    clone = tmp / f"hook-repo-{label}"
    subprocess.run(["git", "clone", "--quiet", "--no-local", str(REPO), str(clone)], check=True)
    return clone, _git("rev-parse", ref, cwd=REPO)


def vault_repo(tmp: Path) -> Path:
    repo = tmp / "vault-repo"
    shutil.copytree(REPO / "example-vault", repo, ignore=shutil.ignore_patterns(".wikic"))
    (repo / ".gitignore").write_text(".wikic/\n", encoding="utf-8")
    _git("init", "-q", cwd=repo)
    _git("add", "-A", cwd=repo)
    _git("commit", "-qm", "vault", cwd=repo)
    return repo


def install_once(repo: Path, clone: Path, rev: str, home: Path) -> dict[str, float | bool]:
    (repo / ".pre-commit-config.yaml").write_text(CONFIG.format(repo=clone.as_uri(), rev=rev), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WIKIC_", "PYTHONPATH"))}
    env["PRE_COMMIT_HOME"] = str(home)
    pre_commit = [sys.executable, "-m", "pre_commit"]
    started = time.perf_counter()
    subprocess.run([*pre_commit, "install-hooks"], cwd=repo, env=env, check=True, capture_output=True)
    seconds = time.perf_counter() - started
    envs = [p for p in home.glob("repo*/py_env-*") if p.is_dir()]
    assert len(envs) == 1, envs
    sizes = {"mb": _size(envs[0]) / 1e6, "mb_without_seeded": _size(envs[0], SEEDED) / 1e6}  # as installed
    ran = subprocess.run([*pre_commit, "run", "--all-files"], cwd=repo, env=env, capture_output=True, text=True)
    return {"seconds": seconds, **sizes, "lint_passed": ran.returncode == 0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3, help="timed installs per commit (default 3)")
    ap.add_argument("--ref", default="HEAD", help="the commit whose hook is measured (default HEAD)")
    ap.add_argument("--peer", metavar="REF", help="also measure the hook of this commit, in the same run")
    ap.add_argument("--json", metavar="FILE", type=Path, help="write the medians as JSON")
    args = ap.parse_args()

    results: dict[str, dict[str, float | bool]] = {}
    with tempfile.TemporaryDirectory(prefix="wikic-hook-") as tmp_name:
        tmp = Path(tmp_name)
        repo = vault_repo(tmp)
        refs = {args.ref: hook_repo(args.ref, tmp, "a")}
        if args.peer:
            refs[args.peer] = hook_repo(args.peer, tmp, "b")
        runs: dict[str, list[dict[str, float | bool]]] = {ref: [] for ref in refs}
        for ref, (clone, rev) in refs.items():  # warm pip's cache for both; not counted
            install_once(repo, clone, rev, tmp / f"warm-{len(runs[ref])}-{rev[:8]}")
        for n in range(args.runs):
            for ref, (clone, rev) in refs.items():
                runs[ref].append(install_once(repo, clone, rev, tmp / f"home-{n}-{rev[:8]}"))
        for ref, rows in runs.items():
            results[ref] = {
                "seconds": round(statistics.median(float(r["seconds"]) for r in rows), 2),
                "mb": round(statistics.median(float(r["mb"]) for r in rows), 1),
                "mb_without_seeded": round(statistics.median(float(r["mb_without_seeded"]) for r in rows), 1),
                "lint_passed": all(bool(r["lint_passed"]) for r in rows),
            }

    print(f"pre-commit install-hooks of wikic-lint, warm pip cache, median of {args.runs}; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'commit':<12}{'seconds':>10}{'MB':>10}{'MB w/o pip':>12}  lint on the example vault")
    for ref, r in results.items():
        print(f"{ref:<12}{r['seconds']:>10.2f}{r['mb']:>10.1f}{r['mb_without_seeded']:>12.1f}  "
              f"{'passed' if r['lint_passed'] else 'FAILED'}")
    head = results[args.ref]
    print(f"targets: <= {TARGET_SECONDS:.0f} s ({'met' if float(head['seconds']) <= TARGET_SECONDS else 'missed'}), "
          f"<= {TARGET_MB:.0f} MB ({'met' if float(head['mb']) <= TARGET_MB else 'missed'})")
    if args.json:
        args.json.write_text(json.dumps({"runs": args.runs, "results": results}, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
