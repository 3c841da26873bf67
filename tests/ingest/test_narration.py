"""Talk about the talk: a conversation's acknowledgements and the assistant's next steps, told from claims."""

from __future__ import annotations

import pytest

from wikic.ingest.narration import narration


@pytest.mark.parametrize("quote", [
    "Understood. Let me check the project.",
    "Sure, will do.",
    "Thanks!",
    "Got it. Now I'll run the tests.",
    "OK, first let me read the config file.",
    "Let's look at the failing test.",
    "I'm going to rewrite the parser.",
])
def test_an_assistants_acknowledgements_and_next_steps_are_narration(quote: str) -> None:
    assert narration(quote, "assistant")


@pytest.mark.parametrize("quote", [
    "The project already uses uv; tests pass.",
    "Understood. The project already uses uv.",  # one sentence of knowledge is enough
    "Done: the README now mentions it.",  # a report of what changed, not an acknowledgement alone
    "Sure, the index is rebuilt every night at 02:00.",
    "I ran the tests and two fail on Python 3.12.",
    "Let me be clear: we never deploy on Fridays.",  # each clause is judged
    "Understood; the cache is kept for a week.",
    "",
])
def test_a_quote_that_states_something_is_not_narration(quote: str) -> None:
    assert not narration(quote, "assistant")


def test_a_users_plans_are_what_the_wiki_keeps_and_their_thanks_are_not() -> None:
    assert not narration("I'll be away next week.", "user")
    assert not narration("Let's use Postgres for the job queue.", "user")
    assert not narration("Let me check the project.", "ana")  # a person of a Slack export
    assert narration("Thanks, got it.", "user")
    assert narration("Understood. Let me check the project.", " Assistant ")
