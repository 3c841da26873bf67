"""What a run paid the model for is never lost: each source is said compiled as soon as its replies are in
(while later sources are still with the model), and the tokens a reply cost are counted once in log.md, by
the row of the first source compiled with it, also when the run that paid for it wrote nothing."""

from __future__ import annotations

import datetime as dt
import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from fake_llm import FakeLLM
from library import ingest
from testkit import init_wiki, llm_toml

from wikic.ingest.pipeline import IngestOptions
from wikic.pages.log_file import read_rows
from wikic.progress import ProgressEvent
from wikic.status import token_totals

TEXTS = {
    "alpha.md": "# Alpha notes\n\nZarvik is a plugin that keeps notes in order.\n",
    "beta.md": "# Beta notes\n\nQuenlo is a plugin that draws the graph of notes.\n",
}


def _vault(tmp_path: Path, threshold: int = 1) -> tuple[Path, list[str]]:
    root = init_wiki(tmp_path / "wiki", min_references=threshold,
                     toml=llm_toml(strategy="single", concurrency=1, compose=False))
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name, text in TEXTS.items():
        (inbox / name).write_text(text, encoding="utf-8")
    return root, [str(inbox / name) for name in TEXTS]


def _plan(messages: Sequence[Mapping[str, str]]) -> dict[str, Any]:
    ask = messages[-1]["content"]
    name, line = ("Zarvik", TEXTS["alpha.md"]) if "Alpha notes" in ask else ("Quenlo", TEXTS["beta.md"])
    quote = line.splitlines()[-1]
    return {"summary": "Notes.", "concepts": [], "comparisons": [], "relations": [],
            "entities": [{"name": name, "kind": "product", "aliases": [], "summary": quote,
                          "facts": [{"text": quote, "quote": quote}]}]}


def _options(sources: list[str], **more: Any) -> IngestOptions:
    return IngestOptions(inputs=sources, use_palace=False, lint_after=False, today=dt.date(2026, 12, 1), **more)


def test_a_source_is_said_compiled_while_the_next_one_is_still_with_the_model(tmp_path: Path) -> None:
    root, sources = _vault(tmp_path)
    said: list[ProgressEvent] = []
    first_said = threading.Event()
    waited: list[bool] = []

    def reply(messages: Sequence[Mapping[str, str]]) -> Any:
        if "Beta notes" in messages[-1]["content"]:
            # the model takes its time with the second source until the first is said compiled (a run that
            # says so only once the model is done waits out the timeout here, and fails below)
            waited.append(first_said.wait(timeout=10))
        return _plan(messages)

    def observe(event: ProgressEvent) -> None:
        said.append(event)
        if event.stage == "write" and event.note.startswith("raw/articles/alpha"):
            first_said.set()

    report = ingest(root, _options(sources), llm=FakeLLM().respond_with(reply), progress=observe)
    assert [s.status for s in report.sources] == ["compiled", "compiled"]
    assert waited == [True]
    writes = [(e.done, e.total, e.note) for e in said if e.stage == "write"]
    assert writes == [(1, 2, report.sources[0].raw_path), (2, 2, report.sources[1].raw_path)]  # each once


def test_the_cost_of_replies_a_run_wrote_nothing_for_is_counted_once_by_the_row_that_uses_them(
    tmp_path: Path,
) -> None:
    # each source names one thing, which waits for a second source: no page a later prompt would list
    root, sources = _vault(tmp_path, threshold=2)
    previewed = ingest(root, _options(sources, dry_run=True), llm=FakeLLM().respond_with(_plan))
    paid = {s.raw_path: s.prompt_tokens + s.completion_tokens for s in previewed.sources}
    assert all(paid.values()) and not list((root / "raw/articles").iterdir())  # the dry run wrote nothing

    model = FakeLLM()  # nothing to answer: every reply comes from the cache
    report = ingest(root, _options(sources), llm=model)
    assert not model.history
    entries = [json.loads(p.read_text(encoding="utf-8")) for p in (root / ".wikic/cache/llm").rglob("*.json")]
    day = entries[0]["stored"][:10]
    for s in report.sources:
        assert (s.status, s.calls, s.cached_calls, s.first_paid) == ("compiled", 1, 1, day)
        assert s.prompt_tokens + s.completion_tokens == s.earlier_tokens == paid[s.raw_path]
    assert report.totals()["earlier_tokens"] == sum(paid.values())
    rows = read_rows((root / "log.md").read_text(encoding="utf-8"))
    assert [r.tokens for r in rows] == list(paid.values())
    assert all(f"tokens (cached, first paid {day})" in r.notes for r in rows)
    # the replies are marked counted by the run that wrote those rows: no later row counts them again
    assert len(entries) == 2 and len({e["counted"] for e in entries}) == 1

    # compiled again from the same replies: their cost was counted, and is not counted a second time
    again = ingest(root, _options(sources, force=True), llm=FakeLLM())
    assert [(s.cached_calls, s.prompt_tokens + s.completion_tokens) for s in again.sources] == [(1, 0), (1, 0)]
    rows = read_rows((root / "log.md").read_text(encoding="utf-8"))
    assert [r.notes.endswith("0 tokens (cached)") for r in rows] == [False, False, True, True]
    assert token_totals(rows)["total"] == sum(paid.values())
