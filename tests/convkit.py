"""Helpers of the conversation tests (a module of its own: every test folder has a `conftest`, so tests
import these by this name): the fixture exports, the scripted model's plan, a snapshot of a vault's files,
and the real `wikic` entry point in a process of its own (capture is judged as a hook runs it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "conversations"
REPO = Path(__file__).resolve().parents[1]


def plan_for(messages: list[dict[str, str]]) -> dict[str, Any]:
    """A plan naming uv when the transcript says "use uv" (a quote from it), else nothing."""
    text = messages[-1]["content"]
    entities = []
    if "From now on use uv, never pip." in text:
        entities.append(
            {
                "name": "uv",
                "kind": "tool",
                "aliases": [],
                "summary": "A Python package manager.",
                "facts": [
                    {"text": "The user wants uv used instead of pip.", "quote": "From now on use uv, never pip."}
                ],
            }
        )
    plan: dict[str, Any] = {"summary": "A conversation.", "entities": entities, "concepts": [], "comparisons": [],
                            "relations": []}
    if "memories" in messages[0]["content"]:  # a transcript is asked for its memories too: none here
        plan["memories"] = []
    return plan


def files_of(root: Path) -> dict[str, tuple[int, int]]:
    """Every file of the vault (state included) with its size and modification time; lock files (empty,
    left by whoever took the lock) hold nothing and are left out."""
    return {p.relative_to(root).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")
            if p.is_file() and p.suffix != ".lock"}


def wikic_process(args: list[str], *, stdin: bytes = b"", env: dict[str, str] | None = None,
                  cwd: Path | None = None) -> subprocess.Popen[bytes]:
    """The `wikic` console entry point in a process of its own (as a hook starts it)."""
    environment = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    process = subprocess.Popen(
        [sys.executable, "-c", "from wikic.cli import main; main()", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment,
        cwd=cwd,
    )
    assert process.stdin is not None
    process.stdin.write(stdin)
    process.stdin.close()
    return process


def finish(process: subprocess.Popen[bytes], timeout: float = 120) -> tuple[int, bytes, bytes]:
    """(exit code, stdout, stderr) of a process `wikic_process` started; a process still running after
    `timeout` seconds is killed and fails the test with what it wrote (both pipes are read together, so a
    process filling one of them cannot stall the test, nor can one that never ends)."""
    if process.stdin is not None and process.stdin.closed:
        process.stdin = None  # written and closed when it started: communicate() has nothing to send
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        raise AssertionError(
            f"still running after {timeout} s; stdout {out[-2000:]!r}, stderr {err[-2000:]!r}"
        ) from None
    return process.returncode, out, err
