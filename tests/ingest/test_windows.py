"""No window sent to the model is over the chunk budget, whatever the lines: a line too long is cut inside it
(after a sentence, else at a space, else between characters; CJK counted by the one estimate), and a data
URL is left out before anything is cut or counted, in its place on its line, so windows keep the source's
line numbers."""

from __future__ import annotations

import base64
import datetime as dt
import random
import re
from pathlib import Path

import pytest
from fake_llm import FakeLLM
from library import ingest

from wikic.ingest.extract.run import estimate_extraction
from wikic.ingest.extract.windows import split_chunks
from wikic.ingest.pipeline import IngestOptions
from wikic.settings import IngestSettings, Settings
from wikic.text.data_urls import without_data_urls
from wikic.text.tokens import estimate_tokens
from wikic.vault.init import init_vault

PNG = base64.b64encode(random.Random(7).randbytes(300_000)).decode()  # a screenshot's worth, scaled down


def _fits(text: str, max_tokens: int) -> None:
    chunks = split_chunks(text, max_tokens=max_tokens, overlap_tokens=max_tokens // 10)
    assert chunks
    worst = max(estimate_tokens(chunk.text) for chunk in chunks)
    assert worst <= max_tokens, worst


def test_a_data_url_is_left_out_in_its_place_and_the_lines_keep_their_numbers() -> None:
    text = f"# Screenshot\n\nThe dashboard:\n![shot](data:image/png;base64,{PNG})\nLatency fell to 2 ms.\n"
    [chunk] = split_chunks(text, max_tokens=500)
    assert chunk.text == ("# Screenshot\n\nThe dashboard:\n![shot](data:image/png;base64,[293.0 KB left out])\n"
                          "Latency fell to 2 ms.\n")
    assert (chunk.start_line, chunk.end_line) == (1, 5)
    assert without_data_urls(text).split("\n")[4] == text.split("\n")[4]


@pytest.mark.parametrize("kept", [
    "data:text/plain,hello",  # short: means something
    "the metadata:" + "A" * 100,  # not a data URL
    "data: " + "A" * 100,  # a label, not a URL
])
def test_what_is_no_data_url_payload_is_kept(kept: str) -> None:
    assert without_data_urls(kept) == kept


def test_a_long_line_is_cut_after_sentences_when_it_has_them() -> None:
    line = " ".join(f"Sentence {i} says something rather plain." for i in range(400))
    chunks = split_chunks(line + "\n", max_tokens=300)
    assert len(chunks) > 3 and all(c.start_line == c.end_line == 1 for c in chunks)
    assert "".join(c.text[:-1] for c in chunks) == line
    assert all(c.text.endswith("plain. \n") for c in chunks[:-1])
    _fits(line + "\n", 300)


def test_a_sentence_longer_than_a_window_is_cut_at_spaces() -> None:
    line = " ".join(f"word{i}" for i in range(3000))
    chunks = split_chunks(line + "\n", max_tokens=300)
    assert "".join(c.text[:-1] for c in chunks) == line
    assert all(c.text.endswith(" \n") for c in chunks[:-1])
    _fits(line + "\n", 300)


@pytest.mark.parametrize("line", [
    "".join(chr(0x4E00 + i % 20_000) for i in range(60_000)),  # CJK without punctuation: 1.3 tokens each
    PNG,  # base64 with no data: before it
    "a" * 200_000,
    "é" * 50_000,
    ("x" * 7 + "é") * 10_000,  # a word's estimate grows faster than its length: slices must not add up to more
    "+/" * 50_000,
], ids=["cjk", "base64", "ascii", "accented", "mixed", "punctuation"])
def test_a_word_longer_than_a_window_is_cut_between_characters_and_every_window_fits(line: str) -> None:
    chunks = split_chunks(f"Before.\n{line}\nAfter.\n", max_tokens=500, overlap_tokens=50)
    assert "".join(c.text[:-1] for c in chunks if c.start_line == c.end_line == 2) == line
    _fits(f"Before.\n{line}\nAfter.\n", 500)


def test_every_window_fits_its_budget_whatever_the_lines() -> None:
    rng = random.Random(11)
    alphabet = ["word ", "Word. ", "日本語", "の", "。", "é", "x" * 9, " ", "\n", "\n\n", "# H\n", "data:", ",", "—"]
    for _ in range(25):
        text = "".join(rng.choice(alphabet) * rng.choice([1, 1, 2, 50, 400]) for _ in range(rng.randint(1, 120)))
        for budget in (200, 333, 1000):
            _fits(text, budget)


def test_an_estimate_of_a_note_with_a_pasted_screenshot_counts_the_note_not_the_image() -> None:
    class Source:
        text = f"# Notes\n\nSee ![shot](data:image/png;base64,{PNG}).\n"
        text_path = "raw/notes/shot.md"
        title = "Notes"

    from wikic.ingest.extract.prompt import PromptContext

    estimate = estimate_extraction(Source(), context=PromptContext(), settings=Settings())
    assert estimate.chunks == 1 and estimate.prompt_tokens < 5000, estimate


def test_an_ingest_of_a_pasted_screenshot_sends_no_base64_and_no_window_over_the_budget(tmp_path: Path) -> None:
    root = tmp_path / "wiki"
    init_vault(root)
    (root / "wikic.toml").write_text('[llm]\nstrategy = "single"\n[ingest]\nchunk_tokens = 400\n', encoding="utf-8")
    note = root / "raw/notes/shot.md"
    cjk = "".join(chr(0x4E00 + i % 20_000) for i in range(3000))
    note.write_text(f"# Shot\n\n![shot](data:image/png;base64,{PNG})\n{cjk}\nThe cache halves latency.\n",
                    encoding="utf-8")
    llm = FakeLLM().respond_with({"summary": "", "entities": [], "concepts": [], "comparisons": [], "relations": []})
    ingest(root, IngestOptions(use_palace=False, lint_after=False, today=dt.date(2026, 12, 1)), llm=llm)
    fenced = (re.search(r"<<<SOURCE (\w+)>>>\n(.*?)<<<END SOURCE \1>>>", call.messages[-1]["content"], re.DOTALL)
              for call in llm.history)
    sources = [match.group(2) for match in fenced if match]
    assert sources and all(PNG[:100] not in s for s in sources)
    assert max(estimate_tokens(s) for s in sources) <= IngestSettings(chunk_tokens=400).chunk_tokens


@pytest.mark.slow
@pytest.mark.parametrize("line", [
    base64.b64encode(random.Random(3).randbytes(3_000_000)).decode(),  # a 4 MB screenshot's base64
    "A" * 20_000_000,
    "".join(chr(0x4E00 + i % 20_000) for i in range(600_000)),
], ids=["4mb-base64", "20mb-line", "600k-cjk"])
def test_real_size_lines_without_breaks_fit_the_default_budget(line: str) -> None:
    budget = IngestSettings().chunk_tokens
    for text in (f"# Note\n{line}\n", f"# Note\n![shot](data:image/png;base64,{line})\n"):
        chunks = split_chunks(text, max_tokens=budget, overlap_tokens=200)
        assert max(estimate_tokens(c.text) for c in chunks) <= budget
