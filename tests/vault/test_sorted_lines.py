"""Keyed lines (`vault/sorted_lines.py`): what is written is what is looked up, entry by entry, whatever the keys
hold; a reader of them all is told so."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st

from wikic.vault.sorted_lines import KeyedLines, LookupOnly, json_strings, keyed_lines

KEYS = st.text(st.sampled_from('ab:/\t\n"\\ é中\u2028'), max_size=10)
VALUES = st.recursive(
    st.none() | st.integers() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8)


@given(st.dictionaries(KEYS, VALUES, max_size=30), KEYS)
def test_each_entry_written_is_found_by_its_key(entries: dict[str, object], other: str) -> None:
    text = keyed_lines((key, json.dumps(value, separators=(",", ":"))) for key, value in entries.items())
    assert text.count("\n") == max(len(entries) - 1, 0)  # an entry a line, whatever its key and value hold
    found = KeyedLines(("head\n" + text).encode(), len("head\n"))
    for key, value in entries.items():
        assert found[key] == value
    if other not in entries:
        assert found.get(other) is None


def test_a_damaged_line_is_as_if_its_entry_were_not_there_and_no_reader_of_all_is_served() -> None:
    lines = keyed_lines([("a", "1"), ("b", "[2]"), ("c", json_strings(["x\\", 'y"\t']))])
    data = lines.replace('"b"\t[2]', '"b"\t[2').encode()
    found = KeyedLines(data)
    assert found["a"] == 1 and found["c"] == ["x\\", 'y"\t'] and found.get("b") is None
    with pytest.raises(LookupOnly):
        list(found)
    with pytest.raises(LookupOnly):
        len(found)


@given(st.lists(st.text(max_size=8), max_size=6))
def test_strings_written_without_the_encoder_are_the_encoders(texts: list[str]) -> None:
    assert json_strings(texts) == json.dumps(texts, separators=(",", ":"))
