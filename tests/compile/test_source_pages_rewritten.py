"""A run renders the source pages of the sources whose part of a written page changed, not of every source
those pages cite: each source page it passes over must be one it would have rendered as it is. The checker
below renders every passed-over page anyway, through the runs of a growing wiki where pages many sources
feed gain claims, names wait and are promoted, and a source is compiled again with other claims."""

from __future__ import annotations

import datetime as dt
import json
import random
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from library import ingest
from scripted import entity, fact, plan
from standin_openai import StandinServer
from typer.testing import CliRunner

from wikic.cli import app
from wikic.hubs import plan as hub_plan
from wikic.hubs.source_page import render_source_page
from wikic.ingest.pipeline import IngestOptions

TODAY = dt.date(2026, 11, 29)
NAMES = ["Acme", "Borealis", "Cobalt", "Dunmore", "Elmstead", "Fairhaven", "Glenrock", "Hollis"]


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Every source page a run passes over is rendered anyway and must come out as it is; yields the counts
    [rendered by the run's choice, passed over and checked]."""
    counts = [0, 0]
    chosen_by = hub_plan.HubPlanner.sources_shown_otherwise

    def checking(self: hub_plan.HubPlanner, changed: Mapping[str, str | None]) -> list[str]:
        chosen = chosen_by(self, changed)
        cited = {raw for path in changed for raw in self.view.sources_of(path)}
        for raw in sorted(cited - set(chosen)):
            page = self.source_page(raw)
            assert page is not None, raw  # a source a page cites has its page already, or is chosen
            current = self.view.text(page)
            assert current is not None, raw
            assert render_source_page(self.view, raw, page, self.today, current) == current, (raw, sorted(changed))
            counts[1] += 1
        counts[0] += len(chosen)
        return chosen

    monkeypatch.setattr(hub_plan.HubPlanner, "sources_shown_otherwise", checking)
    yield counts


def _report(n: int, rng: random.Random) -> str:
    named = rng.sample(NAMES[:5] if n % 3 else NAMES, 3)
    # one figure a claim: a later report's figure replaces an earlier one's, which moves to History and off
    # the earlier report's page; half the lines are the report's own
    lines = [f"{name} logged {rng.randint(10, 99)} audits." if i % 2 else f"{name} logged {n} visits in report {n}."
             for i, name in enumerate(named)]
    return f"# Report {n}\n\n" + "\n".join(lines) + "\n"


def _answer(body: dict[str, Any]) -> dict[str, Any]:
    user = body["messages"][-1]["content"]
    found = []
    for line in user.split("\n"):
        line = line.strip()
        name = next((n for n in NAMES if line.startswith(f"{n} logged ")), None)
        if name is not None:
            found.append(entity(name, "organization", f"{name} is an organisation in the survey.", [fact(line, line)]))
    return plan("A report.", found)


def test_the_source_pages_a_run_passes_over_are_the_ones_it_would_render_as_they_are(
    tmp_path: Path, standin: StandinServer, checked: list[int]
) -> None:
    standin.route = _answer
    root = tmp_path / "wiki"
    assert CliRunner().invoke(app, ["init", str(root)]).exit_code == 0
    (root / "wikic.toml").write_text(f'[llm]\nbase_url = "{standin.base_url}"\nmodel = "standin-model"\ntimeout = 5\n'
                                     "max_retries = 0\ncompose = false\n", encoding="utf-8")
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    rng = random.Random(7)
    for batch, numbers in enumerate((range(1, 9), range(9, 15), range(15, 19))):
        inputs = []
        for n in numbers:
            (inbox / f"report-{n}.md").write_text(_report(n, rng), encoding="utf-8")
            inputs.append(str(inbox / f"report-{n}.md"))
        report = ingest(root, IngestOptions(inputs=inputs, use_palace=False, today=TODAY + dt.timedelta(days=batch)))
        assert all(s.status == "compiled" for s in report.sources), [s.error for s in report.sources]
    # a source compiled again says less: its claims leave the pages that many sources feed
    (inbox / "report-2.md").write_text(_report(2, random.Random(99)), encoding="utf-8")
    report = ingest(root, IngestOptions(inputs=[str(inbox / "report-2.md")], use_palace=False, force=True,
                                        today=TODAY + dt.timedelta(days=5)))
    assert [s.status for s in report.sources] == ["compiled"]
    rendered, passed_over = checked
    assert rendered > 0 and passed_over >= 10  # the most named organisations' pages cite most of the sources
    # the figures that hold at once are a contradiction lint warns of; nothing is broken
    linted = CliRunner().invoke(app, ["lint", str(root), "--as-of", "2026-12-04", "--json"])
    assert json.loads(linted.stdout)["summary"]["errors"] == 0, linted.stdout
