"""A text file in another encoding dropped into raw/: its UTF-8 copy is named for it, and the run that
converts it is the one that says so."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fake_llm import FakeLLM
from library import ingest

from wikic.ingest.pipeline import IngestOptions
from wikic.ingest.report import render_report
from wikic.vault.init import init_vault

NOTE = "# Café notes\n\nThe café on the corner serves crème brûlée every day. Its façade is painted blue.\n"
EMPTY = {"summary": "", "entities": [], "concepts": [], "relations": [], "comparisons": []}


def test_a_dropped_file_in_another_encoding_is_converted_once_beside_itself(tmp_path: Path) -> None:
    root = tmp_path / "wiki"
    init_vault(root)
    (root / "raw/notes").mkdir(parents=True, exist_ok=True)
    (root / "raw/notes/other-latin1.md").write_bytes(NOTE.encode("cp1252"))
    replies: Iterator[Exception | dict[str, Any]] = iter([RuntimeError("the server went away"), EMPTY])

    def reply(_: list[dict[str, str]]) -> dict[str, Any]:
        answer = next(replies)
        if isinstance(answer, Exception):
            raise answer
        return answer

    said = []
    for _ in range(3):  # the first compile fails, the second compiles it, the third finds nothing to do
        report = ingest(root, IngestOptions(inputs=[], use_palace=False, lint_after=False, compose=False),
                        llm=FakeLLM().respond_with(reply))
        said.append(render_report(report))
    converted = "raw/notes/other-latin1-utf8.md: converted from cp1252 (the original is kept beside it)"
    assert [converted in text for text in said] == [True, False, False], said
    assert "raw/notes/other-latin1-utf8.md: compiled" in said[1]
    assert sorted(p.name for p in (root / "raw/notes").iterdir()) == ["other-latin1-utf8.md", "other-latin1.md"]
    assert (root / "raw/notes/other-latin1.md").read_bytes() == NOTE.encode("cp1252")  # raw/ as it was dropped
    assert (root / "raw/notes/other-latin1-utf8.md").read_text(encoding="utf-8") == NOTE
