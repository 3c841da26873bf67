"""Crash safety: `wikic ingest` and `wikic index --rebuild` killed with SIGKILL anywhere.

After a kill every file in the vault is whole (old or new, never half), raw/ holds each source once and
unchanged; re-running the same command finishes the work: the same pages, byte for byte, as a run that
was never killed, index.md and log.md matching them with one log row per source, the ledgers agreeing
with log.md, and the palace holding exactly the vault's files.

Ways of killing:
- at every file-system step of an ingest (a forked child SIGKILLs itself before its N-th rename, link or
  unlink): each point where the vault's files change, deterministically;
- at random moments of a real `python -m wikic ingest` process (palace included), from the outside;
- at random moments of `wikic index --rebuild`;
- a plain `wikic index` of an edited vault, at each of the palace's write steps (a forked child SIGKILLs
  itself as it calls the step: between chromadb's writes and the manifest's, among others);
- the palace's store process, SIGKILLed at random moments of a plain `wikic index` while chromadb writes.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import gkit
from standin_openai import StandinServer
from testkit import test_seed

N_SOURCES = 4


def test_ingest_killed_at_every_write_step_is_finished_by_the_next_run(
    tmp_path: Path, standin: StandinServer, worker: gkit.Worker
) -> None:
    template = gkit.make_vault(tmp_path / "template", standin.base_url)
    inputs = gkit.sources(tmp_path / "inbox", N_SOURCES)

    def argv(root: Path) -> list[str]:
        return ["ingest", *inputs, "--vault", str(root), "--no-palace", "--json"]

    reference = tmp_path / "reference"
    shutil.copytree(template, reference)
    done = worker.run(argv(reference), None, tmp_path / "reference.log")
    assert done["exit"] == 0, (tmp_path / "reference.log").read_text()
    steps = done["steps"]
    assert steps and steps > 10
    assert gkit.consistency_problems(reference, palace=False) == []
    expected = gkit.page_texts(reference)
    expected_rows = {t for t, _ in gkit.log_rows(reference)}
    assert len(expected_rows) == N_SOURCES and len(expected) >= 5

    seed = test_seed()
    points = gkit.kill_points(steps, seed, 8)
    for n in points:
        root = tmp_path / f"kill-{n}"
        shutil.copytree(template, root)
        log = tmp_path / f"kill-{n}.log"
        killed = worker.run(argv(root), n, log)
        where = f"killed before step {n} of {steps} (seed {seed})"
        assert killed["killed"], f"{where}: the run ended on its own: {log.read_text()[-2000:]}"
        assert gkit.after_kill_problems(root) == [], where

        again = worker.run(argv(root), None, log)
        assert again["exit"] == 0, f"{where}: the re-run failed: {log.read_text()[-3000:]}"
        assert gkit.consistency_problems(root, palace=False) == [], where
        assert gkit.page_texts(root) == expected, f"{where}: pages differ from a run that was never killed"
        assert {t for t, _ in gkit.log_rows(root)} == expected_rows, where
        shutil.rmtree(root)


def _kill(proc: subprocess.Popen[str]) -> bool:
    """SIGKILL `proc` if it is still running; returns whether it was."""
    running = proc.poll() is None
    if running:
        os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    return running


def _wait_until(condition: Callable[..., bool], proc: subprocess.Popen[str], timeout: float = 120) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if proc.poll() is not None or time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_ingest_process_killed_at_random_moments(tmp_path: Path) -> None:
    """A real `python -m wikic ingest` (palace and lint included) SIGKILLed from outside: after the k-th
    model request, plus a random pause, so kills land in extraction, compile, writes, palace and lint."""
    from typer.testing import CliRunner

    from wikic.cli import app

    with StandinServer(latency=0.3) as server:
        server.route = gkit.route
        template = gkit.make_vault(tmp_path / "template", server.base_url)
        inputs = gkit.sources(tmp_path / "inbox", N_SOURCES)

        def args(root: Path) -> list[str]:
            return ["ingest", *inputs, "--vault", str(root), "--json"]

        reference = tmp_path / "reference"
        shutil.copytree(template, reference)
        first = CliRunner().invoke(app, args(reference))
        assert first.exit_code == 0, first.output
        assert gkit.consistency_problems(reference) == []
        expected = gkit.page_texts(reference)

        seed = test_seed()
        rng = random.Random(seed)
        kills = 0
        for i in range(gkit.count(2, 25)):
            root = tmp_path / f"run-{i}"
            shutil.copytree(template, root)
            # the first kill comes soon after its request, so at least one lands while the run is still going
            # (a run can finish well within the 2.5 s that the others may wait)
            k, pause = rng.randint(1, N_SOURCES), rng.uniform(0, 0.2 if i == 0 else 2.5)
            where = f"killed {pause:.2f} s after model request {k} (seed {seed})"
            before = len(server.chat_requests())
            proc = gkit.popen(*args(root))
            _wait_until(lambda before=before, k=k: len(server.chat_requests()) - before >= k, proc)
            time.sleep(pause)
            alive = proc.poll() is None
            kills += _kill(proc)
            assert gkit.after_kill_problems(root) == [], where
            state = {"killed": alive, "compiled": sorted(gkit.compiled_sources(root)),
                     "journal": (root / ".wikic" / "journal.json").exists(), "pages": gkit.page_paths(root)}

            again = CliRunner().invoke(app, args(root))  # the same command again
            assert again.exit_code == 0, f"{where}: {again.output[-3000:]}"
            assert gkit.consistency_problems(root) == [], where
            assert gkit.page_texts(root) == expected, f"{where}: {state} {again.stdout[-3000:]}"
            # and once more: nothing left to do, no model call, nothing written twice
            calls = len(server.chat_requests())
            third = CliRunner().invoke(app, args(root))
            assert third.exit_code == 0 and len(server.chat_requests()) == calls, where
            assert {s["status"] for s in json.loads(third.stdout)["sources"]} == {"unchanged"}, where
            shutil.rmtree(root)
        assert kills >= 1, "no run was still running when its kill came"


def test_index_rebuild_killed_at_random_moments(tmp_path: Path, standin: StandinServer) -> None:
    """`wikic index --rebuild` SIGKILLed at a random moment after it started writing the palace; the same
    command (or a plain `wikic index`) then leaves a palace that matches the vault, and search works."""
    from library import ingest, sync
    from typer.testing import CliRunner

    from wikic.cli import app
    from wikic.ingest.pipeline import IngestOptions

    template = gkit.make_vault(tmp_path / "template", standin.base_url)
    report = ingest(template, IngestOptions(inputs=gkit.sources(tmp_path / "inbox", 3 * N_SOURCES), lint_after=False))
    assert not report.failed
    started = time.monotonic()
    sync(template, rebuild=True)
    window = 2 * (time.monotonic() - started) + 0.2
    assert gkit.palace_problems(template) == []
    lexical = Path(".wikic/palace/lexical.sqlite3")

    seed = test_seed()
    rng = random.Random(seed)
    for i in range(gkit.count(2, 20)):
        root = tmp_path / f"index-{i}"
        shutil.copytree(template, root)
        stamp = (root / lexical).stat().st_mtime_ns
        pause = rng.uniform(0, window)
        where = f"index --rebuild killed {pause:.2f} s into its writes (seed {seed})"
        proc = gkit.popen("index", "--rebuild", "--vault", str(root))
        written = root / lexical
        _wait_until(lambda written=written, stamp=stamp: written.exists() and written.stat().st_mtime_ns != stamp, proc)
        time.sleep(pause)
        _kill(proc)
        # a search meanwhile answers or fails cleanly, never with a traceback
        search = CliRunner().invoke(app, ["search", "widget", "--json", "--vault", str(root)])
        assert search.exit_code in (0, 1, 2) and (
            search.exception is None or isinstance(search.exception, SystemExit)
        ), where
        # the same command again repairs it; so does a plain `wikic index`
        command = ["index", "--rebuild"] if i % 2 == 0 else ["index"]
        again = CliRunner().invoke(app, [*command, "--json", "--vault", str(root)])
        assert again.exit_code == 0, f"{where}: {again.output[-3000:]}"
        assert gkit.palace_problems(root) == [], where
        hits = json.loads(
            CliRunner().invoke(app, ["search", "Acme Corp widgets", "--json", "--vault", str(root)]).stdout
        )
        assert any(h["path"] == "entities/acme-corp.md" for h in hits["results"]), where
        shutil.rmtree(root)


def _temp_files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob(".*.tmp") if ".wikic" not in p.parts)


def test_lint_fix_killed_at_every_write_step_leaves_no_temporary_file_after_the_next_writer(
    tmp_path: Path, standin: StandinServer, worker: gkit.Worker
) -> None:
    template = gkit.make_vault(tmp_path / "template", standin.base_url)
    done = worker.run(["ingest", *gkit.sources(tmp_path / "inbox", 2), "--vault", str(template), "--no-palace"],
                      None, tmp_path / "ingest.log")
    assert done["exit"] == 0, (tmp_path / "ingest.log").read_text()
    (template / "entities" / "unlisted.md").write_text(
        "---\ntitle: Unlisted\ncreated: 2026-11-01\nupdated: 2026-11-01\ntype: entity\ntags: []\nsources: []\n---\n"
        "# Unlisted\n\nSee [[acme-corp]].\n", encoding="utf-8")
    fix = ["lint", "--fix", "--vault", str(template)]
    reference = tmp_path / "reference"
    shutil.copytree(template, reference)
    steps = worker.run([*fix[:-1], str(reference)], None, tmp_path / "fix.log")["steps"]
    assert steps, (tmp_path / "fix.log").read_text()
    left_behind = 0
    for n in range(1, steps + 1):
        root = tmp_path / f"fix-kill-{n}"
        shutil.copytree(template, root)
        assert worker.run([*fix[:-1], str(root)], n, tmp_path / "fix.log")["killed"]
        left_behind += bool(_temp_files(root))
        worker.run([*fix[:-1], str(root)], None, tmp_path / "fix.log")
        assert _temp_files(root) == [], f"killed before step {n} of {steps}"
        assert (root / "index.md").read_text(encoding="utf-8") == (reference / "index.md").read_text(encoding="utf-8")
        shutil.rmtree(root)
    assert left_behind, "no kill point left a temporary file: the test no longer tests anything"


def _palace_template(tmp_path: Path, base_url: str) -> Path:
    """An ingested vault with its palace, and a note that the edit below deletes."""
    from library import ingest, sync

    from wikic.ingest.pipeline import IngestOptions

    template = gkit.make_vault(tmp_path / "template", base_url)
    report = ingest(template, IngestOptions(inputs=gkit.sources(tmp_path / "inbox", 2 * N_SOURCES), lint_after=False))
    assert not report.failed
    (template / "inbox" / "old-note.md").write_text("# Old note\n\nThe old rig is retired.\n", encoding="utf-8")
    sync(template)
    assert gkit.palace_problems(template) == []
    return template


def _edit(root: Path, new_notes: int = 1) -> None:
    """What a day of work does to a vault: a page's section rewritten (new, kept and stale drawers), new
    notes, a note deleted."""
    page = root / "entities" / "acme-corp.md"
    text = page.read_text(encoding="utf-8")
    # the words change in place; the paragraph put under "Key facts" moves every later drawer down, so the
    # kept ones (Relations) have their place rewritten
    edited = text.replace("Acme Corp builds widget", "Acme Corp, a maker of rigs since spring, builds widget")
    edited = edited.replace("## Key facts\n", "## Key facts\n\nAs the notes give them, one by one.\n", 1)
    assert "As the notes give them" in edited
    page.write_text(edited, encoding="utf-8")
    assert page.read_text(encoding="utf-8") != text
    for i in range(new_notes):
        (root / "inbox" / f"new-note-{i}.md").write_text(
            f"# New note {i}\n\n" + "".join(f"## Part {j}\n\nRig {i} is calibrated by method {j}.\n\n"
                                            for j in range(6)), encoding="utf-8")
    (root / "inbox" / "old-note.md").unlink()


def _converged(root: Path, where: str) -> None:
    """The palace matches the vault drawer for drawer, and one more `wikic index` has nothing to do."""
    from typer.testing import CliRunner

    from wikic.cli import app

    assert gkit.palace_problems(root) == [], where
    again = CliRunner().invoke(app, ["index", "--json", "--vault", str(root)])
    assert again.exit_code == 0, f"{where}: {again.output[-3000:]}"
    report = json.loads(again.stdout)
    assert (report["added"], report["updated"], report["removed"], report["drawers_embedded"]) == ([], [], [], 0), where


# Where a plain `wikic index` of the edit above writes, in order: the deleted note's drawers leave chromadb,
# then the manifest; each batch of files is written to chromadb (new drawers, moved ones, stale ones), then
# to the manifest in one transaction (files, then vector copies); then the generation is marked.
INDEX_STEPS = [
    ("wikic.palace.store_process:IsolatedStore.delete", 1),  # before the deleted note leaves chromadb
    ("wikic.palace.manifest:Manifest.remove_file", 1),  # chromadb has dropped it, the manifest not yet
    ("wikic.palace.store_process:IsolatedStore.add", 1),  # before any new drawer
    ("wikic.palace.store_process:IsolatedStore.update_metadata", 1),  # new drawers in, kept ones not updated
    ("wikic.palace.store_process:IsolatedStore.delete", 2),  # stale drawers still in chromadb
    ("wikic.palace.manifest:Manifest.put_file", 1),  # every chromadb write done, the manifest's not begun
    ("wikic.palace.manifest:Manifest.put_vectors", 1),  # inside the manifest's transaction
    ("wikic.palace.store_process:IsolatedStore.mark_written", 1),  # both stores written, no new generation
]


def test_index_killed_at_each_palace_write_step_converges_at_the_next_index(
    tmp_path: Path, standin: StandinServer, worker: gkit.Worker
) -> None:
    template = _palace_template(tmp_path, standin.base_url)
    for step, call in INDEX_STEPS:
        root = tmp_path / f"index-{step.rsplit('.', 1)[-1]}-{call}"
        shutil.copytree(template, root)
        _edit(root)
        log = tmp_path / f"{root.name}.log"
        where = f"index killed at call {call} of {step}"
        killed = worker.run(["index", "--json", "--vault", str(root)], call, log, kill_in=step)
        assert killed["killed"], f"{where}: the run ended on its own: {log.read_text()[-2000:]}"
        again = worker.run(["index", "--json", "--vault", str(root)], None, log)
        assert again["exit"] == 0, f"{where}: the next index failed: {log.read_text()[-3000:]}"
        _converged(root, where)
        shutil.rmtree(root)


def test_index_killed_while_its_store_process_writes_waits_for_it_next_time(
    tmp_path: Path, standin: StandinServer, worker: gkit.Worker
) -> None:
    """`wikic index` SIGKILLed a second into a long chromadb write: its store process goes on with that call,
    and the next `wikic index` (started at once) waits for it rather than writing the palace beside it."""
    template = _palace_template(tmp_path, standin.base_url)
    root = tmp_path / "orphan"
    shutil.copytree(template, root)
    _edit(root)
    (root / "raw" / "long-log.md").write_text("# Log\n\n" + "".join(
        f"## Entry {i}\n\nEntry {i}: rig {i % 13} measured widget {i % 97}.\n\n" for i in range(4000)),
        encoding="utf-8")
    log = tmp_path / "orphan.log"
    killed = worker.run(["index", "--vault", str(root)], 1, log, kill_in="wikic.palace.store_process:IsolatedStore.add",
                        kill_delay=1.0)
    assert killed["killed"], log.read_text()[-2000:]
    lock = root / ".wikic" / "palace" / "writing.lock"
    orphan = int(lock.read_text() or "0")
    assert orphan and Path(f"/proc/{orphan}").exists(), "the store process was not writing when its writer died"
    again = worker.run(["index", "--vault", str(root)], None, log)
    assert again["exit"] == 0, log.read_text()[-3000:]
    assert not Path(f"/proc/{orphan}").exists() or "zombie" in Path(f"/proc/{orphan}/status").read_text()
    _converged(root, "index killed during a long chromadb write")


def _store_child(proc: subprocess.Popen[str]) -> int | None:
    """The pid of `proc`'s palace store process, once it runs."""
    try:
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
    except OSError:
        return None
    for pid in children:
        try:
            if b"store_process" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return int(pid)
        except OSError:
            continue
    return None


