"""Mentions of known pages become links once each; a name that is part of another word is not a mention."""

from __future__ import annotations

import pytest

from wikic.pages.render import linkify

NAMES = {"Qwen3": "qwen3", "Ollama": "ollama", "Chroma": "chroma"}


@pytest.mark.parametrize(("text", "linked"), [
    ("Ollama serves Qwen3 locally.", "[[ollama|Ollama]] serves [[qwen3|Qwen3]] locally."),
    # joined by a hyphen, the name is part of another one: qwen3-embedding is not Qwen3
    ("Ollama serves qwen3-embedding.", "[[ollama|Ollama]] serves qwen3-embedding."),
    ("A pre-Chroma setup.", "A pre-Chroma setup."),
    ("Chroma, then Chroma again.", "[[chroma|Chroma]], then Chroma again."),
    ("Already [[chroma|Chroma]] here.", "Already [[chroma|Chroma]] here."),
    ("It ends with Qwen3.", "It ends with [[qwen3|Qwen3]]."),
    ("Qwen3 - a model.", "[[qwen3|Qwen3]] - a model."),
])
def test_each_known_name_is_linked_once_and_only_as_a_word_of_its_own(text: str, linked: str) -> None:
    assert linkify(text, NAMES)[0] == linked
