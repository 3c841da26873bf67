"""Lint's page rules and `wikic eval`'s reading of a note, run one after the other in lint's parse, read its
page once between them: each gives what it gives reading the page alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikic.context import VaultContext
from wikic.evaluation import checks
from wikic.evaluation.reading import PageReader
from wikic.lint.page_text import PageText
from wikic.lint.rules._pages import judge_while_parsing
from wikic.lint.run import LintOptions, _active
from wikic.vault.formats.sources import read_sources
from wikic.vault.parse import parse_note

EXAMPLE = Path(__file__).resolve().parents[2] / "example-vault"


def test_the_page_rules_and_evals_reading_read_a_note_once(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = VaultContext(EXAMPLE).schema
    judge = judge_while_parsing(schema, _active(LintOptions(), schema))
    reader = PageReader(EXAMPLE, schema, checks.expected_sha256(read_sources(EXAMPLE)))
    assert judge is not None
    pages = sorted(p.relative_to(EXAMPLE).as_posix() for p in (EXAMPLE / "entities").glob("*.md"))
    alone = []
    for path in pages:
        data = (EXAMPLE / path).read_bytes()
        alone.append((judge(path, data, parse_note(path, data)), reader(path, bytes(data), parse_note(path, data))))

    made = []
    real = PageText.__init__

    def counted(self: PageText, *args: object) -> None:
        made.append(self)
        real(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(PageText, "__init__", counted)
    together = []
    for path in pages:
        data = (EXAMPLE / path).read_bytes()
        note = parse_note(path, data)
        together.append((judge(path, data, note), reader(path, data, note)))
    assert len(made) == len(pages)  # one page each, read by both
    assert together == alone and any(read is not None and read[0] is not None for _, read in alone)
