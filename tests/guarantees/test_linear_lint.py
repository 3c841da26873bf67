"""Lint's time grows with a page's size whatever the page holds: `wikic lint` runs as a pre-commit hook, and one
hostile page must not stall every commit. Each pattern of `bench/lint_hostile.py` (an opener nothing closes,
deep nesting, a long line, many short lines, frontmatter built to expand, placed in a person's page, a whole
body, a compiler block, the frontmatter or a comparison) is grown 1x, 2x, 4x and 8x and linted in this process:
the 8x page must take less than 8 x 3 times the 1x one (a quadratic scan takes 64 times), each time the least
CPU time of up to three runs, so a machine busy with other work does not fail it. A run past a minute fails
at once (the scans this replaced took minutes on these pages)."""

from __future__ import annotations

import shutil
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from library import run_lint

from bench.lint_hostile import PATTERNS, Pattern, key
from wikic.lint.run import LintOptions
from wikic.vault.init import init_vault

BASE = 16 * 1024  # characters of the 1x page
GROWTH = (1, 2, 4, 8)
MARGIN = 3  # the 8x page may take up to 8 x MARGIN times the 1x one
DEADLINE = 60.0  # seconds of one run


@contextmanager
def deadline(seconds: float, what: str) -> Iterator[None]:
    def stop(signum: int, frame: object) -> None:
        raise TimeoutError(f"{what} took over {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile") / "vault"
    init_vault(root)
    return root


def lint_seconds(vault: Path, pattern: Pattern, size: int) -> float:
    """CPU seconds of a lint of `vault` holding the pattern's page of about `size` characters."""
    for other in {p.path for p in PATTERNS}:
        (vault / other).unlink(missing_ok=True)
    (vault / pattern.path).write_text(pattern.page(size), encoding="utf-8")
    shutil.rmtree(vault / ".wikic" / "cache", ignore_errors=True)  # cold, and writing its caches as lint does
    started = time.process_time()
    what = f"lint of {key(pattern)} at {size // 1024} KB"
    try:
        with deadline(DEADLINE, what):
            report = run_lint(vault, LintOptions(jobs=1))
    except (TimeoutError, RecursionError) as exc:  # told from here: the stack it was raised in may be a deep one
        pytest.fail(f"{what}: {exc!r}", pytrace=False)
    assert report.pages >= 1 and not report.cached
    return time.process_time() - started


@pytest.mark.parametrize("pattern", PATTERNS, ids=key)
def test_lint_time_grows_linearly_with_a_hostile_page(vault: Path, pattern: Pattern) -> None:
    best = [float("inf")] * len(GROWTH)
    for _ in range(3):  # a run slowed by other work is run again; each size keeps its best
        for i, times in enumerate(GROWTH):
            best[i] = min(best[i], lint_seconds(vault, pattern, BASE * times))
        if best[-1] < GROWTH[-1] * MARGIN * best[0]:
            return
    pytest.fail(f"{key(pattern)}: " + ", ".join(f"{t}x {s:.3f} s" for t, s in zip(GROWTH, best, strict=True)))
