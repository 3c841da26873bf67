"""The BM25 tokenizer: CJK bigrams, stemming, stop words, phrases."""

from __future__ import annotations

from wikic.text.terms import tokenize


def test_cjk_runs_become_character_bigrams() -> None:
    assert tokenize("数据库选择") == ["数据", "据库", "库选", "选择"]
    assert tokenize("猫") == ["猫"]
    assert "数据" in tokenize("数据库") and "数据" in tokenize("我们的数据库选择了PostgreSQL")


def test_latin_words_are_stemmed_and_stop_words_dropped() -> None:
    terms = tokenize("When did we restart the services?")
    assert "restart" in terms and "servic" in terms
    assert not {"when", "did", "we", "the"} & set(terms)
    assert tokenize("Restarting")[0] == tokenize("restarted")[0]


def test_adjacent_content_words_form_phrases_within_a_clause() -> None:
    terms = tokenize("Lord of the Rings. Ice cream")
    assert "lord ring" in terms and "ice cream" in terms and "ring ice" not in terms
