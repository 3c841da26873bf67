"""Indexing reports its progress as events: the changed files are the work, a big file moves the bar as its
drawers are embedded, and an unchanged vault reports nothing."""

from __future__ import annotations

from pathlib import Path

from library import sync, update_paths

from wikic.palace.palace import EMBED_STEP
from wikic.progress import ProgressEvent

# One big raw source (many drawers) beside the small pages of the test vault.
BIG = "# Field notes\n\n" + "".join(
    f"## Day {n}\n\nThe crew measured site {n} at dawn and logged the tide, the wind and the water temperature.\n\n"
    for n in range(400)
)


def test_sync_reports_files_and_drawers_as_it_embeds(vault: Path) -> None:
    (vault / "raw/articles/field-notes.md").write_text(BIG, encoding="utf-8")
    events: list[ProgressEvent] = []
    report = sync(vault, progress=events.append)

    assert {e.stage for e in events} == {"embed"} and {e.unit for e in events} == {"files"}
    changed = len(report.added)
    assert events[0] == ProgressEvent("embed", 0, changed, "files", 0.0, 0)  # the work is known before it starts
    assert events[-1].done == events[-1].total == changed and events[-1].share == 1.0
    assert events[-1].drawers == report.drawers_embedded > 2 * EMBED_STEP
    shares = [e.share for e in events]
    assert shares == sorted(shares)
    drawers = [e.drawers for e in events]
    assert drawers == sorted(drawers)
    # while the big file is being embedded, the bar moves although no file is finished yet
    assert any(0 < e.share < 1 and e.done < e.total for e in events)
    assert len({e.drawers for e in events}) >= report.drawers_embedded // EMBED_STEP


def test_one_big_file_moves_by_its_drawers(vault: Path) -> None:
    sync(vault)
    (vault / "raw/articles/field-notes.md").write_text(BIG, encoding="utf-8")
    events: list[ProgressEvent] = []
    report = update_paths(vault, ["raw/articles/field-notes.md"], progress=events.append)
    assert report.added == ["raw/articles/field-notes.md"]
    partial = [e for e in events if e.done == 0 and 0 < e.share < 1]
    assert len(partial) >= report.drawers_embedded // EMBED_STEP - 1
    assert all(e.total == 1 for e in events) and events[-1].done == 1


def test_an_unchanged_vault_reports_nothing(vault: Path) -> None:
    sync(vault)
    events: list[ProgressEvent] = []
    assert sync(vault, progress=events.append).drawers_embedded == 0
    assert events == []
