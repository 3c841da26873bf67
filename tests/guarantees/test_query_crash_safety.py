"""Crash safety of `wikic query --save` and `--refresh`: the answer is filed through the ingest journal.

A save killed with SIGKILL before any of its file-system steps (the same forked crash worker as the ingest
tests) is finished by the next `query --save`, `query --refresh` or `ingest`: the query page, its index.md
entry, its log.md row and the cited page's "Asked about" block are then all there, once each, byte for
byte what a save that was never killed writes; or, when it was killed before its journal was written,
none of them is. The palace ends up holding exactly the vault's files, and no palace to-do is left.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import gkit
import pytest
from standin_openai import StandinServer
from testkit import test_seed

Q1 = "What does Acme Corp build?"
Q2 = "Where does Acme Corp build widgets?"
Q1_PAGE = "queries/what-does-acme-corp-build.md"
Q1_LINK = "[[what-does-acme-corp-build"
CITED = "entities/acme-corp.md"
TODO = Path(".wikic/palace-todo")
JOURNAL = Path(".wikic/journal.json")


def _texts(root: Path) -> dict[str, str]:
    """Every page, index.md and log.md: what a finished save must have made of them."""
    paths = [*gkit.page_paths(root), "index.md", "log.md"]
    return {p: (root / p).read_text(encoding="utf-8") for p in paths}


def _after_kill(root: Path) -> list[str]:
    problems = []
    for rel in gkit.page_paths(root):
        problems += gkit.whole_page_problems(root, rel)
    problems += gkit.lint_errors(root, ["encoding", "frontmatter", "unsafe-path"])
    return problems


def _finished(root: Path) -> list[str]:
    """What must hold once the run after a killed save is over."""
    from library import run_lint

    from wikic.lint.run import LintOptions

    problems = gkit.consistency_problems(root)  # lint errors, a pending journal, the palace against the vault
    report = run_lint(root, LintOptions(use_cache=False, select=("index-gap", "broken-wikilink")))
    problems += [f"{f.path}:{f.line}: {f.rule} {f.message}" for f in report.findings]
    if (root / TODO).is_dir() and any((root / TODO).glob("*.json")):
        problems.append(f"a palace to-do is left: {sorted(p.name for p in (root / TODO).glob('*.json'))}")
    return problems


def _save(q: str, root: Path) -> list[str]:
    return ["query", q, "--save", "--json", "--vault", str(root)]


def _template(tmp_path: Path, base_url: str) -> tuple[Path, list[str]]:
    """A vault ingested with its palace (a query retrieves through it)."""
    from library import ingest

    from wikic.ingest.pipeline import IngestOptions

    template = gkit.make_vault(tmp_path / "template", base_url)
    inputs = gkit.sources(tmp_path / "inbox", 3)
    assert not ingest(template, IngestOptions(inputs=inputs, lint_after=False)).failed
    return template, inputs


def _q1_rows(root: Path) -> list[str]:
    return [notes for target, notes in gkit.log_rows(root, "query") if target == Q1_PAGE]


def test_query_save_killed_at_every_write_step_is_finished_by_the_next_save_or_ingest(
    tmp_path: Path, standin: StandinServer, worker: gkit.Worker
) -> None:
    template, inputs = _template(tmp_path, standin.base_url)

    def reference(name: str, base: Path, question: str) -> tuple[Path, dict[str, Any]]:
        root = tmp_path / name
        shutil.copytree(base, root)
        done = worker.run(_save(question, root), None, tmp_path / f"{name}.log")
        assert done["exit"] == 0, (tmp_path / f"{name}.log").read_text()[-3000:]
        assert _finished(root) == [], name
        return root, done

    only_q1, done = reference("only-q1", template, Q1)
    steps = done["steps"]
    assert steps and steps >= 8
    # a save ends with: journal, query page, index.md, cited page, overview.md, log.md, palace to-do, unlink
    # journal, unlink to-do
    journal_step = steps - 8
    both, _ = reference("both", only_q1, Q2)
    assert _q1_rows(only_q1) == _q1_rows(both) and len(_q1_rows(both)) == 1
    assert f"{Q1_LINK}|" in (both / CITED).read_text(encoding="utf-8")
    expected = {  # (filed, finisher) -> the vault a run that was never killed leaves
        (True, "ingest"): _texts(only_q1),
        (False, "ingest"): _texts(template),
        (True, "query"): _texts(both),
    }

    seed = test_seed()
    points = gkit.kill_points(steps, seed, 4)
    for i, n in enumerate(points):
        root = tmp_path / f"kill-{n}"
        shutil.copytree(template, root)
        log = tmp_path / f"kill-{n}.log"
        killed = worker.run(_save(Q1, root), n, log)
        finisher = "ingest" if i % 2 else "query"
        where = f"query --save killed before step {n} of {steps}, finished by {finisher} (seed {seed})"
        assert killed["killed"], f"{where}: the save ended on its own: {log.read_text()[-2000:]}"
        assert _after_kill(root) == [], where
        # once its journal is written the save is committed; before that, nothing of it is in the vault
        filed = (root / JOURNAL).exists() or (root / Q1_PAGE).exists()
        assert filed == (n > journal_step), (
            f"{where}: journal or query page {'missing' if n > journal_step else 'written'}"
        )

        argv = ["ingest", *inputs, "--vault", str(root), "--json"] if finisher == "ingest" else _save(Q2, root)
        again = worker.run(argv, None, log)
        assert again["exit"] == 0, f"{where}: the next run failed: {log.read_text()[-3000:]}"
        assert _finished(root) == [], where
        if (filed, finisher) not in expected:
            expected[(filed, finisher)] = _texts(reference("only-q2", template, Q2)[0])
        assert _texts(root) == expected[(filed, finisher)], f"{where}: the vault differs from a save never killed"
        assert _q1_rows(root) == (_q1_rows(only_q1) if filed else []), where
        shutil.rmtree(root)


def test_a_save_killed_half_way_is_finished_by_refresh_before_it_answers_again(
    tmp_path: Path, standin: StandinServer, worker: gkit.Worker
) -> None:
    template, _ = _template(tmp_path, standin.base_url)
    reference = tmp_path / "reference"
    shutil.copytree(template, reference)
    done = worker.run(_save(Q1, reference), None, tmp_path / "reference.log")
    assert done["exit"] == 0
    root = tmp_path / "vault"
    shutil.copytree(template, root)
    # the last steps of a save: query page, index.md, cited page, overview.md, log.md, palace to-do, unlink
    # journal, unlink to-do
    index_step = done["steps"] - 6
    log = tmp_path / "kill.log"
    assert worker.run(_save(Q1, root), index_step, log)["killed"]
    index = (root / "index.md").read_text(encoding="utf-8")
    assert (root / JOURNAL).exists() and (root / Q1_PAGE).exists() and Q1_LINK not in index, (
        f"killing before step {index_step} should leave the query page written and index.md not yet"
    )
    assert gkit.lint_errors(root, ["index-gap"]), "the half-written save should show as an index gap"

    again = worker.run(["query", "--refresh", Q1_PAGE, "--json", "--vault", str(root)], None, log)
    assert again["exit"] == 0, log.read_text()[-3000:]
    assert _finished(root) == []
    index = (root / "index.md").read_text(encoding="utf-8")
    assert index.count(Q1_LINK) == 1
    first, refreshed = _q1_rows(root)
    assert first == _q1_rows(reference)[0] and refreshed.startswith("refreshed; ")
    assert (root / CITED).read_text(encoding="utf-8").count(Q1_LINK) == 1


def test_a_palace_todo_left_by_a_save_is_consumed_by_the_next(
    tmp_path: Path, standin: StandinServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from library import answer_question, open_palace, save_answer

    from wikic.context import VaultContext
    from wikic.errors import PalaceError
    from wikic.palace.palace import Palace

    root, _ = _template(tmp_path, standin.base_url)

    def unavailable(*args: object, **kwargs: object) -> None:
        raise PalaceError("the palace is locked by another process")

    monkeypatch.setattr(Palace, "update_paths", unavailable)
    saved = save_answer(root, answer_question(root, Q1))
    assert saved.path == Q1_PAGE and saved.asked_pages == [CITED]
    assert len(saved.warnings) == 1 and saved.warnings[0].startswith("palace not updated")
    todos = sorted((root / TODO).glob("*.json"))
    assert len(todos) == 1 and json.loads(todos[0].read_text(encoding="utf-8"))["paths"] == sorted([Q1_PAGE, CITED])
    assert f"palace lacks {Q1_PAGE}" in gkit.palace_problems(root)
    monkeypatch.undo()

    # a long-running caller (the MCP server) passes its own palace: the to-do is indexed through it
    result = answer_question(root, Q2)
    with open_palace(root) as palace:
        indexed: list[list[str]] = []
        update = palace.update_paths

        def spy(paths, **kwargs):
            indexed.append(sorted(paths))
            return update(paths, **kwargs)

        monkeypatch.setattr(palace, "update_paths", spy)
        with VaultContext(root, palace=palace) as context:
            again = save_answer(context, result)
    assert again.warnings == []
    assert len(indexed) == 1 and {Q1_PAGE, CITED, again.path} <= set(indexed[0])
    assert not any((root / TODO).glob("*.json"))
    assert gkit.palace_problems(root) == []
