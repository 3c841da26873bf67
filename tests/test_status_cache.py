"""`wikic status` on a large vault: the contested pages come from the parse cache's rows that name `contested`
(a few of many), not from every note decoded; a page changed since the cache was written is parsed, and the
report is the one a status without any cache gives."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from library import vault_status
from testkit import init_wiki, page

from wikic.vault import note_json

PAGES = 60


def _wiki(root: Path) -> Path:
    init_wiki(root)
    for i in range(PAGES):
        extra: dict[str, Any] = {"contested": True} if i == 7 else {}
        (root / f"entities/widget-{i:02d}.md").write_text(page(f"Widget {i:02d}", **extra), encoding="utf-8")
    return root


def _decoded(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    rows: list[int] = []
    real = note_json.decode

    def counted(lines: list[bytes]) -> Any:
        rows.append(len(lines))
        return real(lines)

    monkeypatch.setattr(note_json, "decode", counted)
    return rows


def test_status_decodes_only_the_rows_naming_contested(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _wiki(tmp_path / "wiki")
    first = vault_status(root, lint=False)  # parses every page and writes the parse cache
    assert first.contested == ["entities/widget-07.md"]

    rows = _decoded(monkeypatch)
    again = vault_status(root, lint=False)
    assert sum(rows) == 1, f"{sum(rows)} rows decoded for one contested page"
    assert again.to_dict() == first.to_dict()

    # a page marked contested after the cache was written is parsed, not missed
    (root / "entities/widget-31.md").write_text(page("Widget 31", contested=True), encoding="utf-8")
    changed = vault_status(root, lint=False)
    assert changed.contested == ["entities/widget-07.md", "entities/widget-31.md"]
    assert vault_status(root, lint=False).contested == changed.contested  # from the cache it left

    # with lint, and without any cache: the same report (but for how long lint took)
    def report() -> dict[str, Any]:
        out = vault_status(root).to_dict()
        out["lint"].pop("seconds")
        return out

    linted = report()
    shutil.rmtree(root / ".wikic/cache")
    assert report() == linted
