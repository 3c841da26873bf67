"""Progress of an ingest: the library reports every answered chunk, write and indexing step as events; the
CLI draws them only on a terminal, so a pipe or `--json` gets the report alone."""

from __future__ import annotations

import itertools
import json
import re
import threading
from pathlib import Path
from typing import Any
from unittest.mock import patch

from library import ingest
from scripted import entity, fact, plan
from standin_openai import StandinServer, is_compose_request
from typer.testing import CliRunner

from wikic.cli import app
from wikic.cli._progress import ProgressDisplay
from wikic.ingest.pipeline import IngestOptions
from wikic.progress import ProgressEvent
from wikic.vault.init import init_vault

LONG = "# Long notes\n\n" + "".join(
    f"Paragraph {n}: the Kestrel team wrote down one more observation about site {n}.\n\n" for n in range(160)
)
SHORT = "# Short note\n\nOne line about the site.\n"


def _setup(tmp_path: Path, server: StandinServer) -> tuple[Path, list[str]]:
    root = tmp_path / "wiki"
    init_vault(root)
    (root / "wikic.toml").write_text(
        f'[llm]\nbase_url = "{server.base_url}"\nmodel = "standin-model"\n'
        "timeout = 10\nmax_retries = 0\nconcurrency = 2\n\n"
        '[ingest]\nchunk_tokens = 400\nchunk_overlap_tokens = 0\n\n[embedding]\nprovider = "static"\n',
        encoding="utf-8",
    )
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "long.md").write_text(LONG, encoding="utf-8")
    (inbox / "short.md").write_text(SHORT, encoding="utf-8")
    # every chunk names the same thing (a plan of nothing for a text with names in it is asked again)
    observation = fact("The Kestrel team wrote down one more observation.",
                       "the Kestrel team wrote down one more observation")
    server.route = lambda body: plan("Notes.", [entity("Kestrel", "other", "A team.", [observation])])
    return root, [str(inbox / "long.md"), str(inbox / "short.md")]


def test_extraction_reports_every_answered_chunk_then_writes_and_indexing(
    tmp_path: Path, standin: StandinServer
) -> None:
    root, sources = _setup(tmp_path, standin)
    events: list[ProgressEvent] = []
    # The stand-in answers the third extraction request (and each after it) only once the count shows the
    # replies before the one in flight beside it: a busy machine cannot make every chunk arrive between two
    # reports, and a run that reports only at the end waits out the timeout, then fails below.
    seen = threading.Condition()
    arrived = itertools.count()
    answer = standin.route
    assert answer is not None

    def paced(body: dict[str, Any]) -> Any:
        if not is_compose_request(body):
            wanted = next(arrived) - 1
            with seen:
                seen.wait_for(lambda: max((e.done for e in events if e.stage == "extract"), default=0) >= wanted,
                              timeout=10)
        return answer(body)

    def observe(event: ProgressEvent) -> None:
        with seen:
            events.append(event)
            seen.notify_all()

    standin.route = paced
    report = ingest(root, IngestOptions(inputs=sources), progress=observe)
    assert report.exit_code() == 0

    extract = [e for e in events if e.stage == "extract"]
    # one call per chunk (the long source was split); the pages written are composed after, beside the count
    chunks = len([r for r in standin.chat_requests() if not is_compose_request(r.body)])
    assert chunks >= 4
    assert (extract[0].done, extract[0].total, extract[0].unit) == (0, chunks, "chunks")
    # chunk counts and reply tokens only grow, and each event says something new (a count or tokens arrived)
    counts = [(e.done, e.tokens) for e in extract]
    assert counts == sorted(counts) and len(set(counts)) == len(counts) and extract[-1].done == chunks, (counts, chunks)
    assert [e.tokens for e in extract] == sorted(e.tokens for e in extract) and extract[-1].tokens > 0
    assert len({e.done for e in extract}) >= 3  # reported while the chunks come in, not once at the end
    writes = [e for e in events if e.stage == "write"]
    assert [(e.done, e.total, e.unit) for e in writes] == [(1, 2, "sources"), (2, 2, "sources")]
    embeds = [e for e in events if e.stage == "embed"]
    assert embeds and embeds[-1].done == embeds[-1].total and embeds[-1].share == 1.0
    assert [e.stage for e in events].index("write") > [e.stage for e in events].index("extract")
    assert not any(e.stage == "leftover" for e in events)  # its own index work is no leftover


