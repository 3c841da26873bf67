"""Folders nested deeper than Python's stack: every walk of a vault's folders reads them without recursion
(`vault/tree.walk_tree`), so ingest (its estimate, and so `watch`), the conversations brought in and the
palace's index find the file at the bottom instead of ending in a RecursionError."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from testkit import make_vault
from typer.testing import CliRunner

from wikic.cli import app
from wikic.conversations.intake import find_dropped
from wikic.conversations.sources import FolderTree
from wikic.ingest.pending import pending_inputs
from wikic.palace.sources import scan
from wikic.settings import IngestSettings
from wikic.vault.tree import walk_tree

Folder = tuple[str, list[str], list[str]]

DEPTH = 1_000  # Python's default recursion limit: os.walk on 3.11 (one call per level) ran out here


@pytest.fixture
def nest() -> Iterator[Callable[[Path], Path]]:
    """`nest(folder)`: `folder/d/d/.../d` (DEPTH levels), made one level at a time (os.makedirs recurses
    too), and removed after the test the same way: pytest's own clean-up (shutil.rmtree) recurses."""
    made: list[Path] = []

    def make(folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        assert sys.getrecursionlimit() - 100 < DEPTH  # deeper than the stack a recursive walk would need
        for _ in range(DEPTH):
            folder = folder / "d"
            folder.mkdir()
            made.append(folder)
        return folder

    yield make
    for folder in reversed(made):
        for child in folder.iterdir():
            if not child.is_dir():
                child.unlink()
        folder.rmdir()


def test_walk_tree_yields_what_os_walk_yields(tmp_path: Path) -> None:
    for rel in ("a/b/c", "a/.hidden/x", "b", "c/d"):
        (tmp_path / rel).mkdir(parents=True)
    for rel in ("top.md", "a/one.md", "a/b/two.md", "a/b/c/three.md", "a/.hidden/x/four.md", "c/d/five.md"):
        (tmp_path / rel).write_text(rel)
    os.symlink(tmp_path / "a", tmp_path / "link-to-a")  # listed as a folder, never walked into
    os.symlink(tmp_path / "top.md", tmp_path / "c" / "link-to-top.md")

    def listing(walk: Callable[[Path], Iterator[Folder]]) -> list[Folder]:
        out = []
        for folder, dirs, files in walk(tmp_path):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))  # pruned as every caller prunes
            out.append((folder, list(dirs), sorted(files)))
        return out

    mine = listing(walk_tree)
    assert mine == listing(os.walk)
    assert (str(tmp_path / "a"), ["b"], ["one.md"]) in mine
    assert not any(".hidden" in folder or "link-to-a" in folder for folder, _, _ in mine)


def test_walk_tree_reads_folders_nested_deeper_than_the_stack(tmp_path: Path, nest: Callable[[Path], Path]) -> None:
    bottom = nest(tmp_path)
    (bottom / "deep.md").write_text("# Deep\n")
    found = [os.path.join(folder, name) for folder, _, files in walk_tree(tmp_path) for name in files]
    assert found == [str(bottom / "deep.md")]


@pytest.fixture
def deep_vault(tmp_path: Path, nest: Callable[[Path], Path]) -> tuple[Path, str]:
    root = make_vault(tmp_path, {}, raw=False)
    bottom = nest(root / "raw" / "articles")
    (bottom / "deep.md").write_text("# Deep\n\nA note at the bottom of a thousand folders.\n")
    return root, (bottom / "deep.md").relative_to(root).as_posix()


def test_ingest_finds_a_source_a_thousand_folders_down(deep_vault: tuple[Path, str]) -> None:
    root, deep = deep_vault
    prepared, unusable = pending_inputs(root, IngestSettings())
    assert [p.existing_raw for p in prepared] == [deep] and unusable == []
    assert find_dropped(root) == []  # the conversations' walk of raw/ reads it too (a note, no export)


def test_ingest_estimate_lists_it_on_the_command_line(deep_vault: tuple[Path, str]) -> None:
    root, deep = deep_vault
    result = CliRunner().invoke(app, ["ingest", "--estimate", "--vault", str(root)])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 0, result.output
    assert f"{deep}: ~" in result.stdout


def test_the_palace_indexes_it(deep_vault: tuple[Path, str]) -> None:
    root, deep = deep_vault
    assert [s.path for s in scan(root)] == [deep]


def test_an_export_folder_nested_that_deep_is_read(tmp_path: Path, nest: Callable[[Path], Path]) -> None:
    bottom = nest(tmp_path / "export")
    (bottom / "conversations.json").write_text("[]")
    names = FolderTree(tmp_path / "export").names()
    assert names == ["/".join(["d"] * DEPTH + ["conversations.json"])]
