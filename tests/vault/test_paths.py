"""The one check that keeps wikic inside its vault (`wikic/vault/paths.py`), and what the writers built on
it refuse: a folder on the way that links out of the vault, at any depth."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from wikic.errors import VaultError
from wikic.vault import state, write
from wikic.vault.formats.compiled import CompiledEntry, read_compiled, write_compiled
from wikic.vault.paths import confined, escape, make_folder


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    (tmp_path / "vault").mkdir()
    (tmp_path / "outside").mkdir()
    return tmp_path / "vault"


def outside_of(vault: Path) -> Path:
    return vault.parent / "outside"


def test_a_path_with_no_link_is_inside_even_where_it_does_not_exist_yet(vault: Path) -> None:
    assert escape(vault, vault / ".wikic" / "cache" / "llm" / "ab" / "x.json") is None
    assert confined(vault, vault / "raw" / "articles") == vault / "raw" / "articles"


@pytest.mark.parametrize("link", [".wikic", ".wikic/cache", ".wikic/capture", "raw", "raw/articles", "entities"])
def test_a_link_out_of_the_vault_at_any_depth_is_named(vault: Path, link: str) -> None:
    (vault / link).parent.mkdir(parents=True, exist_ok=True)
    (vault / link).symlink_to(outside_of(vault), target_is_directory=True)
    deeper = vault / link / "sub" / "file.md"
    assert escape(vault, deeper) == (link, os.path.realpath(outside_of(vault)))
    with pytest.raises(VaultError, match=f"refusing to use {link}: it leads outside the vault"):
        make_folder(vault, deeper.parent)
    with pytest.raises(VaultError):
        write.write_atomic(deeper, "x", root=vault)
    assert list(outside_of(vault).iterdir()) == []


def test_a_link_that_stays_inside_the_vault_is_followed(vault: Path) -> None:
    (vault / "real-raw").mkdir()
    (vault / "raw").symlink_to(vault / "real-raw", target_is_directory=True)
    write.create_exclusive(vault / "raw" / "a.md", b"text\n", root=vault)
    assert (vault / "real-raw" / "a.md").read_bytes() == b"text\n"


def test_a_file_linked_out_is_refused_to_a_reader_but_a_write_replaces_the_link(vault: Path) -> None:
    secret = outside_of(vault) / "secret.txt"
    secret.write_text("secret\n")
    (vault / "index.md").symlink_to(secret)
    assert escape(vault, vault / "index.md") is not None
    assert escape(vault, vault / "index.md", leaf=False) is None
    write.write_atomic(vault / "index.md", "# Wiki Index\n", root=vault)
    assert not (vault / "index.md").is_symlink()
    assert secret.read_text() == "secret\n"


def test_state_leading_out_is_missing_to_readers_and_refused_to_writers(vault: Path) -> None:
    (outside_of(vault) / "compiled.json").write_text('{"version": 1, "sources": {"raw/x.md": {"sha256": "1"}}}')
    (vault / ".wikic").symlink_to(outside_of(vault), target_is_directory=True)
    assert read_compiled(vault) == {}
    assert state.read_cache(vault, state.PARSE_CACHE) is None
    state.write_cache(vault, state.PARSE_CACHE, "cache")  # a cache is no error: it is simply not written
    with pytest.raises(VaultError, match=r"refusing to use \.wikic"):
        write_compiled(vault, {"raw/y.md": CompiledEntry("2")})
    with pytest.raises(VaultError):
        state.save_journal(vault, {"pages": {}})
    assert sorted(p.name for p in outside_of(vault).iterdir()) == ["compiled.json"]


def test_written_files_follow_the_umask_and_private_ones_stay_private(vault: Path) -> None:
    old = os.umask(0o022)
    try:
        write.write_atomic(vault / "entities" / "a.md", "page\n", root=vault)
        write.create_exclusive(vault / "raw" / "b.md", b"source\n", root=vault)
        write.write_bytes_atomic(vault / ".wikic" / "cache" / "llm" / "r.json", b"{}", root=vault, private=True)
        os.umask(0o077)
        write.write_atomic(vault / "index.md", "index\n", root=vault)
    finally:
        os.umask(old)

    def mode(rel: str) -> int:
        return stat.S_IMODE((vault / rel).stat().st_mode)

    assert mode("entities/a.md") == 0o644
    assert mode("raw/b.md") == 0o644
    assert mode(".wikic/cache/llm/r.json") == 0o600
    assert mode("index.md") == 0o600  # the umask decides, as it does for any editor
