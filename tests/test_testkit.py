"""The test kit itself: a randomised test's run can be replayed with WIKIC_TEST_SEED, although every test
runs with the WIKIC_* variables cleared, and CI's runs (`HYPOTHESIS_PROFILE=ci`) make the same choices
every time."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
PROBE = """
import os

from testkit import test_seed


def test_probe():
    assert "WIKIC_TEST_SEED" not in os.environ  # cleared for the test, as every WIKIC_* variable
    print("SEED", test_seed(), test_seed())
"""


def _probe(tmp_path: Path, **env: str) -> str:
    """The probe test run by pytest in another process with `env` laid over this one's; what it printed."""
    (tmp_path / "test_probe.py").write_text(PROBE, encoding="utf-8")
    environ = {name: value for name, value in os.environ.items()
               if name not in ("WIKIC_TEST_SEED", "HYPOTHESIS_PROFILE")}
    environ |= {"PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]), **env}
    command = [
        sys.executable,
        "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "-p", "conftest",
        str(tmp_path / "test_probe.py"),
    ]
    out = subprocess.run(command, capture_output=True, text=True, env=environ, cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


@pytest.mark.slow  # runs pytest in another process
def test_wikic_test_seed_replays_a_run(tmp_path: Path) -> None:
    assert "SEED 4242 4242" in _probe(tmp_path, WIKIC_TEST_SEED="4242")


@pytest.mark.slow  # runs pytest in other processes
def test_ci_makes_the_same_choices_on_every_run(tmp_path: Path) -> None:
    seeds = {line for _ in range(3) for line in _probe(tmp_path, HYPOTHESIS_PROFILE="ci").splitlines()
             if line.startswith("SEED")}
    assert len(seeds) == 1, seeds


def test_growth_tells_linear_work_from_quadratic() -> None:
    from testkit import growth

    def linear(n: int) -> None:
        sum(range(n))

    def quadratic(n: int) -> None:
        for _ in range(n):
            sum(range(n))

    assert growth(lambda: linear(200_000), lambda: linear(1_600_000)) < 24
    assert growth(lambda: quadratic(300), lambda: quadratic(2_400)) > 24