def test_index_with_its_store_process_killed_while_chromadb_writes_converges(
    tmp_path: Path, standin: StandinServer
) -> None:
    """The store process SIGKILLed at a random moment while chromadb writes the palace's files; the run
    sends its call again to a new store process or stops with an error, and the next `wikic index` leaves a
    palace that matches the vault (one that chromadb can no longer read is set aside and rebuilt)."""
    template = _palace_template(tmp_path, standin.base_url)
    timing = tmp_path / "timing"
    shutil.copytree(template, timing)
    _edit(timing, new_notes=300)  # 1,800 new drawers: chromadb also saves its HNSW files
    started = time.monotonic()
    assert gkit.run("index", "--vault", str(timing)).returncode == 0
    window = time.monotonic() - started

    seed = test_seed()
    rng = random.Random(seed)
    kills = 0
    for i in range(gkit.count(3, 20)):
        root = tmp_path / f"child-{i}"
        shutil.copytree(template, root)
        _edit(root, new_notes=300)
        proc = gkit.popen("index", "--vault", str(root))
        deadline, child = time.monotonic() + 120, None
        while child is None and proc.poll() is None and time.monotonic() < deadline:
            child = _store_child(proc)
            time.sleep(0.01)
        pause = rng.uniform(0.5, max(1.0, window))
        time.sleep(pause)
        where = f"store process killed {pause:.2f} s into index (seed {seed})"
        if child is not None and proc.poll() is None:
            try:
                os.kill(child, signal.SIGKILL)
                kills += 1
            except ProcessLookupError:
                pass
        _, err = proc.communicate(timeout=240)
        assert proc.returncode in (0, 1) and "Traceback" not in err, f"{where}: {err[-3000:]}"
        again = gkit.run("index", "--vault", str(root))
        assert again.returncode == 0, f"{where}: {again.stderr[-3000:]}"
        _converged(root, where)
        shutil.rmtree(root)
    assert kills >= 1, "no store process was still running when its kill came"
