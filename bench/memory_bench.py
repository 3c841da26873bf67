#!/usr/bin/env python3
"""Benchmark the assistant-memory commands on a synthetic 10,000-page vault.

    python bench/memory_bench.py                          # generate a vault, then run every measurement
    python bench/memory_bench.py --vault DIR --reps 7     # measure an existing vault (memories are added once)
    python bench/memory_bench.py --only wake_up

One function per measurement (`MEASUREMENTS`); each takes the vault and the repetitions and returns a
dict of figures. The vault is `gen_vault.py`'s wiki (10,000 pages, ~100,000 links) with memories added
the way the compiler writes them: a user's page with instructions and preferences, and a few hundred
project pages with decisions, each item anchored to a transcript in raw/transcripts/.

Targets: `wake_up` warm (an unchanged vault, its derived index in .wikic/) ≤ 0.5 s. Wall time is reported with
the CPU time of the process, which a busy machine disturbs less.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from wikic.conversations.transcript import Conversation, Turn, render  # noqa: E402
from wikic.pages.blocks import merge_blocks  # noqa: E402
from wikic.vault.anchors import render as render_anchor  # noqa: E402
from wikic.vault.memories import SECTIONS, MemoryItem, block_key, render_items  # noqa: E402
from wikic.vault.state import MEMORY_INDEX, state_path  # noqa: E402

PROJECTS = 300
DECISIONS = 6
USER_ITEMS = 40
AS_OF = dt.date(2026, 12, 1)


def add_memories(root: Path, seed: int = 1) -> int:
    """Memory blocks on the user's page and on PROJECTS entity pages; returns the items written."""
    rng = random.Random(seed)
    transcripts = root / "raw" / "transcripts"
    transcripts.mkdir(parents=True, exist_ok=True)
    sessions = []
    for n in range(60):
        when = dt.datetime(2026, 9, 1, 9, tzinfo=dt.UTC) + dt.timedelta(days=n)
        turns = tuple(
            Turn("user", f"Session {n}, point {k}: we settle detail {k} of the work.", when + dt.timedelta(minutes=k))
            for k in range(20)
        )
        (transcripts / f"session-{n}.md").write_text(
            render(Conversation(f"s{n}", "claude-code", f"Session {n}", turns)), encoding="utf-8"
        )
        sessions.append(f"raw/transcripts/session-{n}.md")
    entities = sorted(p for p in (root / "entities").rglob("*.md"))
    written = 0

    def anchor() -> str:
        return f"{rng.choice(sessions)}:L{9 + 3 * rng.randrange(20)}"

    def day() -> dt.date:
        return AS_OF - dt.timedelta(days=rng.randrange(120))

    user = root / "entities" / "me.md"
    user.write_text("---\ntitle: Me\ncreated: 2026-09-01\nupdated: 2026-11-30\ntype: entity\ntags: []\nsources: []\n"
                    "summary: Who the user is.\n---\n# Me\n", encoding="utf-8")
    pages = [(user, {"instruction": USER_ITEMS // 2, "persona": USER_ITEMS // 2})]
    pages += [(page, {"episodic": DECISIONS, "lesson": 1}) for page in rng.sample(entities, PROJECTS)]
    for page, kinds in pages:
        text = page.read_text(encoding="utf-8", errors="replace")
        blocks = []
        for kind, count in kinds.items():
            items = sorted(
                (
                    MemoryItem(
                        kind,
                        day(),
                        (
                            f"{kind} memory {k} about {page.stem}: keep the "
                            f"{rng.choice(['cache', 'schema', 'build', 'index'])} simple."
                        ),
                        (anchor(),),
                        round(rng.random(), 2),
                    )
                    for k in range(count)
                ),
                key=lambda i: i.date,
            )
            blocks.append((block_key(kind), render_items(items, render_anchor), SECTIONS[kind]))
            written += count
        page.write_text(merge_blocks(text, blocks).text, encoding="utf-8")
    (root / "identity.md").write_text("---\nname: Me\n---\n# Identity\n\nI am a backend engineer.\n", encoding="utf-8")
    return written


def _timed(fn: Callable[[], Any], reps: int, clock: Callable[[], float] = time.perf_counter) -> list[float]:
    out = []
    for _ in range(reps):
        start = clock()
        fn()
        out.append(clock() - start)
    return out


def measure_wake_up(root: Path, reps: int) -> dict[str, Any]:
    """`wake_up` cold (no derived index: every page read once) and warm (an unchanged vault), in-process."""
    from wikic.memory.briefing import wake_up

    index = state_path(root, MEMORY_INDEX)
    cold = []
    for _ in range(max(1, reps // 2)):
        index.unlink(missing_ok=True)
        cold += _timed(lambda: wake_up(root, as_of=AS_OF), 1)
    warm = _timed(lambda: wake_up(root, as_of=AS_OF), reps)
    warm_cpu = _timed(lambda: wake_up(root, as_of=AS_OF), reps, time.process_time)
    briefing = wake_up(root, as_of=AS_OF)
    return {"cold_s": round(statistics.median(cold), 3), "warm_s": round(statistics.median(warm), 3),
            "warm_min_s": round(min(warm), 3), "warm_cpu_s": round(statistics.median(warm_cpu), 3),
            "memories_shown": sum(len(s.items) for s in briefing.sections),
            "tokens": briefing.tokens, "budget": briefing.budget,
            "target_warm_s": 0.5, "ok": statistics.median(warm) <= 0.5}


MEASUREMENTS: dict[str, Callable[[Path, int], dict[str, Any]]] = {
    "wake_up": measure_wake_up,
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vault", type=Path, help="an existing vault (memories are added to it once)")
    ap.add_argument("--pages", type=int, default=10_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", choices=sorted(MEASUREMENTS), action="append")
    args = ap.parse_args(argv)
    temp = None
    root = args.vault
    if root is None:
        temp = Path(tempfile.mkdtemp(prefix="wikic-memory-bench-"))
        root = temp / "vault"
        subprocess.run(
            [sys.executable, str(HERE / "gen_vault.py"), str(root), "--pages", str(args.pages), "--quiet"], check=True
        )
    try:
        if not (root / "identity.md").exists():
            print(f"memories added: {add_memories(root)} items", file=sys.stderr)
        results = {name: MEASUREMENTS[name](root, args.reps) for name in (args.only or MEASUREMENTS)}
        print(json.dumps(results, indent=2))
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
