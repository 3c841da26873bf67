"""How an ingest reads the vault once per run: with the cyclic collector paused, as lint reads it."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest

from wikic.ingest import session
from wikic.vault.init import init_vault
from wikic.vault.load import load_vault
from wikic.vault.schema_md import load as load_schema


def test_the_vault_is_read_with_the_collector_paused_and_it_is_back_on_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "wiki"
    init_vault(root)
    (root / "entities" / "acme.md").write_text(
        "---\ntitle: Acme\ntype: entity\n---\n# Acme\n\nAcme makes rockets.\n", encoding="utf-8"
    )
    seen: list[bool] = []

    def load(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return load_vault(*args, **kwargs)

    monkeypatch.setattr(session, "load_vault", load)
    assert gc.isenabled()
    reading = session.read_vault(root, load_schema(root))
    assert seen == [False] and gc.isenabled()
    assert reading.names.titles == {"entities/acme.md": "Acme"}
