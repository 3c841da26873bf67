"""The parse cache's rows found by path (`parse_cache.RowsByPath`): by halving the file, whose rows are written in
their paths' order, the same rows as an index of every row gives; in a file written in another order, and for a
path the cache does not hold, the index answers."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from testkit import make_vault, page

from wikic.vault import parse_cache
from wikic.vault.load import load_vault
from wikic.vault.schema_md import load as load_schema

NAMES = st.lists(
    st.text(st.sampled_from('abcXYZ-_ é中"\\\''), min_size=1, max_size=12).map(str.strip).filter(
        lambda s: s and s not in (".", "..") and not s.startswith(".")),
    min_size=1, max_size=25, unique_by=str.casefold)


def cached(tmp: Path, names: list[str]) -> tuple[Path, dict[str, bytes]]:
    """A vault of a page per name, linted once so its parse cache holds them; its rows by path, read whole."""
    root = make_vault(tmp, {f"entities/{name}.md": page(name, body=f"# {name}\n\nAbout {name}.\n") for name in names})
    load_vault(root, use_cache=True, schema=load_schema(root))
    rows = parse_cache.rows(root) or []
    by_path = {}
    for row in rows:
        head = parse_cache.row_head(row)
        assert head is not None
        by_path[head[0]] = row
    return root, by_path


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=NAMES)
def test_each_row_is_found_by_halving_as_the_index_finds_it(tmp_path_factory: pytest.TempPathFactory,
                                                             names: list[str]) -> None:
    root, whole = cached(tmp_path_factory.mktemp("v"), names)
    assert len(whole) >= len(names)
    found = parse_cache.rows_by_path(root)
    assert found is not None
    for path, row in whole.items():
        assert found.get(path) == row
        head = parse_cache.row_head(row)
        assert head is not None and found.stamp(path) == head[1:]
    assert found._starts is None  # every one of them found by halving
    assert found.get("entities/not-there.md") is None and found.stamp("entities/not-there.md") is None
    assert found._starts is not None  # a path not found so is looked up in the index


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=NAMES)
def test_every_row_is_indexed_in_one_scan_with_its_stamp(tmp_path_factory: pytest.TempPathFactory,
                                                          names: list[str]) -> None:
    root, whole = cached(tmp_path_factory.mktemp("v"), names)
    indexed = parse_cache.rows_by_path(root, every=True)  # the file read and indexed at once
    assert indexed is not None and indexed._starts is not None
    for path, row in whole.items():
        head = parse_cache.row_head(row)
        assert head is not None and indexed.get(path) == row and indexed.stamp(path) == head[1:]
    assert indexed.stamp("entities/not-there.md") is None
    pages = [whole[p] for p in sorted(whole) if p.startswith("entities/")]  # each with a title in its frontmatter
    assert indexed.rows_holding(b'{"title":') == pages and not indexed.rows_holding(b"\x07")


def test_rows_written_in_another_order_are_all_found(tmp_path: Path) -> None:
    root, whole = cached(tmp_path, [f"page {n:03d}" for n in range(60)])
    rows = list(whole.values())
    random.Random(7).shuffle(rows)
    parse_cache.save(root, rows)
    found = parse_cache.rows_by_path(root)
    assert found is not None
    assert all(found.get(path) == row for path, row in whole.items())
    assert found.holds("entities/page 007.md", b'"page 007"') and not found.holds("entities/page 007.md", b"page 008")


def test_after_many_lookups_every_row_is_indexed_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, whole = cached(tmp_path, [f"page {n:03d}" for n in range(30)])
    monkeypatch.setattr(parse_cache, "_SEARCHES", 5)
    found = parse_cache.rows_by_path(root)
    assert found is not None
    paths = sorted(whole)
    assert [found.get(p) for p in paths[:5]] == [whole[p] for p in paths[:5]] and found._starts is None
    assert [found.get(p) for p in paths[5:]] == [whole[p] for p in paths[5:]] and found._starts is not None


def test_a_cache_of_another_version_gives_no_rows(tmp_path: Path) -> None:
    root, _ = cached(tmp_path, ["one"])
    cache = root / ".wikic" / "cache" / "parse-cache.jsonl"
    cache.write_bytes(cache.read_bytes().replace(b'"format": 2', b'"format": 1', 1))
    assert parse_cache.rows_by_path(root) is None
    cache.write_bytes(b"")
    assert parse_cache.rows_by_path(root) is None


def test_a_reader_of_every_row_has_them_indexed_at_once(tmp_path: Path) -> None:
    root, whole = cached(tmp_path, [f"page {n:03d}" for n in range(12)])
    found = parse_cache.rows_by_path(root, every=True)
    assert found is not None and found._starts is not None
    assert all(found.get(path) == row for path, row in whole.items())
