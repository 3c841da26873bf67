"""The example vault in the repository is what wikic writes: `tools/example_vault/build.py` regenerates it from
its raw sources through wikic's own library and a scripted model, and the result must equal the checked-in
vault byte for byte (wikic's state in .wikic/ aside) and pass strict lint. A plan whose quote is not in its
source stops the build instead of leaving a claim out, and so does a page with no stored prose or a composed
sentence wikic refuses: the example never shows claim lists where it means to show prose."""

from __future__ import annotations

import functools
import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

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


STATE = ".wikic/"  # wikic's state (search index, caches, ledgers): the repository leaves it out


def _ignored(rel: str, patterns: list[str]) -> bool:
    """Whether `rel` is wikic's state, or a plain folder/ or file line of the vault's .gitignore leaves it out."""
    return rel.startswith(STATE) or any(rel.startswith(p) if p.endswith("/") else rel == p for p in patterns)


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


def test_every_subject_page_of_the_example_has_prose_the_model_could_return() -> None:
    composed = _build_module().load_composed()  # each one validated against the schema the model decodes under
    subjects = [p.stem for folder in ("entities", "concepts", "comparisons") for p in (EXAMPLE / folder).glob("*.md")]
    assert sorted(composed) == sorted(subjects)


REQUEST = """Page: Chroma (entity)

The page opens with this claim now:
[c00000001] Chroma is an embedding database.

Claims, by section:

## Key facts
[c00000002] Chroma runs in-process.
[c00000003] Chroma has a Python client.
## Trade-offs
[c00000004] Chroma is slower than FAISS."""


def _sentence(text: str, *claims: str) -> dict[str, object]:
    return {"text": text, "claims": list(claims)}


def test_the_scripted_model_composes_a_page_as_it_is_now_from_its_stored_prose() -> None:
    build = _build_module()
    asked = build.compose_request(REQUEST)
    assert (asked.title, asked.opening) == ("Chroma", ["c00000001"])
    assert asked.sections == {"Key facts": ["c00000002", "c00000003"], "Trade-offs": ["c00000004"]}
    stored: dict[str, Any] = {
        "lead": [_sentence("Chroma is an in-process embedding database.", "c00000001", "c00000002")],
        "sections": [
            {"section": "Key facts", "sentences": [
                _sentence("Chroma runs in-process and has a Python client.", "c00000002", "c00000003"),
                _sentence("Collections hold metadata.", "c00000005")]},  # a claim a later source adds
            {"section": "History", "sentences": [_sentence("Chroma was renamed.", "c00000006")]},
        ],
    }
    # only what the page holds now: the sentence of a claim still to come, and a section it lacks, are left out
    assert build.composed_reply(stored, asked) == {
        "lead": stored["lead"],
        "sections": [{"section": "Key facts", "sentences": [stored["sections"][0]["sentences"][0]]}],
    }
    # and, as the page ends, every claim said and every stored sentence used, or the build says where they part
    assert build.loose_prose(stored, asked) == [
        "section 'History' is not on the page",
        "Key facts: 'Collections hold metadata.' cites a claim the section does not have",
        "Trade-offs: no sentence says [c00000004]",
    ]
    assert build.compose_request("Source: \"x\" (raw/x.md)\n\nClaims, by section:") is None


def test_a_lead_that_leaves_out_the_claim_the_page_opens_with_is_not_returned() -> None:
    build = _build_module()
    asked = build.compose_request(REQUEST)
    stored = {"lead": [_sentence("Chroma runs in-process.", "c00000002")], "sections": []}
    assert build.composed_reply(stored, asked)["lead"] == []
    assert "the lead leaves out [c00000001], which the page opens with" in build.loose_prose(stored, asked)


@pytest.mark.slow
def test_the_build_makes_the_example_vault_byte_for_byte(tmp_path: Path) -> None:
    report = _build_module().build(tmp_path / "built")
    built, checked_in = _files(tmp_path / "built"), _files(EXAMPLE)
    assert sorted(built) == sorted(checked_in)
    assert [rel for rel in built if built[rel] != checked_in[rel]] == []
    # the anchors: each claim's (two of them memories of the transcript), and each composed sentence's
    assert (report.pages, report.links, report.anchors) == (19, 561, 268)
    assert (report.composed_pages, report.sentences) == (12, 72)

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


@pytest.mark.slow
def test_a_page_with_no_stored_prose_stops_the_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build = _build_module()
    composed = tmp_path / "composed"
    shutil.copytree(build.COMPOSED, composed)
    (composed / "retrieval-augmented-generation.json").unlink()
    monkeypatch.setattr(build, "COMPOSED", composed)

    with pytest.raises(build.BuildError, match=r"2026-09-08: no stored prose to compose 'Retrieval-augmented "
                                               r"generation' \(no composed/retrieval-augmented-generation.json\)"):
        build.build(tmp_path / "built")


@pytest.mark.slow
def test_a_composed_sentence_wikic_refuses_stops_the_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build = _build_module()
    composed = tmp_path / "composed"
    shutil.copytree(build.COMPOSED, composed)
    page = composed / "retrieval-augmented-generation.json"
    prose = json.loads(page.read_text(encoding="utf-8"))
    sentence = prose["sections"][0]["sentences"][1]
    assert sentence["text"] == "The knowledge stays outside the model, where it can be edited."
    sentence["text"] = "The knowledge stays outside the model, where it can be edited in 2 minutes."
    page.write_text(json.dumps(prose), encoding="utf-8")
    monkeypatch.setattr(build, "COMPOSED", composed)

    with pytest.raises(build.BuildError, match=r"2026-09-08: composing concepts/retrieval-augmented-generation.md: "
                                               r"refused \{'states what its claims do not': 1\}"):
        build.build(tmp_path / "built")
