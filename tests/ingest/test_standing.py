"""A standing instruction told by its words, whatever kind a small model gave it."""

from __future__ import annotations

import pytest

from wikic.compile.plan import Fact, Memory, Plan
from wikic.ingest.anchor import anchor_plan
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


SESSION = ("**user** · 2026-11-30 14:02\nFrom now on use uv, never pip. Always the same error with pip.\n\n"
           "**assistant** · 2026-11-30 14:02\nFrom now on I use uv.\n\n**user** · 2026-11-30 14:05\n"
           "Going forward, run the linter before every commit.\n")


def test_a_rule_the_user_set_in_so_many_words_is_remembered_when_the_model_proposed_none() -> None:
    anchored = anchor_plan(Plan("raw/transcripts/2026-11-30-use-uv.md", "", memories=()), SESSION)
    # the user's two rules, in their words, dated by their turns; the assistant's words and a complaint are not
    assert [(m.kind, m.subject, m.importance, m.fact.text, str(m.fact.anchor), m.when and m.when.isoformat())
            for m in anchored.memories] == [
        ("instruction", "user", 0.8, "From now on use uv, never pip.", "raw/transcripts/2026-11-30-use-uv.md:L2",
         "2026-11-30"),
        ("instruction", "user", 0.8, "Going forward, run the linter before every commit.",
         "raw/transcripts/2026-11-30-use-uv.md:L8", "2026-11-30")]
    assert all(m.fact.anchored for m in anchored.memories) and anchored.rules_found == 2


def test_a_rule_a_memory_already_quotes_is_not_remembered_twice() -> None:
    said = Memory("persona", "user", 0.9, Fact("The user wants uv, not pip.", "From now on use uv, never pip."))
    anchored = anchor_plan(Plan("raw/transcripts/2026-11-30-use-uv.md", "", memories=(said,)), SESSION)
    assert [(m.kind, m.fact.text) for m in anchored.memories] == [
        ("instruction", "The user wants uv, not pip."),  # re-kinded by its words, and not found again
        ("instruction", "Going forward, run the linter before every commit.")]
    assert anchored.rules_found == 1


def test_an_article_sets_no_rule_for_the_user() -> None:
    text = "# Notes\n\nFrom now on use uv, never pip.\n"
    assert anchor_plan(Plan("raw/articles/notes.md", "", memories=()), text).memories == ()


def test_musing_about_the_future_is_no_instruction() -> None:
    assert kind_told("episodic", "In the future we might move the service to Rust.", "user") == "episodic"


def test_the_report_says_how_many_rules_code_remembered() -> None:
    from wikic.ingest.report import SourceReport, log_notes, source_lines

    r = SourceReport("raw/transcripts/s.md", "s", "compiled", rules_found=2)
    assert '  2 rule(s) the user set in so many words ("From now on…"), remembered as instructions: the model ' \
           "proposed no memory of them" in source_lines(r)
    assert "2 rules remembered" in log_notes(r, lambda p: p)
    assert "rule" not in "\n".join(source_lines(SourceReport("raw/transcripts/s.md", "s", "compiled")))
