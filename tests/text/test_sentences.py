"""The one sentence splitter: English and CJK punctuation, Markdown lines, and the periods that end nothing."""

from __future__ import annotations

import re

from hypothesis import given, settings, strategies as st

from wikic.text.sentences import sentence_breaks, sentence_spans, sentences


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


# The splitter as first written: a lookbehind per alternative and each check a regex. The one shipped finds the
# same breaks faster (its alternatives open with the character they break after; each check first looks at the
# characters that decide whether its pattern can match); this is the reading it must agree with.
_REFERENCE_BREAK = re.compile(
    r"(?<=[.!?])\s+"
    r"|(?<=[.!?][\"'”’)\]])\s+"
    r"|(?<=[。！？；])[ \t]*"
    r"|\n[ \t]*\n\s*"
    r"|\n(?=[ \t]*(?:[-*+#>|]|\d{1,3}[.)][ \t]))"
)
_REFERENCE_WORD = re.compile(r"([^\W\d_][\w.]*)\.[\"'”’)\]]?$")
_REFERENCE_NUMBER = re.compile(r"(?:^|\n)[ \t]*\d{1,3}\.$")
_ABBREVIATED = frozenset("e.g i.e cf vs dr mr mrs prof fig approx".split())


def _reference_breaks(text: str) -> list[tuple[int, int]]:
    out = []
    for match in _REFERENCE_BREAK.finditer(text):
        if match.end() == len(text):
            continue
        before = _REFERENCE_WORD.search(text, max(0, match.start() - 12), match.start())
        if before is not None and before.group(1).casefold() in _ABBREVIATED:
            continue
        if _REFERENCE_NUMBER.search(text, max(0, match.start() - 8), match.start()):
            continue
        if text.startswith("(", match.end()) and "\n" not in text[match.start() : match.end()]:
            continue
        out.append(match.span())
    return out


_WORDS = st.sampled_from(["a", "B", "é", "ẞ", "ſ", "word", "Acme Inc", "U.S", "x1", "12", "٣", "v2.1", "e.g", "i.e",
                          "Dr", "MRS", "mr", "approx", "vs", "Fig", "CF", "prof", "它是", "(note", ""])
_MARKS = st.sampled_from(["", "", ".", "!", "?", ".)", '."', "!’", ".]", "?”", ".'", "。", "！", "？", "；", "..",
                          ".))"])
_GAPS = st.sampled_from([" ", " ", "  ", "\t", "", "\n", "\n\n", " \n \n", "\n- ", "\n* ", "\n+ ", "\n1. ",
                         "\n12) ", "\n# ", "\n> ", "\n| ", " (", "\n("])
_TEXTS = st.lists(st.tuples(_WORDS, _MARKS, _GAPS).map("".join), max_size=12).map("".join)


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_the_splitter_finds_the_breaks_of_its_reference_reading(text: str) -> None:
    assert list(sentence_breaks(text)) == _reference_breaks(text)


def _reference_spans(text: str, cased: bool) -> list[tuple[int, int]]:
    spans = []
    start = 0
    for end, following in [*_reference_breaks(text), (len(text), len(text))]:
        if cased and text[following : following + 1].islower() and "\n" not in text[end:following]:
            continue
        piece = text[start:end]
        lead = len(piece) - len(piece.lstrip())
        trail = len(piece.rstrip())
        if trail > lead:
            spans.append((start + lead, start + trail))
        start = following
    return spans


@settings(max_examples=300, deadline=None)
@given(_TEXTS, st.booleans())
def test_sentence_spans_are_those_of_the_reference_reading(text: str, cased: bool) -> None:
    assert sentence_spans(text, cased=cased) == _reference_spans(text, cased)



_LETTER = re.compile(r"[^\W_]")
# prose as most paragraphs are (ASCII words, periods before capitals), with what makes a period end nothing
_PROSE_WORDS = st.sampled_from(["cache", "Pass", "layer", "config", "fig", "Fig", "Dr", "e.g", "E.G", "i.e", "mrs",
                                "Mr", "others", "vs", "cf", "approx", "prof", "A", "x1", "12", "3", "It", "the",
                                "(see", "GPT", "v2", "_x", "", "a.b"])
_PROSE_MARKS = st.sampled_from(["", "", "", ".", ".", "!", "?", '."', ".)", "..", ".]", ".'"])
_PROSE_GAPS = st.sampled_from([" ", " ", " ", "  ", "\n", "\n", "\n\n", "\n- ", "\n#", "\n1. ", "\n12) ",
                               "\n |", "\n> ", "\t", " \n", "\n(", "。", "\u00e9", " [[", " ![[", " ^", " *", "]] "])
_PROSE = st.lists(st.tuples(_PROSE_WORDS, _PROSE_MARKS, _PROSE_GAPS).map("".join), max_size=16).map("".join)


def _counted(text: str, cased: bool) -> int:
    return sum(1 for a, b in _reference_spans(text, cased) if _LETTER.search(text, a, b))


@settings(max_examples=300, deadline=None)
@given(_TEXTS, st.booleans())
def test_sentences_counted_are_the_spans_the_reference_reading_finds(text: str, cased: bool) -> None:
    from wikic.text.sentences import sentence_count

    assert sentence_count(text, cased=cased) == _counted(text, cased)


@settings(max_examples=1000, deadline=None)
@given(_PROSE, st.booleans())
def test_sentences_of_plain_prose_counted_are_the_spans_the_reference_reading_finds(text: str, cased: bool) -> None:
    from wikic.text.sentences import sentence_count

    assert sentence_count(text, cased=cased) == _counted(text, cased)


def test_periods_that_end_nothing_are_not_counted_in_plain_prose() -> None:
    from wikic.text.sentences import sentence_count

    for text in ("Mr. Smith came. It rained.", "Mrs. Smith came. It rained.", "12. It is. Fine.", "It is 12. Fine.",
                 "See fig. It is.", "It is fine. (see A) Then.", "Dr. A. Then e.g. B. Done.", "A.\n- B. C.",
                 "A.\n\nB", "A. b. C.", "Acme Inc. Is big.", "A\n3. B", "A..  B. C", "x. ", ". A. B",
                 "Pass.\n(see it)", "Pass.  (see it)", "Pass. (see it)", "Pass.\t(see it)", "Pass. [[x]]",
                 "Pass. ![[]]", "Done. [[]]", "Done. [[1]]", "Done. -- x", "a.md b!c d?e", "A.] B"):
        assert sentence_count(text, cased=True) == _counted(text, True), text
        assert sentence_count(text) == _counted(text, False), text
