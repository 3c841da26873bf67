"""`wikic eval` on a vault an ingest built: each case planted on a copy of it (a drifted quote, an uncited sentence,
an orphan, a contradiction, a page without its lead) is counted where it is, the runs' refusals are read back by
reason from their records, the Markdown report is a note whose links resolve, and `--min-score` gives the exit
code CI reads."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from careless_model import careless_plan, source_of
from fake_llm import FakeLLM
from library import ingest, opened, run_lint
from scripted import SOURCES, route
from testkit import init_wiki
from typer.testing import CliRunner

from wikic.cli.application import app
from wikic.compile.plan import UNSUPPORTED_SUMMARY
from wikic.evaluation import EvalOptions, EvalReport, evaluate, render
from wikic.evaluation.report import Figures
from wikic.evaluation.score import SHARES, health
from wikic.ingest.pipeline import IngestOptions, IngestReport
from wikic.lint.run import LintOptions
from wikic.vault.state import COMPILED, COMPOSED, read_state

TODAY = dt.date(2026, 12, 6)
OPENAI = "entities/openai.md"
GPT4 = "entities/gpt-4.md"
REFUSED_NUMBER = "90,000 times"
NAMES = Path(__file__).resolve().parents[2] / "bench" / "names_sources"


def _compose(user: str) -> dict[str, Any]:
    """Prose as a model writes it: each section's claims joined, and one sentence more stating a number no
    claim states (the code refuses it)."""
    sections = []
    for heading, listed in re.findall(r"^## (.+)\n((?:\[c[0-9a-f]{8}\] .+\n?)+)", user, re.M):
        claims = re.findall(r"^\[(c[0-9a-f]{8})\] (.+)$", listed, re.M)
        sentences = [{"text": text, "claims": [cid]} for cid, text in claims]
        sentences.append({"text": f"{claims[0][1].rstrip('.')} {REFUSED_NUMBER}.", "claims": [claims[0][0]]})
        sections.append({"section": heading, "sentences": sentences})
    return {"lead": [], "sections": sections}


def _model() -> FakeLLM:
    def reply(messages: list[dict[str, str]]) -> dict[str, Any]:
        if messages[0]["content"].startswith("You write one page"):
            return _compose(messages[-1]["content"])
        return route({"messages": messages})

    return FakeLLM().respond_with(reply)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, IngestReport]:
    base = tmp_path_factory.mktemp("eval")
    root = init_wiki(base / "wiki", min_references=1)
    inbox = base / "inbox"
    inbox.mkdir()
    for name, text in SOURCES.items():
        (inbox / name).write_text(text, encoding="utf-8")
    report = ingest(root, IngestOptions(inputs=[str(inbox / n) for n in SOURCES], use_palace=False,
                                        lint_after=False, compose=True, today=TODAY), llm=_model())
    assert all(s.status == "compiled" for s in report.sources), [(s.raw_path, s.error) for s in report.sources]
    return root, report


@pytest.fixture
def vault(built: tuple[Path, IngestReport], tmp_path: Path) -> Path:
    root = tmp_path / "wiki"
    shutil.copytree(built[0], root)
    return root


def _eval(root: Path, **options: Any) -> EvalReport:
    with opened(root) as context:
        return evaluate(context, EvalOptions(today=TODAY, **options))


def _row(report: EvalReport, path: str) -> Figures:
    return next(row.figures for row in report.pages if row.path == path)


def _edit(root: Path, path: str, old: str, new: str) -> None:
    file = root / path
    text = file.read_text(encoding="utf-8")
    assert old in text, (path, old)
    file.write_text(text.replace(old, new, 1), encoding="utf-8")


def _cited_raw(root: Path, page: str) -> str:
    found = re.search(r"\^\[\[\[(raw/[^|\]]+)", (root / page).read_text(encoding="utf-8"))
    assert found is not None, page
    return found.group(1)


def run(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def test_a_built_vault_is_counted_whole(vault: Path) -> None:
    report = _eval(vault)
    f = report.figures
    assert f.pages == len(report.pages) >= 4
    assert f.sentences > 0 and f.sentences_cited == f.sentences  # every composed sentence cites its claims
    assert f.claims > 0 and f.claims_anchored == f.claims
    assert f.anchors > 0 and f.anchors_holding == f.anchors
    assert f.checked > 0 and f.specifics_stated == f.checked
    assert f.leads == f.pages and f.orphans == 0 and f.contradictions == 0
    assert f.links > 0 and f.links_resolving == f.links
    assert report.sources_drifted == []
    assert report.score is not None and report.score > 95


def test_the_runs_refusals_are_read_back_by_reason_from_their_records(
        built: tuple[Path, IngestReport], vault: Path) -> None:
    _, run_report = built
    report = _eval(vault)
    # the claim whose quote is nowhere in its source, dropped by ingest, as the run's report counted it
    dropped: Counter[str] = Counter()
    for source in run_report.sources:
        dropped.update(source.dropped)
    assert sum(dropped.values()) >= 1
    summaries = dropped.pop(UNSUPPORTED_SUMMARY, 0)
    assert report.refusals.claims == {r: n for r, n in dropped.items() if n}
    assert report.refusals.summaries == summaries
    # each composed sentence stating a number no claim states, refused, recorded for its page
    assert run_report.composed is not None
    assert report.refusals.sentences == run_report.composed.refused
    assert sum(report.refusals.sentences.values()) >= 1
    composed = read_state(vault, COMPOSED)
    assert composed is not None
    pages = composed["pages"]
    refused_on = {r.path for r in report.pages if r.figures.sentences_refused}
    assert {p for p, e in pages.items() if e["refused"]} == refused_on
    assert REFUSED_NUMBER not in "".join((vault / p).read_text(encoding="utf-8") for p in pages)
    # the names the run refused, by reason, kept in each source's entry of the compiled ledger
    compiled = read_state(vault, COMPILED)
    assert compiled is not None
    entries = compiled["sources"]
    assert all(isinstance(e["names_refused"], dict) and isinstance(e["aliases_refused"], dict)
               for e in entries.values())


def test_names_refused_by_reason_are_recorded_per_source(tmp_path: Path) -> None:
    root = init_wiki(tmp_path / "wiki", min_references=1)
    source = NAMES / "01-quillstore-notes.md"

    def reply(messages: list[dict[str, str]]) -> dict[str, Any]:
        return careless_plan(source_of({"messages": messages}))

    run_report = ingest(root, IngestOptions(inputs=[str(source)], use_palace=False, lint_after=False,
                                            compose=False, today=TODAY), llm=FakeLLM().respond_with(reply))
    names = Counter(r["reason"] for s in run_report.sources for r in s.names_refused)
    aliases = Counter(r["reason"] for s in run_report.sources for r in s.aliases_refused)
    assert names and aliases, "a careless model's sentence openers and aliases are refused"
    refusals = _eval(root).refusals
    assert (refusals.names, refusals.aliases) == (dict(names), dict(aliases))


def test_a_quote_edited_after_ingest_is_drifted_where_it_is_cited(vault: Path) -> None:
    before = _eval(vault)  # the cache now holds every page's anchors as they held
    raw = _cited_raw(vault, GPT4)
    _edit(vault, raw, "It released GPT-4 in March 2023.", "It released GPT-4 in May 2024.")
    after = _eval(vault)
    assert raw in after.sources_drifted
    row = _row(after, GPT4)
    assert row.anchors_holding < row.anchors
    assert after.figures.drifted > 0 and before.figures.drifted == 0
    # the specifics its quote states now are checked again too: March 2023 is no longer there
    assert row.specifics_stated < row.checked
    assert after.score is not None and before.score is not None and after.score < before.score
    assert after.pages[0].path in {r.path for r in after.pages if r.figures.drifted}  # worst first


def test_lines_no_longer_in_their_source_are_drifted(vault: Path) -> None:
    raw = _cited_raw(vault, GPT4)
    cites = (vault / GPT4).read_text(encoding="utf-8").count(f"[[{raw}|")
    before = _row(_eval(vault), GPT4)
    # the source cut short to its title: the lines its anchors cite are gone
    (vault / raw).write_text("# OpenAI and GPT-4\n", encoding="utf-8")
    after = _row(_eval(vault), GPT4)
    assert cites > 0 and before.anchors_holding == before.anchors
    assert after.anchors_holding == before.anchors_holding - cites


def test_an_uncited_sentence_added_to_a_page_is_counted(vault: Path) -> None:
    before = _row(_eval(vault), OPENAI)
    _edit(vault, OPENAI, "\n## ", "\nOpenAI also runs a cafeteria in Oslo.\n\n## ")
    after = _row(_eval(vault), OPENAI)
    assert after.sentences == before.sentences + 1
    assert after.sentences_cited == before.sentences_cited
    assert after.uncited == 1


def test_an_orphan_is_counted(vault: Path) -> None:
    (vault / "entities/lonely.md").write_text(
        "---\ntitle: Lonely\ntype: entity\ncreated: 2026-12-06\nupdated: 2026-12-06\ntags: []\nsources: []\n---\n"
        "# Lonely\n\nLonely is a page no other page links to.\n", encoding="utf-8")
    report = _eval(vault)
    assert _row(report, "entities/lonely.md").orphans == 1
    assert report.figures.orphans == 1


def test_an_open_contradiction_is_counted(vault: Path) -> None:
    _edit(vault, OPENAI, "\ntype: entity\n", "\ntype: entity\ncontested: true\n")
    report = _eval(vault)
    assert _row(report, OPENAI).contradictions == 1
    assert report.figures.contradictions == 1


def test_a_page_without_its_lead_is_counted(vault: Path) -> None:
    text = (vault / GPT4).read_text(encoding="utf-8")
    lead = re.search(r"<!-- wikic:begin summary .*?<!-- wikic:end summary -->\n", text, re.S)
    assert lead is not None
    (vault / GPT4).write_text(text.replace(lead.group(), ""), encoding="utf-8")
    report = _eval(vault)
    assert _row(report, GPT4).leads == 0
    assert report.figures.leads == report.figures.pages - 1


def test_a_section_out_of_the_layout_is_counted(vault: Path) -> None:
    before = _row(_eval(vault), OPENAI)
    (vault / OPENAI).write_text((vault / OPENAI).read_text(encoding="utf-8") + "\n## Gossip\n\nNothing.\n",
                                encoding="utf-8")
    after = _row(_eval(vault), OPENAI)
    assert (after.sections, after.sections_in_layout) == (before.sections + 1, before.sections_in_layout)


def test_the_score_is_the_weighted_mean_of_the_shares() -> None:
    shares = {name: (0, 0) for name in SHARES} | {"cited": (1, 2), "lead": (1, 1)}
    expected = 100 * (SHARES["cited"] * 0.5 + SHARES["lead"] * 1.0) / (SHARES["cited"] + SHARES["lead"])
    assert health(shares) == pytest.approx(expected)
    assert health({name: (0, 0) for name in SHARES}) is None


def test_one_page_is_shown_alone(vault: Path) -> None:
    report = _eval(vault, page="OpenAI")
    assert [row.path for row in report.pages] == [OPENAI]
    assert report.figures.pages > 1  # the vault's figures stay whole
    result = run("eval", "--vault", str(vault), "--page", "no such page")
    assert result.exit_code == 2 and "no such page" in result.stderr


def test_the_markdown_report_is_a_note_whose_links_resolve(vault: Path) -> None:
    _edit(vault, OPENAI, "\n## ", "\nOpenAI also runs a cafeteria in Oslo.\n\n## ")
    result = run("eval", "--vault", str(vault), "--format", "markdown", "--out", "reports/eval.md")
    assert result.exit_code == 0, result.stderr
    note = (vault / "reports/eval.md").read_text(encoding="utf-8")
    assert note.startswith("# Wiki quality report\n") and "[[entities/openai\\|OpenAI]]" in note
    _edit(vault, OPENAI, "title: OpenAI\n", "title: \"OpenAI [lab] | US\"\n")
    assert run("eval", "--vault", str(vault), "--format", "markdown", "--out", "reports/eval.md").exit_code == 0
    assert "[[entities/openai\\|OpenAI (lab) \\| US]]" in (vault / "reports/eval.md").read_text(encoding="utf-8")
    lint = run_lint(vault, LintOptions(use_cache=False))
    assert [f for f in lint.findings if f.path == "reports/eval.md"] == []
    _edit(vault, OPENAI, "title: \"OpenAI [lab] | US\"\n", "title: OpenAI\n")
    with opened(vault) as context:
        assert render(evaluate(context), "markdown") == note


@pytest.mark.parametrize("out", ["entities/eval.md", "raw/eval.md", ".wikic/eval.md", "index.md", "../eval.md"])
def test_the_report_is_never_written_into_a_page_folder_raw_or_outside(vault: Path, out: str) -> None:
    result = run("eval", "--vault", str(vault), "--format", "markdown", "--out", out)
    assert result.exit_code == 2
    assert "--out" in result.stderr and "Traceback" not in result.stderr
    assert not (vault / out).exists() or out == "index.md"


def test_min_score_gives_exit_1_below_it_and_0_otherwise(vault: Path) -> None:
    _edit(vault, OPENAI, "\n## ", "\nOpenAI also runs a cafeteria in Oslo.\n\n## ")
    result = run("eval", "--vault", str(vault), "--json")
    score = json.loads(result.stdout)["score"]
    assert result.exit_code == 0 and 0 < score < 100
    assert run("eval", "--vault", str(vault), "--min-score", str(score)).exit_code == 0
    assert run("eval", "--vault", str(vault), "--min-score", str(min(100, score + 1))).exit_code == 1
    assert run("eval", "--vault", str(vault), "--format", "sarif").exit_code == 2


def test_the_json_report_keeps_its_keys(vault: Path) -> None:
    data = json.loads(run("eval", "--vault", str(vault), "--json").stdout)
    assert {"wikic", "format", "vault", "score", "weights", "figures", "names_waiting", "sources",
            "sources_drifted", "refusals", "judged", "pages", "seconds"} <= set(data)
    assert data["judged"] is None
    page = data["pages"][0]
    assert {"path", "title", "type", "score", "shares", "sentences", "sentences_cited", "anchors",
            "anchors_holding", "checked", "specifics_stated", "leads", "orphans", "contradictions"} <= set(page)
    assert data["figures"]["shares"]["cited"] == {"holding": data["figures"]["sentences_cited"],
                                                  "of": data["figures"]["sentences"]}


def test_a_second_run_reads_every_page_from_its_cache(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (vault / "entities/latin-1.md").write_bytes(b"---\ntitle: Caf\xe9\ntype: entity\n---\n# Caf\xe9\n")
    first = _eval(vault)
    assert "entities/latin-1.md" not in {row.path for row in first.pages}  # not text: lint's `encoding` says so
    from wikic.evaluation import checks, reading

    def unread(*args: Any) -> None:
        raise AssertionError("a page or a raw file read again")

    monkeypatch.setattr(reading, "read_page", unread)
    monkeypatch.setattr(checks, "RawFile", unread)
    second = _eval(vault)
    assert second.figures == first.figures


def test_pages_read_in_lints_parse_alone_or_forked_give_the_same_figures(
        vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from wikic.evaluation import run as run_module

    reads: list[int] = []
    read_pages = run_module._read_pages

    def counted(*args: Any) -> Any:
        reads.append(len(args[1]))
        return read_pages(*args)

    monkeypatch.setattr(run_module, "_read_pages", counted)
    kept = vault / ".wikic" / "cache" / "eval-pages.json"
    in_parse = _eval(vault, jobs=1)  # a first run: lint parses every page, and reads it for the report there
    assert reads == [] and kept.is_file()
    kept.unlink()  # lint's report is kept, the report's pages are not: it reads them itself
    alone = _eval(vault, jobs=1)
    kept.unlink()
    monkeypatch.setattr(run_module, "_FORK_FROM", 1)
    forked = _eval(vault, jobs=2)
    assert reads == [len(in_parse.pages)] * 2
    for report in (alone, forked):
        assert report.figures == in_parse.figures
        assert [(r.path, r.figures) for r in report.pages] == [(r.path, r.figures) for r in in_parse.pages]


def test_a_page_edited_since_is_read_alone_and_counted_as_a_fresh_report_counts_it(
        vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from wikic.evaluation import run as run_module
    from wikic.vault import load as load_module

    _eval(vault)
    _edit(vault, OPENAI, "\n## ", "\nOpenAI also runs a cafeteria in Oslo.\n\n## ")

    def whole(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the vault was read whole")

    monkeypatch.setattr(run_module, "load_vault", whole)
    monkeypatch.setattr(load_module, "load_vault", whole)  # lint's: it judges the page edited alone
    after = _eval(vault)
    monkeypatch.undo()
    shutil.rmtree(vault / ".wikic" / "cache")
    fresh = _eval(vault)
    assert after.figures == fresh.figures and _row(after, OPENAI).uncited == 1
    assert [(r.path, r.figures) for r in after.pages] == [(r.path, r.figures) for r in fresh.pages]


def test_the_mcp_tool_gives_the_text_report(vault: Path) -> None:
    from wikic.mcp_server import WikiTools

    _edit(vault, OPENAI, "\n## ", "\nOpenAI also runs a cafeteria in Oslo.\n\n## ")
    tools = WikiTools(vault)
    said = tools.eval()
    assert said.startswith(f"{vault.resolve()}: health ") and OPENAI in said
    assert "1 of" in tools.eval(page="OpenAI") and "sentences uncited" in tools.eval(page="OpenAI")


def test_each_sentence_of_a_lead_that_is_a_claim_is_cited_by_its_anchor(vault: Path) -> None:
    text = (vault / GPT4).read_text(encoding="utf-8")
    lead = "GPT-4 was released in March 2023. ^["
    assert lead in text
    (vault / GPT4).write_text(text.replace(lead, "GPT-4 is a model. It was released in March 2023. ^["),
                              encoding="utf-8")
    row = _row(_eval(vault), GPT4)
    assert row.sentences == 2 and row.sentences_cited == 2


def test_the_collector_waits_while_the_parsed_vault_is_in_memory(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lint's report written and the report's rows made with the cyclic collector paused (it would walk the
    parsed vault's millions of objects again), and the collector back on after."""
    import gc

    from wikic.evaluation import run as run_module
    from wikic.lint import run as lint_module

    seen: list[tuple[str, bool]] = []

    def spied(name: str, real: Any) -> Any:
        def spy(*args: Any) -> Any:
            seen.append((name, gc.isenabled()))
            return real(*args)
        return spy

    for module, name in ((lint_module, "_write_report"), (run_module, "_page_rows")):
        monkeypatch.setattr(module, name, spied(name, getattr(module, name)))
    assert gc.isenabled()
    _eval(vault)
    assert seen == [("_write_report", False), ("_page_rows", False)] and gc.isenabled()
