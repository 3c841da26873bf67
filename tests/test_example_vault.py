"""The example vault in the repository is what wikic writes: `tools/example_vault/build.py` regenerates it from
its raw sources through wikic's own library and a scripted model, and the result must equal the checked-in
vault byte for byte (wikic's state in .wikic/ aside) and pass strict lint. A plan whose quote is not in its
source stops the build instead of leaving a claim out."""

from __future__ import annotations

import functools
import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest
from typer.testing import CliRunner

from wikic.cli import app

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "example-vault"
BUILD = REPO / "tools" / "example_vault" / "build.py"


@functools.cache
def _build_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("example_vault_build", BUILD)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while they are defined
    spec.loader.exec_module(module)
    return module


def _ignored(rel: str, patterns: list[str]) -> bool:
    """Whether the vault's .gitignore (its plain folder/ and file lines) leaves `rel` out of the repository."""
    return any(rel.startswith(p) if p.endswith("/") else rel == p for p in patterns)


def _files(root: Path) -> dict[str, bytes]:
    lines = (root / ".gitignore").read_text(encoding="utf-8").splitlines()
    patterns = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    return {
        rel: path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not _ignored(rel := path.relative_to(root).as_posix(), patterns)
    }


def test_every_raw_source_of_the_example_has_a_day_and_a_plan_the_model_could_return() -> None:
    build = _build_module()
    raw = sorted(p.relative_to(EXAMPLE).as_posix() for p in (EXAMPLE / "raw").rglob("*") if p.is_file())
    assert sorted(p for _, paths in build.INGESTS for p in paths) == raw
    plans = build.load_plans()  # each one validated against the schema the model decodes under
    assert sorted(plans) == [p for p in raw if p.endswith(".md")]
    assert [q.asked.isoformat() for q in build.load_questions()] == ["2026-11-20", "2026-11-24"]


@pytest.mark.slow
def test_the_build_makes_the_example_vault_byte_for_byte(tmp_path: Path) -> None:
    report = _build_module().build(tmp_path / "built")
    built, checked_in = _files(tmp_path / "built"), _files(EXAMPLE)
    assert sorted(built) == sorted(checked_in)
    assert [rel for rel in built if built[rel] != checked_in[rel]] == []
    assert (report.pages, report.links, report.anchors) == (
        14,
        266,
        124,
    )  # two of the anchors are memories of the transcript

    linted = CliRunner().invoke(app, ["lint", str(tmp_path / "built"), "--strict", "--as-of", "2026-11-29", "--json"])
    assert linted.exit_code == 0, linted.stdout
    assert json.loads(linted.stdout)["summary"]["errors"] == 0


@pytest.mark.slow
def test_a_quote_missing_from_its_source_stops_the_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build = _build_module()
    plans = tmp_path / "plans"
    shutil.copytree(build.PLANS, plans)
    first = plans / "rag-in-practice.json"
    plan = json.loads(first.read_text(encoding="utf-8"))
    plan["concepts"][0]["sections"][0]["facts"][0]["quote"] = "a sentence the article never wrote"
    first.write_text(json.dumps(plan), encoding="utf-8")
    monkeypatch.setattr(build, "PLANS", plans)

    with pytest.raises(
        build.BuildError, match=r"2026-09-08: raw/articles/rag-in-practice.md compiled: 1 claim\(s\) dropped"
    ):
        build.build(tmp_path / "built")
