"""Raw passages in a question's context are the lines that matched, in the file a reader can open."""

from __future__ import annotations

from pathlib import Path

from library import open_palace

from wikic.ingest.capture import capture
from wikic.query.retrieve import retrieve, shorten
from wikic.text.tokens import estimate_tokens
from wikic.vault.init import init_vault

FILLER = "".join(f"<p>Paragraph {n} is about the weather in the valley.</p>\n" for n in range(60))
ARTICLE = f"""<html><head><title>Valley chronicle</title></head><body><main>
<h1>Valley chronicle</h1>
{FILLER}<p>The Zorblax reactor was commissioned in 1987 near the coast.</p>
</main></body></html>
"""


def test_a_passage_from_a_captured_html_source_is_the_matched_lines_of_its_text_file(tmp_path: Path) -> None:
    vault = tmp_path / "wiki"
    init_vault(vault)
    source = tmp_path / "chronicle.html"
    source.write_text(ARTICLE, encoding="utf-8")
    (captured,) = capture(vault, [str(source)])
    with open_palace(vault) as palace:
        palace.sync()
        found = retrieve(palace, "When was the Zorblax reactor commissioned?")
    # every passage quotes the lines that matched (not the head of the text file, for a hit on the original)
    assert [p.path for p in found.passages] == [captured.text_path]
    assert all(not hit.path.endswith(".html") for hit in found.hits)
    (passage,) = found.passages
    assert passage.path == captured.text_path
    assert "Zorblax reactor was commissioned in 1987" in passage.text
    lines = (vault / captured.text_path).read_text(encoding="utf-8").split("\n")
    assert passage.line_start is not None and passage.line_end is not None and passage.line_start > 40
    assert "\n".join(lines[passage.line_start - 1 : passage.line_end]).strip() == passage.text


def test_a_passage_names_exactly_the_lines_it_shows(tmp_path: Path) -> None:
    vault = tmp_path / "wiki"
    init_vault(vault)
    source = tmp_path / "reactor.md"
    source.write_text("# Reactor log\n\n\n\nThe Zorblax reactor was commissioned in 1987.\n\n\n\n", encoding="utf-8")
    (captured,) = capture(vault, [str(source)])
    with open_palace(vault) as palace:
        palace.sync()
        (passage,) = retrieve(palace, "When was the Zorblax reactor commissioned?").passages
    lines = (vault / captured.text_path).read_text(encoding="utf-8").split("\n")
    assert passage.line_start is not None and passage.line_end is not None
    shown = lines[passage.line_start - 1 : passage.line_end]
    assert "\n".join(shown) == passage.text  # no blank line at either end is counted as shown
    assert shown[-1] == "The Zorblax reactor was commissioned in 1987."


def test_a_passage_too_long_for_its_budget_is_cut_after_a_whole_sentence() -> None:
    body = " ".join(f"Reactor {n} was commissioned in {1900 + n} at a cost of {n * 1000:,} crowns." for n in range(60))
    cut = shorten(body, 100)
    assert estimate_tokens(cut) <= 100 and body.startswith(cut) and cut.endswith(" crowns.")
    unbroken = "x" * 5000  # one run with nowhere to cut: a hard cut, marked as one
    assert shorten(unbroken, 100).endswith(" …") and len(shorten(unbroken, 100)) < 5000
