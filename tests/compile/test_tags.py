"""A page's tags are what its own text or its kind of thing supports, never a kind's every synonym."""

from __future__ import annotations

from wikic.compile.tags import pick_tags

TAXONOMY = ("concept", "organization", "person", "product", "research", "tool")


def test_a_kind_gives_one_tag_not_each_of_its_synonyms_and_a_tag_the_text_writes_is_kept() -> None:
    assert pick_tags("Obsidian is a note-taking app.", "product", TAXONOMY) == ["product"]
    assert pick_tags("Sam Altman leads OpenAI.", "person", TAXONOMY) == ["person"]
    assert pick_tags("Retrieval is a research topic.", "", TAXONOMY) == ["research"]
    assert pick_tags("A hammer.", "", TAXONOMY) == []


def test_what_a_model_calls_a_product_is_tagged_one_only_when_the_text_says_what_kind_of_thing_it_is() -> None:
    # a small model's "product" for everything: an icon, a field of study, a feature of an app
    assert pick_tags("Artificial intelligence is the study of intelligent agents.", "product", TAXONOMY) == []
    assert pick_tags("Graph view is a core plugin that shows the notes of a vault.", "product", TAXONOMY) == []
    assert pick_tags("Ollama is a tool that runs models locally.", "product", TAXONOMY) == ["product", "tool"]
