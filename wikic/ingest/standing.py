"""A standing instruction, told by its words: what the user says holds from now on is an instruction.

A small model files "From now on use uv, never pip." as an event of the day (`episodic`): on a run with a
1.5B model it ranked among the recent memories of the next briefing, not under the user's instructions,
which come first. A memory the user said (in their own turn) whose sentence opens with words that make it
hold from then on ("From now on…", "Going forward…", "Always…", "Never…", "Whenever…", "Every time…") is
an instruction whatever kind the model gave it, unless it said it was a lesson (a lesson may be phrased so).
English only: in other languages the model's kind stands.
"""

from __future__ import annotations

from wikic.text.sentences import sentences
from wikic.text.terms import opens_with, words

INSTRUCTION = "instruction"
_KEPT_KINDS = frozenset({INSTRUCTION, "lesson"})  # kinds the words never overrule
_USER = "user"
_OPENINGS = (
    ("from", "now", "on"),
    ("from", "here", "on"),
    ("going", "forward"),
    ("in", "future"),
    ("in", "the", "future"),
    ("always",),
    ("never",),
    ("whenever",),
    ("every", "time"),
)
_NOT_STANDING = (("never", "mind"),)
_LEAD_IN = frozenset("please and also so ok okay".split())


def _standing(sentence: str) -> bool:
    said = [word for word, _, _ in words(sentence)]
    return opens_with(said, _OPENINGS, _LEAD_IN) and not opens_with(said, _NOT_STANDING, _LEAD_IN)


def kind_told(kind: str, quote: str, speaker: str) -> str:
    """`kind`, or `instruction` for a memory the user said in words that make it hold from then on."""
    if kind in _KEPT_KINDS or speaker.strip().lower() != _USER:
        return kind
    return INSTRUCTION if any(_standing(sentence) for sentence in sentences(quote)) else kind
