"""`wikic eval --judge` and `--calibrate`: a model's verdicts on the vault's claims and cited sentences, typed
and cached, sampled with a Wilson interval, and the judge's accuracy on a hand-labelled set."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fake_llm import FakeLLM

from wikic.compile.judge import Item, judge
from wikic.context import VaultContext
from wikic.evaluation.judge import (
    LABELS,
    JudgeOptions,
    calibrate,
    calibration_pairs,
    items,
    judge_vault,
)
from wikic.evaluation.verdicts import saved_summary, wilson

EXAMPLE = Path(__file__).resolve().parents[2] / "example-vault"


def _numbered(user: str) -> list[tuple[int, str]]:
    return [(int(n), s) for n, s in re.findall(r"^(\d+)\. sentence: (.*)$", user, re.M)]


def _judge(verdict_of: Any) -> FakeLLM:
    """A judge that answers each listed sentence with `verdict_of(sentence)`."""

    def reply(messages: list[dict[str, str]]) -> dict[str, Any]:
        return {"verdicts": [{"index": n, "verdict": verdict_of(s), "words": s.split()[0]}
                             for n, s in _numbered(messages[-1]["content"])]}

    return FakeLLM(model="judge-model").respond_with(reply)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    shutil.copytree(EXAMPLE, root)
    return root


def test_the_judges_reply_is_read_per_sentence_and_a_missing_verdict_is_unjudged() -> None:
    llm = FakeLLM().enqueue({"verdicts": [{"index": 2, "verdict": "contradicted", "words": "faster"}]})
    verdicts = judge(llm, None, [Item("a", "Chroma runs in-process.", ("Chroma runs in-process.",)),
                                 Item("b", "pgvector is faster than FAISS.", ("pgvector is slower than FAISS.",))])
    assert [(v.key, v.verdict, v.words, v.refused) for v in verdicts] == [
        ("a", "unjudged", "", False), ("b", "contradicted", "faster", True)]
    sent = llm.history[0].messages[-1]["content"]
    assert "2. sentence: pgvector is faster than FAISS.\n   quote: pgvector is slower than FAISS." in sent
    assert llm.history[0].schema_name == "judged_sentences"


def test_every_claim_and_cited_sentence_is_judged_kept_and_a_second_run_asks_nothing(vault: Path) -> None:
    context = VaultContext(vault)
    everything = items(context)
    assert len(everything) > 150 and all(i.quotes for i in everything)
    llm = _judge(lambda s: "partly" if "Chroma" in s else "supported")
    summary = judge_vault(context, llm=llm)
    calls = len(llm.history)
    assert calls == -(-len(everything) // 6)  # six sentences a request
    partly = sum("Chroma" in i.sentence for i in everything)
    assert summary.model == "judge-model" and summary.judged == len(everything)
    assert summary.verdicts == {"partly": partly, "supported": len(everything) - partly}
    assert summary.support_rate == pytest.approx((len(everything) - partly) / len(everything))
    assert summary.pages["entities/chroma.md"]["partly"] > 0
    kept = json.loads((vault / ".wikic/judged.json").read_text(encoding="utf-8"))
    assert len(kept["verdicts"]) == len(everything) and saved_summary(vault) == summary
    # the same sentences on the same quotes: every reply from the cache
    again = judge_vault(context, llm=llm)
    assert len(llm.history) == calls and again == summary


def test_a_sample_is_seeded_and_its_rate_has_a_wilson_interval(vault: Path) -> None:
    context = VaultContext(vault)
    llm = _judge(lambda s: "unsupported" if len(s) % 3 == 0 else "supported")
    first = judge_vault(context, JudgeOptions(sample=40), llm=llm)
    assert first.judged == 40
    kept = [r["key"] for r in json.loads((vault / ".wikic/judged.json").read_text(encoding="utf-8"))["verdicts"]]
    judge_vault(context, JudgeOptions(sample=40), llm=llm)
    assert [r["key"] for r in json.loads((vault / ".wikic/judged.json").read_text(encoding="utf-8"))["verdicts"]] \
        == kept  # the same seed draws the same sample
    supported = first.verdicts.get("supported", 0)
    assert first.interval == wilson(supported, 40)
    one = judge_vault(context, JudgeOptions(page="Chroma"), llm=llm)
    assert set(one.pages) == {"entities/chroma.md"}


def test_the_wilson_interval_is_the_textbook_one() -> None:
    # 81 of 263: (0.2553, 0.3662) as the Wilson score interval gives it at 95 %
    low, high = wilson(81, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    assert wilson(0, 10)[0] == 0.0 and round(wilson(0, 10)[1], 4) == 0.2775
    assert wilson(10, 10)[1] == pytest.approx(1.0) and round(wilson(10, 10)[0], 4) == 0.7225
    assert wilson(0, 0) == (0.0, 1.0)


def test_the_calibration_set_has_at_least_120_hand_written_pairs_over_every_label() -> None:
    pairs = calibration_pairs()
    assert len(pairs) >= 120
    by_label = Counter(p.label for p in pairs)
    assert set(by_label) == set(LABELS) and min(by_label.values()) >= 10
    assert {p.lang for p in pairs} == {"en", "zh"} and sum(p.lang == "zh" for p in pairs) >= 14
    assert len({(p.sentence, p.quote) for p in pairs}) == len(pairs)  # no pair twice
    assert all(p.sentence != p.quote or p.label == "supported" for p in pairs)


def test_calibrate_reports_the_judges_accuracy_per_label(vault: Path) -> None:
    pairs = {p.sentence: p.label for p in calibration_pairs()}

    def verdict(sentence: str) -> str:  # a judge that believes every number and every "always"
        label = pairs[sentence]
        return "supported" if label in ("supported", "number", "always") else "contradicted"

    result = calibrate(VaultContext(vault), llm=_judge(verdict))
    by_label = result.by_label()
    assert by_label["supported"] == 1.0 and by_label["number"] == 0.0 and by_label["always"] == 0.0
    assert by_label["negation"] == by_label["cause"] == by_label["comparison"] == by_label["subject"] == 1.0
    kept = json.loads((vault / ".wikic/judge-calibration.json").read_text(encoding="utf-8"))
    assert kept["model"] == "judge-model" and kept["pairs"] == len(pairs)
    # the support rate is shown with the calibration of the same judge beside it
    summary = judge_vault(VaultContext(vault), JudgeOptions(sample=10), llm=_judge(lambda s: "supported"))
    assert summary.calibration == pytest.approx(result.accuracy)


def test_eval_shows_the_last_verdicts_with_their_interval_and_the_judges_calibration(vault: Path) -> None:
    from wikic.evaluation import EvalOptions, evaluate, render

    context = VaultContext(vault)
    assert evaluate(context).judged is None  # never judged: no such section
    judge_vault(context, JudgeOptions(sample=20), llm=_judge(lambda s: "supported" if len(s) % 2 else "partly"))
    report = evaluate(context, EvalOptions())
    assert report.judged is not None and report.judged.judged == 20
    line = next(x for x in render(report, "text").splitlines() if x.strip().startswith("judged"))
    assert "20 by judge-model: supported" in line and "95 % interval" in line
    assert "judge not calibrated (wikic eval --calibrate)" in line
    assert json.loads(render(report, "json"))["judged"]["interval"] == list(report.judged.interval or ())


def test_the_command_calibrates_and_judges_through_a_real_endpoint(vault: Path) -> None:
    from standin_openai import StandinServer, reply
    from typer.testing import CliRunner

    from wikic.cli import app

    labels = {p.sentence: p.label for p in calibration_pairs()}

    def route(body: dict[str, Any]) -> Any:
        listed = _numbered(body["messages"][-1]["content"])
        verdict = {s: "supported" if labels.get(s, "supported") == "supported" else "unsupported" for _, s in listed}
        return reply({"verdicts": [{"index": n, "verdict": verdict[s], "words": s[:10]} for n, s in listed]})

    with StandinServer() as server:
        server.route = route
        flags = ["--vault", str(vault), "--base-url", server.base_url, "--model", "stand-in-judge"]
        calibrated = CliRunner().invoke(app, ["eval", "--calibrate", *flags])
        assert calibrated.exit_code == 0, calibrated.output
        first = calibrated.stdout.splitlines()[0]
        assert first == f"judge stand-in-judge: 100.0 % right on {len(labels)} labelled pairs"
        assert "  negation    21 of 21 (100 %)" in calibrated.stdout
        asked = len(server.requests)
        judged = CliRunner().invoke(app, ["eval", "--judge", "--sample", "12", "--json", *flags])
        assert judged.exit_code == 0, judged.output
        assert len(server.requests) == asked + 2  # twelve sentences, six a request
    data = json.loads(judged.stdout)["judged"]
    assert data["model"] == "stand-in-judge" and data["judged"] == 12 and data["verdicts"] == {"supported": 12}
    assert data["calibration"] == 1.0 and data["interval"] == list(wilson(12, 12))
    usage = CliRunner().invoke(app, ["eval", "--vault", str(vault), "--sample", "3"])
    assert usage.exit_code == 2 and "--sample goes with --judge" in usage.output


def test_eval_model_names_the_judge_on_the_llm_endpoint_unless_a_flag_names_one(vault: Path) -> None:
    from standin_openai import StandinServer, reply
    from typer.testing import CliRunner

    from wikic.cli import app

    def route(body: dict[str, Any]) -> Any:
        listed = _numbered(body["messages"][-1]["content"])
        return reply({"verdicts": [{"index": n, "verdict": "supported", "words": s[:10]} for n, s in listed]})

    with StandinServer() as server:
        server.route = route
        (vault / "wikic.toml").write_text(f'[llm]\nbase_url = "{server.base_url}"\nmodel = "the-writer"\n\n'
                                          '[eval]\nmodel = "the-judge"\n', encoding="utf-8")
        judged = CliRunner().invoke(app, ["eval", "--judge", "--sample", "6", "--json", "--vault", str(vault)])
        assert judged.exit_code == 0, judged.output
        assert {r.body["model"] for r in server.requests} == {"the-judge"}
        assert json.loads(judged.stdout)["judged"]["model"] == "the-judge"
        flagged = CliRunner().invoke(app, ["eval", "--judge", "--sample", "6", "--json", "--vault", str(vault),
                                           "--model", "a-flagged-judge"])
        assert flagged.exit_code == 0, flagged.output
        assert server.requests[-1].body["model"] == "a-flagged-judge"
