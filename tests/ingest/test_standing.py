"""A standing instruction told by its words, whatever kind a small model gave it."""

from __future__ import annotations

import pytest

from wikic.ingest.anchor import anchor_plan
from wikic.ingest.plan_model import Fact, Memory, Plan
from wikic.ingest.standing import kind_told


@pytest.mark.parametrize("quote", [
    "From now on use uv, never pip.",
    "Going forward, run the linter before every commit.",
    "Please always answer with the code first.",
    "Never push to main directly.",
    "Thanks. Whenever you touch the schema, bump the version.",
    "Every time a test fails, show me the log.",
])
def test_what_the_user_says_holds_from_now_on_is_an_instruction(quote: str) -> None:
    assert kind_told("episodic", quote, "user") == "instruction"
    assert kind_told("persona", quote, " User ") == "instruction"


@pytest.mark.parametrize(("kind", "quote", "speaker"), [
    ("episodic", "We moved the billing service to PostgreSQL.", "user"),  # an event
    ("persona", "I always use tabs in Makefiles.", "user"),  # who they are, in their words
    ("episodic", "Never mind, the build is green again.", "user"),
    ("lesson", "Never trust a cache you did not warm.", "user"),  # the model said it is a lesson
    ("episodic", "From now on I will use uv.", "assistant"),  # the assistant's, not the user's
    ("episodic", "From now on use uv.", "ana"),  # a person of a Slack export: no user to instruct
])
def test_other_memories_keep_the_kind_the_model_gave(kind: str, quote: str, speaker: str) -> None:
    assert kind_told(kind, quote, speaker) == kind


def test_a_conversations_memory_is_re_kinded_by_the_turn_that_said_it() -> None:
    text = ("**user** · 2026-11-30 14:02\nFrom now on use uv, never pip.\n\n**assistant** · 2026-11-30 14:02\n"
            "From now on I use uv.\n")
    said = [Memory("episodic", "user", 0.8, Fact("From now on use uv, never pip.", "From now on use uv, never pip.")),
            Memory("episodic", "uv", 0.5, Fact("From now on I use uv.", "From now on I use uv."))]
    anchored = anchor_plan(Plan("raw/transcripts/2026-11-30-use-uv.md", "", memories=tuple(said)), text)
    assert [m.kind for m in anchored.memories] == ["instruction", "episodic"]
