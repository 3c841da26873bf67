"""The session-start briefing's measurement for `memory_bench.py`: a generated vault gets memories the way
the compiler writes them (a user's page with instructions and preferences, a few hundred project pages with
decisions, each item anchored to a transcript in raw/transcripts/), then `wake_up` is timed cold (no derived
index: every page read once) and warm (an unchanged vault, its derived index in .wikic/), in-process, wall
and CPU time. Target: warm <= 0.5 s on 10,000 pages.
"""

from __future__ import annotations

import datetime as dt
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from wikic.context import VaultContext  # noqa: E402
from wikic.pages.blocks import merge_blocks  # noqa: E402
from wikic.vault.formats.anchors import render as render_anchor  # noqa: E402
from wikic.vault.formats.memory_items import SECTIONS, MemoryItem, block_key, render_items  # noqa: E402
from wikic.vault.formats.transcript import Conversation, Turn, render  # noqa: E402
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
        cold += _timed(lambda: wake_up(VaultContext(root), as_of=AS_OF), 1)
    warm = _timed(lambda: wake_up(VaultContext(root), as_of=AS_OF), reps)
    warm_cpu = _timed(lambda: wake_up(VaultContext(root), as_of=AS_OF), reps, time.process_time)
    briefing = wake_up(VaultContext(root), as_of=AS_OF)
    return {"cold_s": round(statistics.median(cold), 3), "warm_s": round(statistics.median(warm), 3),
            "warm_min_s": round(min(warm), 3), "warm_cpu_s": round(statistics.median(warm_cpu), 3),
            "memories_shown": sum(len(s.items) for s in briefing.sections),
            "tokens": briefing.tokens, "budget": briefing.budget,
            "target_warm_s": 0.5, "ok": statistics.median(warm) <= 0.5}
