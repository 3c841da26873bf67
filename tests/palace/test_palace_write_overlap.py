"""A palace write cuts the next files while chromadb stores the batch before them, and writes a batch's
manifest rows only once chromadb holds it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from library import open_palace, sync

from wikic.errors import PalaceError
from wikic.palace import palace as palace_module, search
from wikic.palace.chroma import VectorStore

PAGES = {f"entities/page-{i}.md": f"# Page {i}\n\nPage {i} is about widget number {i} and its rig.\n"
         for i in range(4)}


def test_the_next_files_are_cut_while_chromadb_stores_a_batch(
    make_vault: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault: Path = make_vault(PAGES)
    monkeypatch.setattr(palace_module, "WRITE_BATCH", 1)  # each file is a batch
    files = len(PAGES)
    cut_meanwhile: list[bool] = []
    planned = threading.Condition()
    counts = {"cut": 0, "stored": 0}
    plan_file = palace_module.Palace._plan_file
    add = VectorStore.add

    def plan(self: Any, *args: Any, **kwargs: Any) -> Any:
        with planned:
            counts["cut"] += 1
            planned.notify_all()
        return plan_file(self, *args, **kwargs)

    def slow_add(self: VectorStore, *args: Any, **kwargs: Any) -> None:
        counts["stored"] += 1
        if counts["stored"] < files:
            # the batch of file n is being stored: file n + 1 is cut meanwhile, or only after this returns
            # when the two are done one after the other (then this waits in vain)
            with planned:
                cut_meanwhile.append(planned.wait_for(lambda: counts["cut"] > counts["stored"], timeout=5))
        add(self, *args, **kwargs)

    monkeypatch.setattr(palace_module.Palace, "_plan_file", plan)
    monkeypatch.setattr(VectorStore, "add", slow_add)
    monkeypatch.setattr(palace_module, "open_store", VectorStore)
    report = sync(vault)
    assert len(report.added) == files and cut_meanwhile == [True] * (files - 1)
    with open_palace(vault) as palace:
        assert search(palace, "widget number 2", k=1)[0].path == "entities/page-2.md"


def test_a_batch_chromadb_failed_to_store_is_not_in_the_manifest(
    make_vault: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault: Path = make_vault(PAGES)
    monkeypatch.setattr(palace_module, "WRITE_BATCH", 1)
    monkeypatch.setattr(palace_module, "open_store", VectorStore)
    add = VectorStore.add
    calls: list[int] = []
    handed = threading.Semaphore(0)
    submit = palace_module._Writes.submit

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        handed.release()
        return submit(self, *args, **kwargs)

    def fails_on_the_second(self: VectorStore, *args: Any, **kwargs: Any) -> None:
        calls.append(1)
        if len(calls) == 2:
            for _ in range(3):  # the third batch is handed over before the second fails
                handed.acquire(timeout=5)
            raise PalaceError("cannot write drawers to the palace: disk full")
        add(self, *args, **kwargs)

    monkeypatch.setattr(palace_module._Writes, "submit", counted)
    monkeypatch.setattr(VectorStore, "add", fails_on_the_second)
    with pytest.raises(PalaceError, match="disk full"):
        sync(vault)
    assert len(calls) == 2  # no batch is written after the one that failed
    with open_palace(vault) as palace:
        assert sorted(palace.manifest.files()) == ["entities/page-0.md"]
        assert palace.manifest.get_meta("dirty") == "1"
    monkeypatch.setattr(VectorStore, "add", add)
    again = sync(vault)
    assert sorted(again.added) == sorted(PAGES)[1:] and again.drawers_embedded == 3
