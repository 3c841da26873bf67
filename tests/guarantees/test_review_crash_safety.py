"""An accept killed at any step of its write leaves all of the proposal or none of it: the next command that
writes (the accept again) finishes it, and the vault is then the one an accept never killed gives."""

from __future__ import annotations

import shutil
from pathlib import Path

import gkit
import pytest
from standin_openai import StandinServer
from testkit import test_seed

pytestmark = pytest.mark.slow


def _proposal_of(root: Path) -> str | None:
    folder = root / ".wikic" / "proposals"
    found = [p.name for p in folder.iterdir() if (p / "proposal.json").is_file()] if folder.is_dir() else []
    return found[0] if found else None


def test_an_accept_killed_at_any_write_step_lands_all_or_nothing(
    tmp_path: Path, standin: StandinServer, worker: gkit.Worker
) -> None:
    template = gkit.make_vault(tmp_path / "template", standin.base_url)
    inputs = gkit.sources(tmp_path / "inbox", 3)
    made = worker.run(["ingest", *inputs, "--review", "--no-palace", "--json", "--vault", str(template)], None,
                      tmp_path / "propose.log")
    assert made["exit"] == 0, (tmp_path / "propose.log").read_text()
    proposal = _proposal_of(template)
    assert proposal is not None
    before = gkit.page_texts(template)

    reference = tmp_path / "reference"
    shutil.copytree(template, reference)
    done = worker.run(["review", "accept", proposal, "--vault", str(reference)], None, tmp_path / "reference.log")
    assert done["exit"] == 0, (tmp_path / "reference.log").read_text()
    steps = done["steps"]
    assert steps and steps > 5
    expected, rows = gkit.page_texts(reference), gkit.log_rows(reference)
    assert expected != before and _proposal_of(reference) is None

    seed = test_seed()
    points = gkit.kill_points(steps, seed, 8)
    for n in points:
        root = tmp_path / f"kill-{n}"
        shutil.copytree(template, root)
        log = tmp_path / f"kill-{n}.log"
        killed = worker.run(["review", "accept", proposal, "--vault", str(root)], n, log)
        where = f"accept killed before step {n} of {steps} (seed {seed})"
        assert killed["killed"], f"{where}: it ended on its own: {log.read_text()[-2000:]}"
        assert gkit.after_kill_problems(root) == [], where
        left = gkit.page_texts(root)
        journal = (root / ".wikic" / "journal.json").exists()
        assert left in (before, expected) or journal, f"{where}: part of the proposal landed without its journal"
        if _proposal_of(root) is not None:
            again = worker.run(["review", "accept", proposal, "--vault", str(root)], None, log)
            assert again["exit"] == 0, f"{where}: {log.read_text()[-3000:]}"
        assert gkit.page_texts(root) == expected, f"{where}: pages differ from an accept never killed"
        assert gkit.log_rows(root) == rows, where
        assert _proposal_of(root) is None, where
        shutil.rmtree(root)
