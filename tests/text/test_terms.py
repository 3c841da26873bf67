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


def test_words_are_stemmed_alike_on_many_threads_at_once() -> None:
    """Quotes are anchored on several threads at once, each stemming words: a stemmer shared between them cut
    one thread's word with another's (IndexError, or a wrong stem)."""
    import sys
    import threading

    from wikic.text import terms

    words = [f"{base}{ending}" for base in ("connect", "run", "generaliz", "happi", "organiz", "relat", "condition")
             for ending in ("", "s", "ing", "ed", "ation", "ational", "ness", "fulness", "ously", "iveness")]
    expected = {word: terms._stem.__wrapped__(word) for word in words}
    problems: list[str] = []

    def stem_all() -> None:
        for _ in range(60):
            for word in words:
                try:
                    got = terms._stem.__wrapped__(word)  # past the cache: every call cuts the word
                except IndexError as exc:
                    problems.append(f"{word}: {exc}")
                    return
                if got != expected[word]:
                    problems.append(f"{word}: {got} for {expected[word]}")

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns all the time, as they may under load
    try:
        threads = [threading.Thread(target=stem_all) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert problems == []
