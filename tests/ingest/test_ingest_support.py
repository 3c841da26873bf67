"""A claim must say only what its quote says: numbers, units, dates, versions and names."""

from __future__ import annotations

import pytest

from wikic.text.support import unsupported

SUPPORTED = [
    ("GPT-4 was released in March 2023.", "It released GPT-4 in March 2023."),
    ("A collection of 10,000 documents takes about 65 MB.", "a collection of 10000 documents takes about 65MB on disk"),
    ("Chroma answers in 2 ms.", "Chroma answered the query in two milliseconds... 2 ms"),
    ("Ten thousand documents fit.", "10,000 documents fit"),
    ("The index holds 10000 vectors.", "The index holds ten thousand vectors."),
    ("Chroma holds ten thousand documents.", "一万条文档时，Chroma 很快"),
    ("Open-source and written in Rust.", "Qdrant is an open-source vector database written in Rust."),
    ("Qwen2.5-Coder-1.5B generates about 20 tokens per second.", "Qwen2.5-Coder-1.5B 每秒生成大约 20 个词元"),
    ("It was released in June 2025.", "released by Alibaba's Qwen team in 2025-06, in June 2025"),
    ("Full-width digits count: 2025.", "ｆｕｌｌ-width digits count: ２０２５"),
    ("It may need a server.", "It needs a server."),
]


@pytest.mark.parametrize(("claim", "quote"), SUPPORTED)
def test_a_quote_that_states_every_specific_supports_the_claim(claim: str, quote: str) -> None:
    assert unsupported(claim, quote) == []


UNSUPPORTED = [
    ("OpenAI has 10,000 employees.", "OpenAI is a research company based in San Francisco.", ["10000"]),
    ("GPT-4 was released in March 2024.", "It released GPT-4 in March 2023.", ["2024"]),
    ("The store takes 65 GB.", "The store takes 65 MB.", ["65 gb"]),
    ("Qdrant is written in Go.", "Qdrant is written in Rust.", ["go"]),
    ("Version 3.2 added filters.", "Version 3.1 added filters.", ["3.2"]),
    ("Sam Altman founded Anthropic.", "Sam Altman is the CEO of OpenAI.", ["anthropic"]),
    ("It was released in May 2025.", "It was released in 2025.", ["5"]),
]


@pytest.mark.parametrize(("claim", "quote", "missing"), UNSUPPORTED)
def test_an_invented_specific_is_named(claim: str, quote: str, missing: list[str]) -> None:
    assert unsupported(claim, quote) == missing


def test_the_page_subject_may_be_left_out_of_its_quote() -> None:
    claim, quote = "Chroma stores embeddings in SQLite.", "It stores documents, metadata and embeddings in SQLite."
    assert unsupported(claim, quote) == ["chroma"]
    assert unsupported(claim, quote, subject_names=["Chroma", "ChromaDB"]) == []


def test_a_capitalised_word_starting_a_sentence_is_a_name_unless_the_source_writes_it_in_lower_case() -> None:
    source = "Chroma is fast: 查询时间大约是两毫秒. Most queries hit the cache. Anthropic was not tested."
    quote = "查询时间大约是两毫秒"
    assert unsupported("Queries take about two milliseconds.", quote) == ["queries"]  # strict without the source
    assert unsupported("Queries take about two milliseconds.", quote, source=source) == []
    # a name the source capitalises mid-sentence, or never writes at all, must be in the quote
    assert unsupported("Anthropic queries take two milliseconds.", quote, source=source) == ["anthropic"]
    assert unsupported("Google queries take two milliseconds.", quote, source=source) == ["google"]
    assert unsupported("Queries in Chroma take two milliseconds.", quote, source=source) == ["chroma"]
    assert unsupported("Chroma queries take two milliseconds.", quote, source=source, subject_names=["Chroma"]) == []


def test_a_number_in_the_subjects_own_name_is_the_name_not_a_figure_to_prove() -> None:
    assert unsupported("GPT 4 has a large context window.", "It has a large context window.",
                       subject_names=["GPT 4"]) == []
    assert unsupported("GPT 4 has 8 experts.", "It has a large context window.", subject_names=["GPT 4"]) == ["8"]
