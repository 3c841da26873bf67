"""`wikic lint --fix` beside a running `wikic ingest`: a repair never costs what the ingest wrote.

Round after round, one `wikic ingest` process compiles a new source (new pages, new index.md entries,
updates to shared pages) while `wikic lint --fix` processes run one after another beside it. A person keeps
dropping new notes into the wiki meanwhile, so every `--fix` has index.md entries to add (and takes its
time planning them). Once the ingest's log row is there no new `--fix` starts, so a later one cannot
repair what an earlier one lost: after each round every page the ingest recorded must exist, cite its
source and be listed in index.md, and every ingest's log row must be there. At the end, one quiet
`--fix` lists the person's last notes and the vault is consistent and clean of index gaps.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import time
from pathlib import Path

import gkit
from standin_openai import StandinServer

ROUNDS = gkit.count(8, 24)
NOTES_PER_BATCH = 60  # a person's new notes, not in index.md yet: each --fix lists them
FIXERS = 2  # `wikic lint --fix` processes in flight at once


def _person_notes(root: Path, label: str) -> None:
    today = dt.date.today().isoformat()
    for i in range(NOTES_PER_BATCH):
        name = f"field-note-{label}-{i}"
        (root / "entities" / f"{name}.md").write_text(
            f"---\ntitle: Field note {label} {i}\ncreated: {today}\nupdated: {today}\ntype: entity\ntags: []\n"
            "sources: []\nsummary: What a person noted on a visit.\n---\n\n"
            f"# Field note {label} {i}\n\nNotes from the plant.\n",
            encoding="utf-8",
        )


def _start(args: list[str], out: Path | None = None) -> subprocess.Popen[str]:
    # Reports go to a file or nowhere: they list every note's warnings, more than a pipe holds unread.
    stdout = open(out, "w", encoding="utf-8") if out is not None else subprocess.DEVNULL  # noqa: SIM115
    try:
        return subprocess.Popen(gkit.wikic_cmd(*args), stdout=stdout, stderr=subprocess.PIPE, text=True, env=gkit.env())
    finally:
        if not isinstance(stdout, int):  # the file opened above
            stdout.close()


def _unlisted(root: Path) -> list[str]:
    """index-gap errors, except for the person's notes no --fix has listed yet."""
    return [e for e in gkit.lint_errors(root, ["index-gap"]) if not e.startswith("entities/field-note-")]


def _lost(root: Path, rounds: int) -> list[str]:
    problems = _unlisted(root) + gkit.recorded_page_problems(root)
    compiled = gkit.compiled_sources(root)
    if len(gkit.log_rows(root)) != rounds or len(compiled) != rounds:
        problems.append(f"{rounds} sources ingested, {len(gkit.log_rows(root))} log rows, {len(compiled)} compiled")
    return problems


def test_lint_fix_beside_a_running_ingest_loses_nothing(tmp_path: Path) -> None:
    with StandinServer(latency=0.3) as server:
        server.route = gkit.route
        root = gkit.make_vault(tmp_path / "wiki", server.base_url)
        sources = gkit.sources(tmp_path / "inbox", ROUNDS, tag="r")
        fixes = 0
        for n, source in enumerate(sources):
            _person_notes(root, f"r{n}-b0")
            report = tmp_path / f"ingest-{n}.json"
            ingest = _start(["ingest", source, "--vault", str(root), "--no-palace", "--json"], report)
            fixers: list[subprocess.Popen[str]] = []
            batch = 1
            while ingest.poll() is None and len(gkit.log_rows(root)) <= n:
                for p in [p for p in fixers if p.poll() is not None]:
                    _, err = p.communicate()
                    assert p.returncode in (0, 1) and "Traceback" not in err, err[-3000:]
                    fixers.remove(p)
                    fixes += 1
                    _person_notes(root, f"r{n}-b{batch}")
                    batch += 1
                if len(fixers) < FIXERS:
                    fixers.append(_start(["lint", "--fix", "--vault", str(root)]))
                time.sleep(0.05)
            results = gkit.wait_all([ingest, *fixers], timeout=300)
            assert all("Traceback" not in err for _, _, err in results), [err[-3000:] for _, _, err in results]
            _, _, err = results[0]
            assert json.loads(report.read_text(encoding="utf-8"))["sources"][0]["status"] == "compiled", err[-3000:]
            assert _lost(root, n + 1) == [], f"round {n}"
        assert fixes >= ROUNDS  # the fixes did run beside the ingests
    quiet = gkit.run("lint", "--fix", "--vault", str(root))
    assert quiet.returncode in (0, 1), quiet.stderr
    assert gkit.lint_errors(root, ["index-gap"]) == []
    assert gkit.consistency_problems(root, palace=False) == []