def test_on_a_pipe_json_gets_the_report_alone_and_text_a_line_per_source_compiled(
    tmp_path: Path, standin: StandinServer
) -> None:
    root, sources = _setup(tmp_path, standin)
    result = CliRunner().invoke(app, ["ingest", *sources, "--vault", str(root), "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["totals"]["compiled"] == 2  # the whole of stdout is one JSON document
    assert result.stderr == ""

    (tmp_path / "inbox" / "short.md").write_text(SHORT + "A second line.\n", encoding="utf-8")
    text = CliRunner().invoke(app, ["ingest", str(tmp_path / "inbox" / "short.md"), "--vault", str(root)])
    assert text.exit_code == 0, text.stderr
    # a log gets a plain line as each source is compiled (stderr), then the report (stdout)
    assert re.fullmatch(r"\[1/1\] raw/articles/short[^ ]*\.md compiled\n"
                        r"search index: 1/1 files, \d+ drawers embedded\n", text.stderr), text.stderr
    assert text.stdout.startswith("raw/articles/short") and "\r" not in text.stdout + text.stderr


def test_off_a_terminal_the_model_s_progress_is_a_line_every_half_minute() -> None:
    now = [0.0]
    lines: list[str] = []
    display = ProgressDisplay(json_output=False, clock=lambda: now[0])
    assert display.lines and not display.bars  # the test's stderr is no terminal
    with patch("wikic.cli._progress.say", lambda text, err=False: lines.append(text)):
        for second, done in ((0, 0), (10, 1), (29, 1), (31, 2), (45, 3), (62, 3), (70, 4)):
            now[0] = float(second)
            display(ProgressEvent("extract", done, 4, "chunks", tokens=100 * done))
        display(ProgressEvent("write", 1, 1, "sources", note="raw/articles/a.md"))
    assert lines == ["asking the model: 2/4 chunks, 200 tokens received",
                     "asking the model: 3/4 chunks, 300 tokens received", "[1/1] raw/articles/a.md compiled"]


def test_index_on_a_pipe_prints_its_last_count_then_the_report(tmp_path: Path, standin: StandinServer) -> None:
    root, _ = _setup(tmp_path, standin)
    (root / "raw/articles/long.md").write_text(LONG, encoding="utf-8")
    result = CliRunner().invoke(app, ["index", "--vault", str(root), "--json"], catch_exceptions=False)
    assert result.exit_code == 0
    assert json.loads(result.stdout)["drawers_embedded"] > 0 and result.stderr == ""
    text = CliRunner().invoke(app, ["index", "--rebuild", "--vault", str(root)], catch_exceptions=False)
    assert re.fullmatch(r"search index: (\d+)/\1 files, \d+ drawers embedded\n", text.stderr), text.stderr
    assert text.stdout.startswith("added (")


def test_a_source_s_count_is_of_the_sources_of_the_run_not_of_the_files_refused_before(
    tmp_path: Path, standin: StandinServer
) -> None:
    root, _ = _setup(tmp_path, standin)
    (root / "raw/notes").mkdir(parents=True, exist_ok=True)
    (root / "raw/notes/empty.md").write_text("", encoding="utf-8")  # refused and set aside: no source of the run
    (root / "raw/notes/short.md").write_text(SHORT, encoding="utf-8")
    events: list[ProgressEvent] = []
    report = ingest(root, IngestOptions(inputs=[], use_palace=False, lint_after=False, compose=False),
                    progress=events.append)
    assert [(s.raw_path, s.status) for s in report.sources] == [
        ("raw/notes/empty.md", "failed"), ("raw/notes/short.md", "compiled")]
    assert [(e.done, e.total) for e in events if e.stage == "write"] == [(1, 1)]
