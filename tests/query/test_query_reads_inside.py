"""A search hit names a file by what the palace's manifest recorded: in a cloned vault whose `.wikic/` came
with it, that record may name a file of the machine. Query reads the vault's own files only, never through a
name or a link that leads out: nothing outside the vault reaches the model."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

from wikic.palace.hybrid import SearchHit
from wikic.query.retrieve import hit_text


def _hit(path: str) -> SearchHit:
    return SearchHit(path=path, score=1.0, heading="", snippet="", line_start=1, line_end=1, wing="entities",
                     title="Secret")


def test_a_hit_naming_a_file_outside_the_vault_is_not_read(tmp_path: Path) -> None:
    vault = tmp_path / "wiki"
    (vault / "entities").mkdir(parents=True)
    (vault / "entities" / "acme.md").write_text("# Acme\n\nAcme makes rockets.\n", encoding="utf-8")
    secret = tmp_path / "secret.md"
    secret.write_text("the key is hunter2\n", encoding="utf-8")
    (vault / "entities" / "linked.md").symlink_to(secret)
    palace = SimpleNamespace(vault=vault)
    assert hit_text(palace, _hit("entities/acme.md")) == "# Acme\n\nAcme makes rockets.\n"  # type: ignore[arg-type]
    for path in ("../secret.md", os.fspath(secret), "entities/linked.md"):
        assert hit_text(palace, _hit(path)) is None, path  # type: ignore[arg-type]
