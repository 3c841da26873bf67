"""A damaged palace: told from a failing machine, set aside and rebuilt by a whole sync only, and a failure
that does not come back is reported as it is (the real damage, with real chromadb files, is in
tests/guarantees/test_bad_inputs.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from library import open_palace, sync, update_paths

from wikic.errors import PalaceDamaged, PalaceError
from wikic.palace import palace as palace_module, search
from wikic.palace.chroma import VectorStore
from wikic.palace.damage import is_damage

MARK = "damaged-for-the-test"


class MarkedStore(VectorStore):
    """A store whose folder counts as damaged while it holds MARK (moving the folder aside takes the mark)."""

    def check(self) -> None:
        if (self._settings.path / MARK).exists():
            raise PalaceDamaged("cannot read the palace: Failed to apply logs to the hnsw segment writer")
        super().check()


@pytest.mark.parametrize("message", [
    "Error executing plan: Error sending backfill request to compactor: Failed to apply logs to the hnsw segment "
    "writer",
    "error returned from database: (code: 11) database disk image is malformed",
    "Error deserializing pickle file: eval error at offset 1",
])
def test_chromadb_failures_count_as_damage(message: str) -> None:
    assert is_damage(RuntimeError(message))


@pytest.mark.parametrize("message", [
    "error returned from database: (code: 13) database or disk is full",
    "No space left on device (os error 28)",
    "Permission denied (os error 13)",
    "error returned from database: (code: 5) database is locked",
    "attempt to write a readonly database",
])
def test_failures_of_the_machine_do_not(message: str) -> None:
    assert not is_damage(RuntimeError(message))


def test_only_a_whole_sync_sets_a_damaged_palace_aside(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(palace_module, "open_store", MarkedStore)
    assert sync(vault).added
    palace = vault / ".wikic" / "palace"
    (palace / MARK).write_text("", encoding="utf-8")
    with open_palace(vault) as p, pytest.raises(PalaceDamaged) as raised:
        p.update_paths(["entities/openai.md"])
    assert "wikic index" in (raised.value.hint or "")
    assert not list(palace.parent.glob("palace.broken-*"))

    events: list[Any] = []
    report = sync(vault, progress=events.append)
    moved = palace.parent / Path(report.set_aside).name
    assert report.rebuilt and "hnsw segment writer" in report.damage and (moved / MARK).exists()
    assert [e.note for e in events if e.stage == "damaged"] == [
        f"the palace could not be read ({report.damage}); moved it to .wikic/{moved.name} and rebuilding it from "
        "the vault"]
    assert not (palace / MARK).exists() and sync(vault).drawers_embedded == 0
    with open_palace(vault) as p:
        assert search(p, "who founded OpenAI", k=1)[0].path == "entities/openai.md"
    assert update_paths(vault, ["entities/openai.md"]).drawers_embedded == 0


def test_a_failure_that_does_not_come_back_is_reported_and_nothing_is_moved(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(palace_module, "open_store", VectorStore)
    sync(vault)
    (vault / "entities" / "mistral.md").write_text("# Mistral\n\nA French model maker.\n", encoding="utf-8")
    add = VectorStore.add

    def fails_once(self: VectorStore, *args: Any, **kwargs: Any) -> None:
        monkeypatch.setattr(VectorStore, "add", add)
        raise PalaceDamaged("cannot write drawers to the palace: Error executing plan: something odd")

    monkeypatch.setattr(VectorStore, "add", fails_once)
    with pytest.raises(PalaceDamaged, match="something odd"):
        sync(vault)
    assert not list((vault / ".wikic").glob("palace.broken-*"))
    assert sync(vault).added == ["entities/mistral.md"]


def test_a_damaged_palace_stops_search_with_the_repair_hint(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sync(vault)
    manifest = vault / ".wikic" / "palace" / "lexical.sqlite3"
    with open(manifest, "r+b") as fh:
        fh.write(b"not a database" * 8)
    with open_palace(vault) as p, pytest.raises(PalaceError) as raised:
        search(p, "who founded OpenAI", k=1)
    assert isinstance(raised.value, PalaceDamaged) and raised.value.hint and "wikic index" in raised.value.hint
    assert sync(vault).rebuilt
