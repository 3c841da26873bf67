"""Fixtures for the conversation tests: a fresh vault, the fixture exports, a scripted model, and a way to
run the real `wikic` entry point in its own process (capture is judged as the hook runs it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from wikic.llm.fake import FakeLLM
from wikic.vault.init import init_vault

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "conversations"
REPO = Path(__file__).resolve().parents[2]


def plan_for(messages: list[dict[str, str]]) -> dict[str, Any]:
    """A plan naming uv when the transcript says "use uv" (a quote from it), else nothing."""
    text = messages[-1]["content"]
    entities = []
    if "From now on use uv, never pip." in text:
        entities.append({"name": "uv", "kind": "tool", "aliases": [], "summary": "A Python package manager.",
                         "facts": [{"text": "The user wants uv used instead of pip.", "quote": "From now on use uv, never pip."}]})
    return {"summary": "A conversation.", "entities": entities, "concepts": [], "comparisons": [], "relations": []}


@pytest.fixture
def llm() -> FakeLLM:
    return FakeLLM().respond_with(plan_for)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "wiki"
    init_vault(root)
    return root


@pytest.fixture(autouse=True)
def _static_embeddings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIKIC_EMBEDDING_PROVIDER", "static")


def files_of(root: Path) -> dict[str, tuple[int, int]]:
    """Every file of the vault (state included) with its size and modification time; lock files (empty,
    left by whoever took the lock) hold nothing and are left out."""
    return {p.relative_to(root).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")
            if p.is_file() and p.suffix != ".lock"}


def wikic_process(args: list[str], *, stdin: bytes = b"", env: dict[str, str] | None = None,
                  cwd: Path | None = None) -> subprocess.Popen[bytes]:
    """The `wikic` console entry point in a process of its own (as a hook starts it)."""
    environment = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    process = subprocess.Popen([sys.executable, "-c", "from wikic.cli import main; main()", *args], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment, cwd=cwd)
    assert process.stdin is not None
    process.stdin.write(stdin)
    process.stdin.close()
    return process


def finish(process: subprocess.Popen[bytes], timeout: float = 120) -> tuple[int, bytes, bytes]:
    """(exit code, stdout, stderr) of a process `wikic_process` started."""
    assert process.stdout is not None and process.stderr is not None
    out, err = process.stdout.read(), process.stderr.read()
    return process.wait(timeout=timeout), out, err
