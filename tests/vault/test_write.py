"""Atomic writes: the old file or the new one, never half; the rename made durable; never outside the vault."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from wikic.errors import VaultError
from wikic.vault import write


def test_a_write_replaces_the_file_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "pages" / "a.md"
    write.write_atomic(target, "old\n", root=tmp_path)
    write.write_atomic(target, "new\n", root=tmp_path)
    assert target.read_text(encoding="utf-8") == "new\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["a.md"]


@pytest.mark.skipif(os.name != "posix", reason="folders are fsynced on POSIX only")
def test_the_file_is_synced_before_the_rename_and_its_folder_after(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append("fsync folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "fsync file")
        real_fsync(fd)

    def replace(src: str, dst: str) -> None:
        events.append("rename")
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    write.write_atomic(tmp_path / "a.md", "text\n", root=tmp_path)
    assert events == ["fsync file", "rename", "fsync folder"]


def test_a_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "a.md"
    write.write_atomic(target, "old\n", root=tmp_path)

    def broken(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        write.write_atomic(target, "new\n", root=tmp_path)
    assert target.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md"]


def test_nothing_is_written_through_a_link_out_of_the_vault(tmp_path: Path) -> None:
    vault, outside = tmp_path / "vault", tmp_path / "outside"
    vault.mkdir()
    outside.mkdir()
    (vault / "escape").symlink_to(outside, target_is_directory=True)
    with pytest.raises(VaultError, match="outside the vault"):
        write.write_atomic(vault / "escape" / "a.md", "x", root=vault)
    assert list(outside.iterdir()) == []


def test_a_cache_write_skips_the_fsyncs_but_is_still_one_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    real_replace = os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: events.append("fsync"))

    def replace(src: str, dst: str) -> None:
        events.append("rename")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    write.write_bytes_atomic(tmp_path / "cache" / "c.json", b"{}", root=tmp_path, durable=False)
    assert events == ["rename"]
    assert [p.name for p in (tmp_path / "cache").iterdir()] == ["c.json"]


def test_an_exclusive_create_never_replaces_a_file_and_keeps_its_own(tmp_path: Path) -> None:
    target = tmp_path / "raw" / "x.md"
    target.parent.mkdir()
    write.create_exclusive(target, b"first\n", root=tmp_path)
    # the same bytes already there: a killed run's own file, kept
    write.create_exclusive(target, b"first\n", root=tmp_path)
    with pytest.raises(FileExistsError):
        write.create_exclusive(target, b"other\n", root=tmp_path)
    assert target.read_bytes() == b"first\n"
    assert [p.name for p in target.parent.iterdir()] == ["x.md"]
