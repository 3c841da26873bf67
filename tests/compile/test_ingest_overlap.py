"""Compiling while the model still works: each source is compiled, in the run's order, once its plan and
every earlier source's are in, while later sources are still being extracted; the run writes exactly what
compiling everything after extraction writes (pages, index.md, log.md, ledgers, journal, report). Work
done early is thrown away when the vault changed meanwhile or Ctrl-C cut it, and the reply cache makes the
run's replies durable in batches on the waiting thread, never on the threads that call the model."""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from fake_llm import FakeLLM
from library import ingest
from scripted import SOURCES, route
from testkit import init_wiki, llm_toml

from wikic.compile.compiler import Compiler
from wikic.ingest.pipeline import IngestOptions, IngestReport
from wikic.llm.cache import ReplyCache
from wikic.pages import journal

TODAY = dt.date(2026, 12, 1)
# where capture puts each source (under its own name)
ORDER = ["openai-and-gpt-4.md", "notes-on-openai.md", "retrieval-and-generation.md"]  # the run's order
RAW_NAMES = {f"raw/articles/{name}": name for name in ORDER}
# the run's order is openai, history, rag; the model answers openai at once, rag next, history last
DELAYS = {"openai-and-gpt-4.md": 0.0, "notes-on-openai.md": 0.8, "retrieval-and-generation.md": 0.3}


def _which(messages: Sequence[Mapping[str, str]]) -> str:
    user = messages[-1]["content"]
    if "non-profit" in user:
        return "notes-on-openai.md"
    return "retrieval-and-generation.md" if "Retrieval-augmented" in user else "openai-and-gpt-4.md"


