"""What a conversation's turn says about the talk itself, not about any subject.

An assistant's turn opens with its acknowledgement and its next step ("Understood. Let me check the
project."), and a small model files that under what the turn is about: on a run with a 1.5B model, uv's page
held "Understood. Let me check the project." as a fact about uv. Such a quote states nothing that could be
true or false of a subject, so a claim resting on it alone is not written.

Narration is a quote every sentence of which is an acknowledgement ("Understood.", "Sure, will do.",
"Thanks!"), from anyone, or the assistant's statement of what it is about to do ("Let me check the
project.", "Now I'll run the tests."). Only the assistant's: a user's "I'll be away next week" or "Let's use
Postgres for the queue" is what the wiki is kept for. English only: other languages' narration is kept as
any claim is.
"""

from __future__ import annotations

import re

from wikic.text.sentences import sentences
from wikic.text.terms import opens_with, words

ASSISTANT = "assistant"  # the speaker of the assistant's turns in every export wikic reads as a conversation

_ACKNOWLEDGING = frozenset(
    """understood sure ok okay got it thanks thank you done great perfect right alright all yes yep yeah noted
    will do of course certainly absolutely sounds good agreed makes sense no problem i see gotcha cool nice""".split()
)
_MAX_ACKNOWLEDGEMENT_WORDS = 4
# A sentence's clauses are judged one by one: "Let me be clear: we never deploy on Fridays." states a rule.
_CLAUSE = re.compile(r"[:;]\s+")
# What may come before a statement of the next step ("Now, let me…", "OK, first I'll…").
_LEAD_IN = frozenset("now next first then ok okay alright so and great sure right".split())
_NEXT_STEP = (
    ("let", "me"),
    ("let", "s"),  # "let's", as `words` cuts it
    ("let", "us"),
    ("i", "ll"),
    ("i", "will"),
    ("i", "m", "going", "to"),
    ("i", "am", "going", "to"),
    ("i", "m", "gonna"),
)


def _acknowledgement(said: list[str]) -> bool:
    return 0 < len(said) <= _MAX_ACKNOWLEDGEMENT_WORDS and all(word in _ACKNOWLEDGING for word in said)


def _next_step(said: list[str]) -> bool:
    return opens_with(said, _NEXT_STEP, _LEAD_IN)


def narration(quote: str, speaker: str) -> bool:
    """Whether every clause of every sentence of `quote`, said by `speaker`, is talk about the talk: an
    acknowledgement, or (the assistant's) what it is about to do."""
    found = [[word for word, _, _ in words(clause)] for sentence in sentences(quote) for clause in
             _CLAUSE.split(sentence)]
    found = [said for said in found if said]
    if not found:
        return False
    assistant = speaker.strip().lower() == ASSISTANT
    return all(_acknowledgement(said) or (assistant and _next_step(said)) for said in found)
