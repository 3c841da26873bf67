"""The one sentence splitter: English and CJK punctuation, Markdown lines, and the periods that end nothing."""

from __future__ import annotations

from wikic.text.sentences import sentence_spans, sentences


def test_english_sentences_end_at_their_punctuation_and_white_space() -> None:
    text = 'Quillstore is fast. Is it? Yes! It said "done." Then it stopped.'
    assert sentences(text) == ["Quillstore is fast.", "Is it?", "Yes!", 'It said "done."', "Then it stopped."]


def test_periods_inside_numbers_versions_and_abbreviations_end_nothing() -> None:
    text = "Version 2.1 took 40.5 ms, e.g. on a laptop. Dr. Chen measured it."
    assert sentences(text) == ["Version 2.1 took 40.5 ms, e.g. on a laptop.", "Dr. Chen measured it."]


def test_cased_a_sentence_on_the_line_does_not_start_in_lower_case() -> None:
    text = "Acme Inc. is based in Oslo. It is a U.S. company. pgvector is\n\nlater. 它是数据库。它很快。"
    assert [text[a:b] for a, b in sentence_spans(text, cased=True)] == [
        "Acme Inc. is based in Oslo.", "It is a U.S. company. pgvector is", "later.", "它是数据库。", "它很快。"
    ]
    assert sentences(text)[:3] == ["Acme Inc.", "is based in Oslo.", "It is a U.S."]


def test_cjk_sentences_end_at_full_width_punctuation_without_spaces() -> None:
    assert sentences("Quillstore 每秒处理四万次写入。它是嵌入式数据库！真的吗？") == [
        "Quillstore 每秒处理四万次写入。", "它是嵌入式数据库！", "真的吗？"
    ]


def test_markdown_lines_that_open_a_statement_of_their_own_break_sentences() -> None:
    text = ("# Quillstore\n\nIt is an embedded\ndatabase written in Rust\n- handles writes\n1. first step\n"
            "> a quote\n| a | b |")
    assert sentences(text) == [
        "# Quillstore", "It is an embedded\ndatabase written in Rust", "- handles writes", "1. first step",
        "> a quote", "| a | b |",
    ]


def test_a_parenthesis_after_a_sentence_belongs_to_it() -> None:
    assert sentences("- Acme uses PostgreSQL. (since 2023-01) ^[raw/a.md:L3]\n- It scales. (as of 2024-05)") == [
        "- Acme uses PostgreSQL. (since 2023-01) ^[raw/a.md:L3]", "- It scales. (as of 2024-05)"
    ]


def test_spans_point_into_the_text_without_surrounding_white_space() -> None:
    text = "  One.   Two.\n\n  Three.  "
    assert [text[a:b] for a, b in sentence_spans(text)] == ["One.", "Two.", "Three."]
    assert sentence_spans("") == [] and sentence_spans(" \n ") == []