class Timeline:
    """When each source's reply left the stand-in model and when the compiler took each source."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, float]] = []
        self._lock = threading.Lock()

    def add(self, what: str, name: str) -> None:
        with self._lock:
            self.events.append((what, name, time.monotonic()))

    def at(self, what: str, name: str) -> float:
        return next(t for w, n, t in self.events if w == what and n == name)

    def compiled(self) -> list[str]:
        return [n for w, n, _ in self.events if w == "compile"]


def _model(timeline: Timeline, delays: Mapping[str, float] = DELAYS,
           during: Callable[[str], None] | None = None) -> FakeLLM:
    def reply(messages: Sequence[Mapping[str, str]]) -> Any:
        name = _which(messages)
        time.sleep(delays[name])
        if during is not None:
            during(name)
        timeline.add("reply", name)
        return route({"messages": messages})

    return FakeLLM().respond_with(reply)


@pytest.fixture
def timeline(monkeypatch: pytest.MonkeyPatch) -> Timeline:
    """Records each source the compiler takes (by its raw file's name)."""
    found = Timeline()
    real = Compiler.compile

    def compile_(self: Compiler, plan: Any, raw_path: str) -> Any:
        found.add("compile", RAW_NAMES.get(raw_path, raw_path))
        return real(self, plan, raw_path)

    monkeypatch.setattr(Compiler, "compile", compile_)
    return found


@pytest.fixture
def journals(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every journal a run commits, without its random run id."""
    found: list[dict[str, Any]] = []
    real = journal.Journal.commit

    def commit(self: journal.Journal, root: Path, page_types: list[str]) -> list[str]:
        found.append({k: v for k, v in dataclasses.asdict(self).items() if k != "run"})
        return real(self, root, page_types)

    monkeypatch.setattr(journal.Journal, "commit", commit)
    return found


@pytest.fixture
def nothing_early(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], None]]:
    """Call it to compile everything under the lock after extraction, as runs did before compiling early."""
    from wikic.ingest import session as session_module

    yield lambda: monkeypatch.setattr(session_module.EarlyCompile, "advance", lambda self, results: None)


def _vault(tmp_path: Path, name: str, concurrency: int = 3) -> tuple[Path, list[str]]:
    root = init_wiki(tmp_path / name, toml=llm_toml(strategy="single", concurrency=concurrency))
    inbox = tmp_path / f"inbox-{name}"
    inbox.mkdir()
    for file, text in SOURCES.items():
        (inbox / file).write_text(text, encoding="utf-8")
    return root, [str(inbox / file) for file in ORDER]


def _run(root: Path, inputs: list[str], llm: FakeLLM) -> IngestReport:
    return ingest(root, IngestOptions(inputs=inputs, use_palace=False, lint_after=False, today=TODAY), llm=llm)


def _files(root: Path) -> dict[str, bytes]:
    """The vault's files and the compile's ledgers: all but caches, locks and capture's ledger (its times)."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        left_out = rel.startswith((".wikic/cache/", ".wikic/sources.json")) or rel.endswith(".lock")
        if path.is_file() and not left_out:
            out[rel] = path.read_bytes()
    return out


def test_the_first_source_is_compiled_before_the_last_reply_and_in_the_runs_order(
    tmp_path: Path, timeline: Timeline
) -> None:
    root, inputs = _vault(tmp_path, "wiki")
    report = _run(root, inputs, _model(timeline))
    assert [s.status for s in report.sources] == ["compiled"] * 3
    assert [RAW_NAMES[s.raw_path] for s in report.sources] == ORDER
    assert timeline.compiled() == ORDER  # rag's plan came first, and waited
    assert timeline.at("compile", "openai-and-gpt-4.md") < timeline.at("reply", "notes-on-openai.md")
    assert timeline.at("compile", "notes-on-openai.md") > timeline.at("reply", "notes-on-openai.md")


def test_compiling_early_writes_what_compiling_after_extraction_writes(
    tmp_path: Path, timeline: Timeline, journals: list[dict[str, Any]], nothing_early: Callable[[], None]
) -> None:
    early_root, inputs = _vault(tmp_path, "early")
    early = _run(early_root, inputs, _model(timeline))
    assert timeline.at("compile", "openai-and-gpt-4.md") < timeline.at("reply", "notes-on-openai.md")

    nothing_early()
    late_root, inputs = _vault(tmp_path, "late")
    late = _run(late_root, inputs, _model(Timeline()))

    assert _untimed(early) == _untimed(late)
    assert _files(early_root) == _files(late_root)
    assert len(journals) == 2 and journals[0] == journals[1]
    assert "[[retrieval-augmented-generation]]" in (early_root / "index.md").read_text(encoding="utf-8")


def test_a_change_to_the_vault_during_extraction_is_compiled_as_after_extraction(
    tmp_path: Path, timeline: Timeline, nothing_early: Callable[[], None]
) -> None:
    """A page a person writes while the model still works: what was compiled early read the vault before
    it, so it is compiled again, and the run writes what compiling after extraction writes."""

    def person_writes_a_page(root: Path) -> Callable[[str], None]:
        def during(name: str) -> None:
            if name == "notes-on-openai.md":  # after openai.md was compiled early
                (root / "concepts/gpt-4.md").write_text(
                    "---\ntitle: GPT-4\ntype: concept\ntags: []\nsources: []\n---\n\n# GPT-4\n\nMy notes.\n",
                    encoding="utf-8",
                )
        return during

    early_root, inputs = _vault(tmp_path, "early")
    early = _run(early_root, inputs, _model(timeline, during=person_writes_a_page(early_root)))
    # compiled early, then all again under the lock
    assert timeline.compiled() == ORDER * 2

    nothing_early()
    late_root, inputs = _vault(tmp_path, "late")
    late = _run(late_root, inputs, _model(Timeline(), during=person_writes_a_page(late_root)))
    assert _untimed(early) == _untimed(late)
    assert _files(early_root) == _files(late_root)
    assert "My notes." in (early_root / "concepts/gpt-4.md").read_text(encoding="utf-8")


def test_ctrl_c_while_compiling_early_keeps_what_finished_and_compiles_it_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = Compiler.compile
    calls: list[str] = []
    llm = _model(Timeline(), delays=dict(zip(ORDER, (0.0, 3.0, 3.0), strict=True)))

    def compile_(self: Compiler, plan: Any, raw_path: str) -> Any:
        calls.append(raw_path)
        if len(calls) == 1:
            deadline = time.monotonic() + 5
            while len(llm.history) < 3 and time.monotonic() < deadline:
                time.sleep(0.01)  # the two other calls are in flight
            raise KeyboardInterrupt  # Ctrl-C lands in the middle of the first source's early compile
        return real(self, plan, raw_path)

    monkeypatch.setattr(Compiler, "compile", compile_)
    root, inputs = _vault(tmp_path, "wiki")
    report = _run(root, inputs, llm)
    assert report.interrupted == "extract" and report.exit_code() == 130
    assert [s.status for s in report.sources] == ["compiled", "interrupted", "interrupted"]
    first = report.sources[0].raw_path
    assert calls == [first, first]  # cut early, then compiled once under the lock
    log = (root / "log.md").read_text(encoding="utf-8")
    assert log.count("| ingest |") == 1 and f"[[sources/{first.rsplit('/', 1)[-1][:-3]}\\|" in log


def test_a_source_that_fails_early_fails_alone(tmp_path: Path, timeline: Timeline) -> None:
    def reply(messages: Sequence[Mapping[str, str]]) -> Any:
        if _which(messages) == "notes-on-openai.md":
            return KeyError("subjects")  # a bug met by one source's reply
        return route({"messages": messages})

    root, inputs = _vault(tmp_path, "wiki")
    report = _run(root, inputs, FakeLLM().respond_with(reply))
    assert [s.status for s in report.sources] == ["compiled", "failed", "compiled"]
    assert (root / ".wikic/compiled.json").is_file() and "KeyError" in str(report.sources[1].error)


def test_a_token_budget_still_stops_the_run_and_what_ran_is_compiled(tmp_path: Path, timeline: Timeline) -> None:
    root, inputs = _vault(tmp_path, "wiki", concurrency=1)
    report = ingest(root, IngestOptions(inputs=inputs, use_palace=False, lint_after=False, today=TODAY,
                                        max_tokens=1), llm=_model(timeline))
    assert [s.status for s in report.sources] == ["compiled", "over-budget", "over-budget"]
    assert timeline.compiled() == ["openai-and-gpt-4.md"] and report.exit_code() == 1


# -- the reply cache's fsyncs -------------------------------------------------------------------------------


@pytest.fixture
def fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, bool]]:
    """(inode, on the main thread) of every fsync the atomic writes make."""
    found: list[tuple[int, bool]] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        found.append((os.fstat(fd).st_ino, threading.current_thread() is threading.main_thread()))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return found


