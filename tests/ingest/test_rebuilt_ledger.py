"""The compiled ledger made again from the pages when it is missing: every raw file a page cites, hashed as it is
in the vault; a name a page gives that leads out of the vault is never read."""

from __future__ import annotations

import hashlib
from pathlib import Path

from testkit import make_vault, page

from wikic.ingest.rebuild import rebuilt_compiled
from wikic.vault.schema_md import load as load_schema


def test_sources_are_hashed_inside_the_vault_and_a_name_leading_out_is_not_read(tmp_path: Path) -> None:
    root = make_vault(tmp_path, {
        "entities/acme.md": page("Acme", sources=["raw/articles/source-a.md", "raw/../../outside.md"]),
    })
    (tmp_path / "outside.md").write_text("# A file of the machine\n", encoding="utf-8")
    compiled = rebuilt_compiled(root, "2026-06-01", load_schema(root))
    entry = compiled.entries["raw/articles/source-a.md"]
    assert entry.pages == ("entities/acme.md",)
    assert entry.sha256 == hashlib.sha256((root / "raw/articles/source-a.md").read_bytes()).hexdigest()
    assert "raw/../../outside.md" not in compiled.entries
