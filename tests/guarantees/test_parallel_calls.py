"""Parallel model calls: a fresh `wikic ingest -j 8` compiles every source, run after run, and its worker
threads import nothing. Whatever they need is imported by the thread that starts them: workers importing a
module while others used it saw it half-initialised (the OpenAI SDK looks `httpx` up in `sys.modules` as it
builds each request), and the sources they were extracting failed.

Each run is a new process, so nothing is imported yet when the workers start.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import gkit
from standin_openai import StandinServer

RUNS = gkit.count(12, 40)
SOURCES = 16

# `wikic`, reporting on its last stderr line every module first imported on one of its worker threads.
WATCHED_WIKIC = r"""
import atexit, json, sys, threading

on_workers = []


class Watch:
    @staticmethod
    def find_spec(name, path=None, target=None):
        # asked only for a module not imported yet: the workers are named wikic-ingest-N, wikic-extract-N
        if threading.current_thread().name.startswith("wikic-"):
            on_workers.append(name)
        return None


sys.meta_path.insert(0, Watch)
atexit.register(lambda: print("imported on workers:", json.dumps(on_workers), file=sys.stderr))
sys.argv[0] = "wikic"
from wikic.cli import main

main()
"""


def _fresh_ingest(folder: Path, server: StandinServer, *extra: str) -> tuple[dict[str, Any], list[str]]:
    """(the --json report, the modules imported on worker threads) of one new `wikic ingest -j 8` process."""
    root = gkit.make_vault(folder / "wiki", server.base_url)
    sources = gkit.sources(folder / "inbox", SOURCES, tag=folder.name)
    done = subprocess.run(
        [sys.executable, "-c", WATCHED_WIKIC, "ingest", *sources, "--vault", str(root), "-j", "8", "--json", *extra],
        capture_output=True, text=True, timeout=240, check=False, env=gkit.env(),
    )
    assert done.returncode in (0, 1), done.stderr[-3000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("imported on workers: "), done.stderr[-3000:]
    return json.loads(done.stdout), json.loads(last.removeprefix("imported on workers: "))


def test_a_fresh_ingest_at_j8_compiles_every_source_run_after_run(tmp_path: Path, standin: StandinServer) -> None:
    failed = []
    for run in range(RUNS):
        report, _ = _fresh_ingest(tmp_path / f"r{run}x", standin, "--no-palace")
        failed += [f"run {run}: {s['raw_path']}: {s['error']}" for s in report["sources"] if s["status"] != "compiled"]
        assert len(report["sources"]) == SOURCES
    assert failed == [], f"{len(failed)} of {RUNS * SOURCES} sources failed:\n" + "\n".join(failed[:10])


def test_the_worker_threads_of_an_ingest_import_nothing(tmp_path: Path, standin: StandinServer) -> None:
    """The whole ingest (extraction, early compiles, the palace and lint after): whatever a worker needs is
    there before it starts, so no race between workers importing it can happen."""
    report, on_workers = _fresh_ingest(tmp_path / "w", standin)
    assert {s["status"] for s in report["sources"]} == {"compiled"}
    assert on_workers == []
