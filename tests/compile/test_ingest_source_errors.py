"""A reply that meets a bug in wikic fails its own source, reported with the error, and every other source of
the run is compiled; and a name's claims from the names-first pass are all kept, however many there are."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from fake_llm import FakeLLM
from library import ingest
from testkit import init_wiki, llm_toml

from wikic.ingest.pipeline import IngestOptions

GOOD = "Chroma is an open-source vector database that runs inside a Python process."
BAD = "Qdrant is a vector database written in Rust."


def _vault(tmp_path: Path, strategy: str = "single") -> Path:
    return init_wiki(tmp_path / "wiki", min_references=1, toml=llm_toml(strategy=strategy, concurrency=2))


def _sources(tmp_path: Path) -> list[str]:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name, line in (("good.md", GOOD), ("bad.md", BAD)):
        (inbox / name).write_text(f"# {name[:-3]}\n\n{line}\n", encoding="utf-8")
    return [str(inbox / "good.md"), str(inbox / "bad.md")]


def _entity(name: str, quote: str, texts: Sequence[str]) -> dict[str, Any]:
    return {"name": name, "kind": "product", "aliases": [], "summary": texts[0],
            "facts": [{"text": t, "quote": quote} for t in texts]}


def test_a_bug_met_by_one_reply_fails_that_source_alone(tmp_path: Path) -> None:
    def reply(messages: Sequence[Mapping[str, str]]) -> Any:
        if "Qdrant" in messages[-1]["content"]:
            return KeyError("subjects")  # what a bug inside wikic raises, not a model error
        return {"summary": "", "entities": [_entity("Chroma", GOOD, ["Chroma runs inside a Python process."])],
                "concepts": [], "comparisons": [], "relations": []}

    root = _vault(tmp_path)
    report = ingest(root, IngestOptions(inputs=_sources(tmp_path), use_palace=False, lint_after=False,
                                        today=dt.date(2026, 12, 1)), llm=FakeLLM().respond_with(reply))
    status = {s.raw_path: (s.status, s.error) for s in report.sources}
    assert status["raw/articles/good.md"] == ("compiled", None)
    assert status["raw/articles/bad.md"][0] == "failed" and "KeyError" in str(status["raw/articles/bad.md"][1])
    assert (root / "entities/chroma.md").is_file() and report.exit_code() == 1


def test_the_names_first_pass_keeps_all_of_a_names_claims(tmp_path: Path) -> None:
    # more than one plan's entity holds, each a fact of its own (paraphrases of one fact would rightly be one line)
    texts = ["Chroma is an open-source vector database.", "Chroma runs inside a Python process.",
             "Chroma stores its collections in SQLite.", "Chroma can also run as a server on port 8000.",
             "Chroma ships a JavaScript client.", "Chroma was first released in 2022.",
             "Chroma filters results by metadata.", "Chroma computes embeddings with a default model."]

    def reply(messages: Sequence[Mapping[str, str]]) -> Any:
        ask = messages[-1]["content"]
        if "List every named thing" in ask:
            return {"names": [{"name": "Chroma", "kind": "database"}]}
        if "The facts this source states" in ask and "Chroma" in ask:
            return {"items": [{"name": "Chroma", "facts": [{"text": t, "quote": t} for t in texts]}]}
        return {"names": []} if "List every named thing" in ask else {"items": []}

    root = _vault(tmp_path, "two-pass")
    source = tmp_path / "notes.md"
    source.write_text("# Notes on a vector store\n\n" + "\n\n".join(texts) + "\n", encoding="utf-8")
    report = ingest(root, IngestOptions(inputs=[str(source)], use_palace=False, lint_after=False,
                                        today=dt.date(2026, 12, 1)), llm=FakeLLM().respond_with(reply))
    assert [(s.status, s.error) for s in report.sources] == [("compiled", None)]
    page = (root / "entities/chroma.md").read_text(encoding="utf-8")
    assert all(t.rstrip(".") in page for t in texts), page
