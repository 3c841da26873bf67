"""Concurrency: four `wikic ingest` processes on one vault at once, each with its own sources but sharing
pages (every source names the same company and one of three methods), while `wikic query --save` and
`wikic lint` run too. Afterwards every page, every log row, every ledger entry and every palace entry is
there, the vault lints clean, and a re-run finds nothing left to do. Once with the embedded palace and
once with the palace on a chroma server (started and stopped here).
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import gkit
import processes
import pytest
from standin_openai import StandinServer
from typer.testing import CliRunner

from wikic.cli import app

PROCESSES = gkit.count(4, 6)
PER_PROCESS = gkit.count(2, 4)


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`chroma run` on loopback, started for these tests and stopped after them."""
    with processes.chroma_server(
        tmp_path_factory.mktemp("chroma-server"), processes.free_port(), gkit.env(), 90
    ) as url:
        yield url


def _expected_pages(tmp_path: Path, server: StandinServer, groups: list[list[str]]) -> set[str]:
    """The pages the same sources make when ingested one after another."""
    reference = gkit.make_vault(tmp_path / "reference", server.base_url)
    result = CliRunner().invoke(app, ["ingest", *[s for g in groups for s in g], "--vault", str(reference),
                                      "--no-palace", "--json"])
    assert result.exit_code == 0, result.output
    return set(gkit.page_paths(reference))


def _run_together(root: Path, server: StandinServer, groups: list[list[str]]) -> None:
    ingests = [gkit.popen("ingest", *g, "--vault", str(root), "--json") for g in groups]
    lint = gkit.popen("lint", "--json", "--vault", str(root))
    # the query starts once the first pages are there, and files its answer while the others still write
    deadline = time.monotonic() + 300
    while "| ingest |" not in (root / "log.md").read_text(encoding="utf-8") and time.monotonic() < deadline:
        if all(p.poll() is not None for p in ingests):
            break
        time.sleep(0.05)
    query = gkit.popen("query", "What does Acme Corp build?", "--save", "--json", "--vault", str(root))
    results = gkit.wait_all([*ingests, lint, query], timeout=600)
    for code, out, err in results[: len(ingests)]:
        assert code == 0, f"an ingest failed ({code}): {err[-3000:]}\n{out[-6000:]}"
        assert all(s["status"] == "compiled" for s in json.loads(out)["sources"]), out
    for code, out, err in results[len(ingests) :]:
        assert code in (0, 1) and "Traceback" not in err, f"exit {code}: {err[-3000:]}"
        json.loads(out.strip().splitlines()[-1])  # a whole JSON answer, even when a run sees a vault mid-write


def _check(root: Path, server: StandinServer, groups: list[list[str]], expected: set[str]) -> None:
    queries = {p for p in gkit.page_paths(root) if p.startswith("queries/")}
    assert gkit.consistency_problems(root, expect_pages=expected | queries) == []
    rows = gkit.log_rows(root)
    assert len(rows) == sum(len(g) for g in groups)
    assert len(gkit.log_rows(root, "query")) == len(queries)
    # nothing was lost: a re-run of every source has nothing to do and asks the model nothing
    calls = len(server.chat_requests())
    again = CliRunner().invoke(app, ["ingest", *[s for g in groups for s in g], "--vault", str(root), "--json"])
    assert again.exit_code == 0, again.output
    assert {s["status"] for s in json.loads(again.stdout)["sources"]} == {"unchanged"}
    assert len(server.chat_requests()) == calls
    # and the palace answers from every process's pages
    hits = json.loads(
        CliRunner().invoke(app, ["search", "Project p3", "--json", "--k", "20", "--vault", str(root)]).stdout
    )
    assert any(h["path"].startswith("entities/project-p3") for h in hits["results"])


def _groups(tmp_path: Path) -> list[list[str]]:
    return [gkit.sources(tmp_path / f"inbox-{i}", PER_PROCESS, tag=f"p{i}") for i in range(PROCESSES)]


def test_four_processes_ingest_into_one_vault(tmp_path: Path) -> None:
    with StandinServer(latency=0.2) as server:
        server.route = gkit.route
        groups = _groups(tmp_path)
        expected = _expected_pages(tmp_path, server, groups)
        root = gkit.make_vault(tmp_path / "wiki", server.base_url)
        _run_together(root, server, groups)
        _check(root, server, groups, expected)


def test_four_processes_with_the_palace_on_a_chroma_server(tmp_path: Path, chroma_server: str) -> None:
    with StandinServer(latency=0.2) as server:
        server.route = gkit.route
        groups = _groups(tmp_path)
        expected = _expected_pages(tmp_path, server, groups)
        root = gkit.make_vault(tmp_path / "wiki", server.base_url, palace_url=chroma_server)
        _run_together(root, server, groups)
        assert not (root / ".wikic/palace/chroma.sqlite3").exists()  # the vectors live on the server
        _check(root, server, groups, expected)
        # a second checkout of the vault, sharing the server, sees the same palace
        other = tmp_path / "other"
        shutil.copytree(root, other, ignore=shutil.ignore_patterns(".wikic"))
        synced = CliRunner().invoke(app, ["index", "--json", "--vault", str(other)])
        assert synced.exit_code == 0, synced.output
        assert json.loads(synced.stdout)["drawers_embedded"] == 0  # every vector came from the server
        assert gkit.palace_problems(other) == []
