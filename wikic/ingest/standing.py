"""A standing instruction, told by its words: what the user says holds from now on is an instruction.

A small model files "From now on use uv, never pip." as an event of the day (`episodic`): on a run with a
1.5B model it ranked among the recent memories of the next briefing, not under the user's instructions,
which come first. A memory the user said (in their own turn) whose sentence opens with words that make it
hold from then on ("From now on…", "Going forward…", "Always…", "Never…", "Whenever…", "Every time…") is
an instruction whatever kind the model gave it, unless it said it was a lesson (a lesson may be phrased so).
English only: in other languages the model's kind stands.

And a rule the user set in so many words ("From now on…", "Going forward…") is remembered even
when the model proposed no memory of it (a 1.5B model, on a fresh vault, kept only "The project already uses
uv; tests pass."): such a sentence of a user's turn that no memory of the source quotes becomes an instruction
about the user, in the user's words, with importance `FOUND_IMPORTANCE`. Only those three openings ("From now
on", "From here on", "Going forward"): "Always…" and "Never…" open rules and complaints alike ("Always the same
error."), so they only re-kind what the model proposed. ("In the future…" may only muse: it does neither.)
"""

from __future__ import annotations

from wikic.text.sentences import sentences
from wikic.text.terms import opens_with, words

INSTRUCTION = "instruction"
_KEPT_KINDS = frozenset({INSTRUCTION, "lesson"})  # kinds the words never overrule
USER = "user"  # the speaker of the user's turns, and the subject that means the user (`memory/identity.py`)
# the openings that set a rule whatever follows
_SETS_A_RULE = (("from", "now", "on"), ("from", "here", "on"), ("going", "forward"))
# and those that make a memory the model proposed hold from then on ("Always…" may complain: "Always the same
# error.")
_OPENINGS = (*_SETS_A_RULE, ("always",), ("never",), ("whenever",), ("every", "time"))
_NOT_STANDING = (("never", "mind"),)
FOUND_IMPORTANCE = 0.8  # a rule the user set in so many words matters; the model gives "use uv" 0.8-0.9
_LEAD_IN = frozenset("please and also so ok okay".split())


def _standing(sentence: str) -> bool:
    said = [word for word, _, _ in words(sentence)]
    return opens_with(said, _OPENINGS, _LEAD_IN) and not opens_with(said, _NOT_STANDING, _LEAD_IN)


def said_by_user(speaker: str) -> bool:
    return speaker.strip().lower() == USER


def kind_told(kind: str, quote: str, speaker: str) -> str:
    """`kind`, or `instruction` for a memory the user said in words that make it hold from then on."""
    if kind in _KEPT_KINDS or not said_by_user(speaker):
        return kind
    return INSTRUCTION if any(_standing(sentence) for sentence in sentences(quote)) else kind


def opens_a_rule(sentence: str) -> bool:
    """A sentence that sets a rule from then on in so many words ("From now on use uv…"): a rule the user set,
    when the user said it (`said_by_user`)."""
    return opens_with([word for word, _, _ in words(sentence)], _SETS_A_RULE, _LEAD_IN)
