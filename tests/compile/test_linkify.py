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


@pytest.mark.parametrize(("text", "names", "linked"), [
    # a function word is never a link, whatever page holds it as an alias
    ("handled 25,000 writes on the same laptop.", {"the": "the", "The": "ollama"},
     "handled 25,000 writes on the same laptop."),
    # a name that is also an ordinary word links only where it is written as a name
    ("Go compiles fast, and a store should go through a test.", {"Go": "go"},
     "Go compiles fast, and a store should go through a test."),
    ("Brightline chose Go for its server.", {"Go": "go"}, "Brightline chose [[go|Go]] for its server."),
    ("It was written in rust-proof steel and in Rust.", {"Rust": "rust"},
     "It was written in rust-proof steel and in [[rust|Rust]]."),
    # a name joined to more of one token is part of that token
    ("Ollama runs qwen3:8b here.", {"Qwen3": "qwen3"}, "Ollama runs qwen3:8b here."),
    ("See config.go for it.", {"Config": "config"}, "See config.go for it."),
])
def test_a_name_links_only_where_the_text_names_it(text: str, names: dict[str, str], linked: str) -> None:
    assert linkify(text, names)[0] == linked