def test_a_batched_cache_writes_a_reply_at_once_and_syncs_it_later(
    tmp_path: Path, fsyncs: list[tuple[int, bool]]
) -> None:
    cache = ReplyCache(tmp_path / "cache", batched=True)
    cache.put("ab" + "0" * 62, {"x": 1}, model="m", schema_name="s")
    cache.put("ab" + "1" * 62, {"x": 2}, model="m", schema_name="s")
    assert cache.get("ab" + "0" * 62) == {"x": 1} and not fsyncs  # there for anyone, not flushed yet
    cache.sync()
    inodes = {(tmp_path / "cache/ab" / f"ab{c * 62}.json").stat().st_ino for c in "01"}
    assert [i for i, _ in fsyncs[:2]] == sorted(inodes, key=[i for i, _ in fsyncs].index)
    assert len(fsyncs) == 3  # both files, and their folder once
    cache.sync()
    assert len(fsyncs) == 3


def test_an_ingest_makes_every_reply_durable_from_the_waiting_thread(
    tmp_path: Path, fsyncs: list[tuple[int, bool]], timeline: Timeline
) -> None:
    root, inputs = _vault(tmp_path, "wiki")
    _run(root, inputs, _model(timeline, delays=dict(zip(ORDER, (0.0, 0.2, 0.1), strict=True))))
    replies = {p.stat().st_ino for p in (root / ".wikic/cache/llm").rglob("*.json")}
    assert len(replies) == 3
    synced = {inode for inode, _ in fsyncs}
    assert replies <= synced
    assert all(main for inode, main in fsyncs if inode in replies)  # never on a thread that calls the model


def _untimed(report: IngestReport) -> dict[str, Any]:
    """The report as data, without how long composing waited for the model (the one figure that is a time)."""
    data = report.to_dict()
    if data.get("composed"):
        data["composed"] = {k: v for k, v in data["composed"].items() if k != "seconds"}
    return data
