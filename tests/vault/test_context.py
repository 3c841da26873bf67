"""The vault opened once: `VaultContext` reads wikic.toml and SCHEMA.md on first use, and again only when the
file changed."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from wikic.context import VaultContext
from wikic.errors import SchemaError
from wikic.vault.init import init_vault


def _opens(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files the settings and SCHEMA.md loaders are called for, in order."""
    import wikic.context as context_module
    import wikic.settings
    from wikic.settings import Settings, load_settings
    from wikic.vault.schema_md import Schema, load as load_schema

    calls: list[str] = []

    def settings_loaded(root: Path, overrides: Mapping[str, Any] | None = None) -> Settings:
        calls.append("wikic.toml")
        return load_settings(root, overrides)

    def schema_loaded(root: Path) -> Schema:
        calls.append("SCHEMA.md")
        return load_schema(root)

    monkeypatch.setattr(wikic.settings, "load_settings", settings_loaded)  # the context imports it when it reads
    monkeypatch.setattr(context_module, "load_schema", schema_loaded)
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

