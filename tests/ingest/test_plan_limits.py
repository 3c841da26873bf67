"""A plan over one of its limits keeps what fits: a reply with more entities than a plan holds keeps the
best-supported ones (their quotes are in the source) and says which it left out, without asking again; the
names-first pass keeps every name it found, however many; neither is ever a traceback."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fake_llm import FakeLLM
from library import ingest
from standin_openai import StandinServer
from testkit import init_wiki, llm_toml
from typer.testing import CliRunner

from wikic.cli import app
from wikic.ingest.extract.prompt import PromptContext
from wikic.ingest.extract.run import extract_plan
from wikic.ingest.pipeline import IngestOptions
from wikic.ingest.plan_model import MAX_ENTITIES, NAMES_SCHEMA_NAME, SCHEMA_NAME
from wikic.ingest.report import render_report
from wikic.settings import LLMSettings, Settings, Strategy

NAMES = ["Zarvik", "Quenlo", "Brastel", "Movrane", "Tellig", "Oskuna", "Pildor", "Vantrel", "Coraxe", "Dulmin",
         "Ferrowe", "Gastrin", "Hovalt", "Jirrex"]
TEXT = "# Fourteen plugins\n\n" + "".join(f"{n} is a plugin that keeps notes in order.\n\n" for n in NAMES)
assert len(NAMES) == MAX_ENTITIES + 2


@dataclass(frozen=True)
class Source:
    text: str = TEXT
    text_path: str = "raw/articles/fourteen-plugins.md"
    title: str = "Fourteen plugins"


def entity(name: str, quote: str) -> dict[str, Any]:
    return {"name": name, "kind": "product", "aliases": [], "summary": f"{name} is a plugin.",
            "facts": [{"text": f"{name} keeps notes in order.", "quote": quote}]}


def over_the_limit() -> dict[str, Any]:
    """Fourteen entities; the quotes of the first and the sixth are nowhere in the source."""
    entities = [entity(n, f"{n} is a plugin that keeps notes in order.") for n in NAMES]
    entities[0] = entity(NAMES[0], "Zarvik was written in a weekend by two friends.")
    entities[5] = entity(NAMES[5], "Oskuna ships with a dark theme and a light one.")
    return {"summary": "Plugins.", "entities": entities, "concepts": [], "comparisons": [], "relations": []}


def names_first(messages: Sequence[Mapping[str, str]]) -> Any:
    """The names-first pass: every name in the source, then each name's claim."""
    ask = messages[-1]["content"]
    if "List every named thing" in ask:
        return {"names": [{"name": n, "kind": "plugin"} for n in NAMES]}
    asked = [n for n in NAMES if f"- {n}" in ask]
    return {"items": [{"name": n, "facts": [{"text": f"{n} keeps notes in order.",
                                              "quote": f"{n} is a plugin that keeps notes in order."}]}
                      for n in asked]}


def settings(strategy: Strategy) -> Settings:
    return Settings(llm=LLMSettings(strategy=strategy, concurrency=1))


def test_a_reply_over_the_entity_limit_keeps_the_best_supported_and_names_the_rest() -> None:
    llm = FakeLLM(over_the_limit())
    result = extract_plan(llm, Source(), context=PromptContext(), settings=settings("single"))
    assert [c.schema_name for c in llm.history] == [SCHEMA_NAME]  # kept as it came, not asked again
    kept = [e.name for e in result.plan.entities if not e.found]
    assert kept == [n for n in NAMES if n not in ("Zarvik", "Oskuna")]
    assert result.left_out == ("entities: Zarvik", "entities: Oskuna")


def test_the_names_first_pass_keeps_every_name_past_the_one_call_limit() -> None:
    llm = FakeLLM().respond_with(names_first)
    result = extract_plan(llm, Source(), context=PromptContext(), settings=settings("two-pass"))
    assert llm.history[0].schema_name == NAMES_SCHEMA_NAME
    assert sorted(e.name for e in result.plan.entities) == sorted(NAMES) and result.left_out == ()


def _vault(tmp_path: Path, **llm: str | int) -> tuple[Path, Path]:
    root = init_wiki(tmp_path / "wiki", min_references=1,
                     toml=llm_toml(None, **llm, strategy="single", concurrency=1, compose=False))
    source = tmp_path / "plugins.md"
    source.write_text(TEXT, encoding="utf-8")
    return root, source


def test_an_ingest_says_what_a_plan_over_its_limit_left_out(tmp_path: Path) -> None:
    root, source = _vault(tmp_path)
    llm = FakeLLM().respond_with(lambda messages: over_the_limit())
    report = ingest(root, IngestOptions(inputs=[str(source)], use_palace=False, lint_after=False, compose=False,
                                        today=dt.date(2026, 12, 1)), llm=llm)
    [r] = report.sources
    assert (r.status, r.error, r.left_out) == ("compiled", None, ["entities: Zarvik", "entities: Oskuna"])
    assert (root / "entities/quenlo.md").is_file() and not (root / "entities/zarvik.md").exists()
    assert ("  left out, over the plan's limits (the best-supported items kept): entities: Zarvik, Oskuna"
            in render_report(report).splitlines())
    assert "2 left out over the plan's limits" in (root / "log.md").read_text(encoding="utf-8")


def test_a_server_that_does_not_hold_a_reply_to_the_schema_never_fails_a_source_over_a_limit(
    tmp_path: Path, standin: StandinServer
) -> None:
    # a server that takes no json_schema: the reply is asked in JSON mode, and nothing holds it to the limits
    standin.reject_json_schema = "400"
    standin.route = lambda body: over_the_limit()
    root, source = _vault(tmp_path, base_url=standin.base_url, model="standin-model", max_retries=0)
    first = CliRunner().invoke(app, ["ingest", str(source), "--vault", str(root), "--no-palace"])
    assert first.exit_code == 0, first.output
    assert "entities: Zarvik, Oskuna" in first.output and "invalid reply" not in first.output
    assert len([r for r in standin.chat_requests() if r.response_format_type != "json_schema"]) == 1  # no re-ask

    # compiled again the names-first way: fourteen names, each with its claim, and no ValidationError
    standin.route = lambda body: names_first(body["messages"])
    again = CliRunner().invoke(app, ["ingest", str(source), "--vault", str(root), "--no-palace", "--force",
                                     "--strategy", "two-pass"])
    assert again.exit_code == 0, again.output
    assert "ValidationError" not in again.output and "failed" not in again.output.splitlines()[0]
    assert (root / "entities/zarvik.md").is_file() and (root / "entities/oskuna.md").is_file()
