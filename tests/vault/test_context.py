"""The vault opened once: `VaultContext` reads wikic.toml and SCHEMA.md on first use, and again only when the
file changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wikic.context import VaultContext
from wikic.errors import SchemaError
from wikic.vault.init import init_vault


def _opens(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files the settings and SCHEMA.md loaders are called for, in order."""
    import wikic.context as context_module

    calls: list[str] = []
    load_settings, load_schema = context_module.load_settings, context_module.load_schema
    monkeypatch.setattr(context_module, "load_settings",
                        lambda root, overrides=None: calls.append("wikic.toml") or load_settings(root, overrides))
    monkeypatch.setattr(context_module, "load_schema", lambda root: calls.append("SCHEMA.md") or load_schema(root))
    return calls


def test_each_file_is_read_once_and_again_when_it_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    init_vault(tmp_path)
    calls = _opens(monkeypatch)
    context = VaultContext(tmp_path)
    assert calls == []  # nothing is read before it is needed
    for _ in range(3):
        assert context.settings.llm.concurrency >= 1
        assert context.page_types
    assert calls == ["wikic.toml", "SCHEMA.md"]
    config = tmp_path / "wikic.toml"
    config.write_text(config.read_text(encoding="utf-8") + "\n# an edit\n", encoding="utf-8")
    os.utime(config, ns=(1, 1))  # another stamp, whatever the clock's resolution
    _ = context.settings, context.schema
    assert calls == ["wikic.toml", "SCHEMA.md", "wikic.toml"]


def test_a_schema_that_cannot_be_read_as_meant_is_refused_where_it_is_acted_on(tmp_path: Path) -> None:
    init_vault(tmp_path)
    schema = tmp_path / "SCHEMA.md"
    text = schema.read_text(encoding="utf-8")
    assert "entity_min_references: 2" in text
    schema.write_text(text.replace("entity_min_references: 2", "entity_min_reference: 2"), encoding="utf-8")
    context = VaultContext(tmp_path)
    assert context.schema.errors  # lint reads it, problems included
    with pytest.raises(SchemaError):
        context.checked_schema()

