"""Raw passages in a question's context are the lines that matched, in the file a reader can open."""

from __future__ import annotations

from pathlib import Path

from wikic.ingest.capture import capture
from wikic.palace import open_palace
from wikic.query.retrieve import retrieve
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
