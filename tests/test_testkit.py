"""The test kit itself: a randomised test's run can be replayed with WIKIC_TEST_SEED, although every test
runs with the WIKIC_* variables cleared."""

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


@pytest.mark.slow  # runs pytest twice in other processes
def test_wikic_test_seed_replays_a_run(tmp_path: Path) -> None:
    (tmp_path / "test_probe.py").write_text(PROBE, encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
        "WIKIC_TEST_SEED": "4242",
    }
    command = [
        sys.executable,
        "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "-p", "conftest",
        str(tmp_path / "test_probe.py"),
    ]
    out = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "SEED 4242 4242" in out.stdout
