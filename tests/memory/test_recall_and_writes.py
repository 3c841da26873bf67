"""Recall by query, kind and subject; `remember` through the normal pipeline (or captured for later without
a model); `confirm_lesson` makes a lesson verified after two confirmations."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from fake_llm import FakeLLM
from library import confirm_lesson, recall, remember, wake_up
from memkit import SESSIONS, Scripted, Session, at, ingest_sessions, make_vault, memory

from wikic.errors import UsageError
from wikic.ingest.pending import pending_inputs
from wikic.memory.rank import score
from wikic.settings import IngestSettings
from wikic.vault.formats.memory_items import MemoryItem

AS_OF = dt.date(2026, 12, 1)
ONE_REFERENCE = "# Wiki Schema\n## Domain\nWork\n## Page Thresholds\n- entity_min_references: 1\n"
LESSON = "Mocking the database hid the broken migration last week."
LESSONS = Session("l", "Retro", [("user", LESSON, at(20))],
                  [memory("lesson", "Mocking the database hid the broken migration.", LESSON, 0.7, "billing service")])


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = make_vault(tmp_path, schema=ONE_REFERENCE)
    ingest_sessions(root, [*SESSIONS, LESSONS])
    return root


def test_recall_filters_by_kind_and_subject_and_ranks(vault: Path) -> None:
    found = recall(vault, "PostgreSQL for billing", as_of=AS_OF)
    assert [r.memory.item.text for r in found][:1] == ["The billing service goes with PostgreSQL."]
    assert all(r.memory.path == "entities/billing-service.md" for r in found)
    assert [r.memory.item.kind for r in recall(vault, kind="instruction", as_of=AS_OF)] == ["instruction"]
    assert [r.memory.path for r in recall(vault, subject="user", as_of=AS_OF)] == ["entities/me.md"]
    assert {r.memory.item.kind for r in recall(vault, subject="billing service", as_of=AS_OF)} == {"episodic", "lesson"}
    assert recall(vault, "sourdough starter", as_of=AS_OF) == []
    with pytest.raises(UsageError):
        recall(vault, kind="opinion")


def test_old_unconfirmed_memories_fade_but_never_disappear() -> None:
    fresh = MemoryItem("episodic", AS_OF, "x", ("raw/a.md:L1",), 0.5)
    old = MemoryItem("episodic", AS_OF - dt.timedelta(days=365), "x", ("raw/a.md:L1",), 0.5)
    repeated = MemoryItem(
        "episodic", AS_OF - dt.timedelta(days=365), "x", ("raw/a.md:L1", "raw/b.md:L1"), 0.5, last=AS_OF
    )
    assert score(fresh, AS_OF) > score(repeated, AS_OF) - 0.11 and score(repeated, AS_OF) > score(fresh, AS_OF)
    assert score(fresh, AS_OF) > score(old, AS_OF) > 0.25  # half its importance stays


def test_a_lesson_confirmed_twice_is_verified_and_ranks_higher(vault: Path) -> None:
    before = recall(vault, kind="lesson", as_of=AS_OF)[0]
    first = confirm_lesson(vault, "Mocking the database hid the broken migration.", today=AS_OF)
    assert (first.page, first.confirmations, first.verified) == ("entities/billing-service.md", 1, False)
    second = confirm_lesson(vault, "mocking the database hid the broken migration", page="billing-service", today=AS_OF)
    assert second.verified and second.confirmations == 2
    page = (vault / "entities" / "billing-service.md").read_text(encoding="utf-8")
    assert "- 2026-11-20 · verified · Mocking the database hid the broken migration." in page
    assert "%%memory importance=0.7 confirmed=2 last=2026-12-01%%" in page
    after = recall(vault, kind="lesson", as_of=AS_OF)[0]
    assert after.memory.item.verified and after.score > before.score
    assert "(verified)" in wake_up(vault, as_of=AS_OF).text
    assert "| confirm | [[billing-service\\|billing service]] | lesson confirmed (2) |" in (vault / "log.md").read_text(
        encoding="utf-8"
    )
    with pytest.raises(UsageError, match="no lesson"):
        confirm_lesson(vault, "Always deploy on Fridays.", today=AS_OF)
    # the texts that call embedded are kept for the next one
    from wikic.memory.kept_vectors import KeptVectors
    from wikic.memory.merge import PACKAGED_DIM, PACKAGED_MODEL

    asked = ["Always deploy on Fridays.", "Mocking the database hid the broken migration."]
    assert sorted(KeptVectors(vault, PACKAGED_MODEL, PACKAGED_DIM).get(asked)) == sorted(asked)


def test_remember_compiles_a_dated_note_through_the_pipeline(tmp_path: Path) -> None:
    root = make_vault(tmp_path, schema=ONE_REFERENCE)
    said = "Keep answers under ten lines."
    llm = FakeLLM().respond_with(
        Scripted(
            [
                Session(
                    "n",
                    "note",
                    [("user", f"Remember this instruction about user (importance 0.8): {said}", None)],
                    [memory("instruction", said, said, 0.8, "user")],
                )
            ]
        )
    )
    done = remember(
        root, "instruction", said, importance=0.8, llm=llm, now=dt.datetime(2026, 11, 30, 8, 15, tzinfo=dt.UTC)
    )
    assert (
        done.compiled and done.raw_path.startswith("raw/notes/2026-11-30-remember") and done.pages == ["entities/me.md"]
    )
    note = (root / done.raw_path).read_text(encoding="utf-8")
    assert "**user** · 2026-11-30 08:15\n" in note
    text = wake_up(root, as_of=AS_OF).text
    assert f"- 2026-11-30 · {said}" in text


def test_remember_without_a_model_captures_for_later(tmp_path: Path) -> None:
    root = make_vault(tmp_path, schema=ONE_REFERENCE)
    (root / "wikic.toml").write_text("", encoding="utf-8")  # no model configured
    done = remember(root, "persona", "I work from Lisbon.", subject="user")
    assert not done.compiled and "no model configured" in (done.error or "")
    waiting, _ = pending_inputs(root, IngestSettings())
    assert len(waiting) == 1  # the note, for `wikic ingest` to compile
    with pytest.raises(UsageError):
        remember(root, "wish", "x")


NOTE_AT = dt.datetime(2026, 11, 30, 8, 15, tzinfo=dt.UTC)
PORTUGUESE = "Always answer Ana in Portuguese."


def _careless_model(memories: list[dict[str, object]] | None = None) -> FakeLLM:
    """A model that reads a `remember` note as a real one may: the kind it guesses, the word 'Remember' as
    the subject (or no memory at all, with `memories=[]`)."""

    def reply(messages: list[dict[str, str]]) -> dict[str, object]:
        ask = messages[-1]["content"]
        if "List every named thing" in ask:  # asked again, names first, when a reply holds nothing
            return {"names": []}
        turn = next(line for line in ask.splitlines() if line.startswith("Remember this"))
        found = [memory("persona", PORTUGUESE, turn, 0.3, "Remember")] if memories is None else memories
        if "The memories of this conversation" in ask:
            return {"memories": found}
        return {"summary": "", "entities": [], "concepts": [], "comparisons": [], "relations": [], "memories": found}

    return FakeLLM().respond_with(reply)


@pytest.mark.parametrize("proposed", [None, []], ids=["wrong-kind-and-subject", "no-memory"])
def test_remember_keeps_the_kind_subject_and_importance_it_was_given(
    tmp_path: Path, proposed: list[dict[str, object]] | None
) -> None:
    root = make_vault(tmp_path, schema=ONE_REFERENCE)
    llm = _careless_model(proposed)
    done = remember(root, "instruction", PORTUGUESE, importance=0.9, subject="Ana", llm=llm, now=NOTE_AT)
    assert done.compiled and done.pages == ["entities/ana.md"], done
    assert not (root / "entities/remember.md").exists()
    (found,) = recall(root, kind="instruction", subject="Ana", as_of=AS_OF)
    assert (found.memory.path, found.memory.item.text) == ("entities/ana.md", PORTUGUESE)
    assert found.memory.item.importance == 0.9 and found.memory.item.date == NOTE_AT.date()
    assert recall(root, kind="persona", as_of=AS_OF) == []
    # what the model is told: the note, with the kind, subject and importance asked for
    told = llm.history[0].messages[-1]["content"]
    assert 'remember: "instruction"' in told and 'subject: "Ana"' in told and 'importance: "0.9"' in told
    assert "Remember this instruction about Ana (importance 0.9): Always answer Ana in Portuguese." in told


@pytest.mark.parametrize(
    ("content", "kept"),
    [
        ("I like\x00 tea.", "I like tea."),
        ("T\x00e\x00a\x00 \x00o\x00n\x00l\x00y\x00.\x00", "Tea only."),  # text that went through UTF-16
        ("Use \x1b[1;31muv\x1b[0m for Python.\x07", "Use uv for Python."),
        ("Broken \ud800 text.", "Broken \ufffd text."),
    ],
    ids=["nul", "utf-16", "terminal-codes", "lone-surrogate"],
)
def test_remember_cleans_control_characters_out_of_what_it_writes(tmp_path: Path, content: str, kept: str) -> None:
    root = make_vault(tmp_path, schema=ONE_REFERENCE)
    (root / "wikic.toml").write_text("", encoding="utf-8")  # no model: the note alone is written
    done = remember(root, "persona", content, subject="us\x00er\x1b[0m")
    data = (root / done.raw_path).read_bytes()
    text = data.decode("utf-8")
    assert f"Remember this persona about user (importance 0.5): {kept}\n" in text
    assert not [ch for ch in text if ch < " " and ch != "\n"]
    with pytest.raises(UsageError, match="the content is empty"):
        remember(root, "persona", "\x00\x1b[0m \x07")


def test_the_kinds_the_model_is_told_are_the_kinds_a_page_has() -> None:
    from wikic.ingest.plan_model import TranscriptPlan
    from wikic.vault.formats.memory_items import KINDS, TOLD_KINDS

    assert sorted(TOLD_KINDS) == sorted(KINDS)
    told = TranscriptPlan.model_json_schema()["$defs"]["WireMemory"]["properties"]["kind"]["enum"]
    assert tuple(told) == TOLD_KINDS
