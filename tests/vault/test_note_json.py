"""The rows of the parse cache: msgspec (the `fast` extra) and the standard library's json write rows either
one reads back as the same notes, refuse the same values, and a vault without msgspec lints as one with it."""

from __future__ import annotations

import datetime as dt
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from library import load_vault

from wikic.vault import note_json
from wikic.vault.load import fork_is_safe
from wikic.vault.model import Block, Heading, Link, Note, Problem
from wikic.vault.parse import parse_note

msgspec = pytest.importorskip("msgspec")  # the dev install has the `fast` extra; both paths are compared here

CODECS = {"json": note_json._Stdlib(), "msgspec": note_json._codec.__wrapped__()}


def use(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    codec = CODECS[name]
    assert codec.name == name
    monkeypatch.setattr(note_json, "_codec", lambda: codec)


def note(frontmatter: dict[str, Any] | None) -> Note:
    return Note(
        "entities/Ünïcode page.md", frontmatter, 5, {"title": 2, "when": 3},
        [Link("wikilink", "a b", "H#sub", None, 7, 3, "[[a b#H#sub]]"),
         Link("mdlink", "x/ü.md", "", "alias", 8, 1, "[t](x/%C3%BC.md)")],
        [Heading("Title", 1, 6)], [Block("id-1", 9)], [Problem("malformed-link", None, "m", 1)], 9, 6,
    )  # fmt: skip


READABLE = [
    None,
    {},
    {"title": "T", "n": 3, "big": 2**80, "neg": -(2**70), "f": 1e300, "tiny": 5e-324, "ok": True, "none": None},
    {"when": dt.date(2024, 2, 29), "at": dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=2)))},
    {"nested": {"a": [dt.date(2020, 1, 1), {"b": dt.datetime(2020, 1, 1, 0, 0)}], "c": {"d": ["x", 1.5]}}},
    {"text": "line\u2028sep \x7f \"quoted\" \\ 日本語 \U0001f600", "list": [[1, 2], [], {}]},
    {"__date__": [1], "x": {"__date__": "2020-01-01", "y": 1}},  # mappings holding the tag's key, but no tag
]


@pytest.mark.parametrize("writer", ["json", "msgspec"])
@pytest.mark.parametrize("reader", ["json", "msgspec"])
@pytest.mark.parametrize("frontmatter", READABLE)
def test_either_library_reads_what_either_wrote(
    monkeypatch: pytest.MonkeyPatch, writer: str, reader: str, frontmatter: dict[str, Any] | None
) -> None:
    original = note(frontmatter)
    use(monkeypatch, writer)
    row = note_json.encode(original, 123, 456)
    assert row is not None
    use(monkeypatch, reader)
    ((path, size, mtime, back),) = note_json.decode([row])
    assert (path, size, mtime) == (original.path, 123, 456)
    assert back == original
    assert [type(v) for v in (back.frontmatter or {}).values()] == [type(v) for v in (frontmatter or {}).values()]


UNREADABLE = [
    {"x": math.nan},
    {"x": [math.inf]},
    {"x": {1: "key that is no string"}},
    {"x": {dt.date(2024, 1, 1): "a date as a key"}},
    {"x": b"bytes"},
    {"x": {"a", "b"}},
    {"x": ("a", "tuple")},
    {"x": {"__date__": "2020-01-01"}},  # would read back as a date
    {"x": [{"__datetime__": "2020-01-01T00:00:00"}]},
]


@pytest.mark.parametrize("writer", ["json", "msgspec"])
@pytest.mark.parametrize("frontmatter", UNREADABLE)
def test_a_value_json_cannot_give_back_leaves_the_note_out(
    monkeypatch: pytest.MonkeyPatch, writer: str, frontmatter: dict[str, Any]
) -> None:
    use(monkeypatch, writer)
    assert note_json.encode(note(frontmatter), 1, 2) is None


@pytest.mark.parametrize("reader", ["json", "msgspec"])
@pytest.mark.parametrize("row", [b"[1,2,3]", b'["p",1,2,["p"]]', b"not json", b'["p","1",2,null]'])
def test_a_damaged_row_raises_a_value_or_type_error(monkeypatch: pytest.MonkeyPatch, reader: str, row: bytes) -> None:
    use(monkeypatch, reader)
    with pytest.raises((ValueError, TypeError)):
        note_json.decode([row])


def _vault(root: Path, pages: int) -> Path:
    (root / "notes").mkdir(parents=True)
    for i in range(pages):
        (root / "notes" / f"n{i}.md").write_text(f"---\ntitle: N{i}\n---\n# N{i}\n\n[[n{(i + 1) % pages}]]\n",
                                                 encoding="utf-8")
    return root


def test_a_page_whose_frontmatter_names_the_tag_parses_on_two_cores(tmp_path: Path) -> None:
    """Its key `__date__` read back as a tag: a lint of a vault big enough for two processes raised."""
    root = _vault(tmp_path / "v", 420)
    (root / "notes" / "n7.md").write_text('---\n__date__: "2020-01-01"\n---\n# N7\n\n[[n8]]\n', encoding="utf-8")
    assert fork_is_safe()
    one = load_vault(root, jobs=1)
    assert one.notes["notes/n7.md"].frontmatter == {"__date__": "2020-01-01"}
    assert load_vault(root, jobs=2).notes == one.notes
    assert load_vault(root, jobs=2, use_cache=True).notes == one.notes
    assert load_vault(root, jobs=2, use_cache=True).notes == one.notes  # from the cache


@pytest.mark.slow
def test_without_msgspec_a_vault_loads_the_same_and_reads_the_cache_msgspec_wrote(tmp_path: Path) -> None:
    root = _vault(tmp_path / "v", 450)
    (root / "notes" / "n3.md").write_text("---\ncreated: 2024-01-02\nnested: {a: [2024-01-03]}\n---\n[[n4]]\n",
                                          encoding="utf-8")
    with_msgspec = load_vault(root, jobs=2, use_cache=True)  # parses, and writes the cache with msgspec
    code = (
        "import sys, pickle\nsys.modules['msgspec'] = None\n"
        "from pathlib import Path\nfrom wikic.vault import note_json\nfrom wikic.vault.load import load_vault\n"
        "from wikic.context import VaultContext\n"
        f"root = Path({str(root)!r})\n"
        "schema = VaultContext(root).schema\n"
        "cached = load_vault(root, use_cache=True, schema=schema)\n"  # read from msgspec's cache
        "fresh = load_vault(root, jobs=2, schema=schema)\n"  # parsed on two cores, the rows decoded by json
        "sys.stdout.buffer.write(pickle.dumps((note_json.codec_name(), cached.notes, fresh.notes)))\n"
    )
    import pickle

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, timeout=120).stdout
    name, cached, fresh = pickle.loads(out)
    assert name == "json"
    assert cached == fresh == with_msgspec.notes
    assert cached["notes/n3.md"].frontmatter == {"created": dt.date(2024, 1, 2), "nested": {"a": [dt.date(2024, 1, 3)]}}


@pytest.mark.parametrize("codec", ["json", "msgspec"])
@pytest.mark.parametrize("depth", [99, 990, 10_000])
def test_frontmatter_nested_deep_is_cached_or_refused_never_a_recursion_error(
    monkeypatch: pytest.MonkeyPatch, codec: str, depth: int
) -> None:
    """Flow YAML nested 990 deep parsed (libyaml stops at 1,000) and then ended in a RecursionError where its
    note was written to the parse cache and read back; it is refused where frontmatter is read now."""
    use(monkeypatch, codec)
    text = "---\nrelated: " + "[" * depth + '"[[a]]"' + "]" * depth + "\n---\n# T\n"
    parsed = parse_note("entities/deep.md", text.encode("utf-8"))
    assert (parsed.frontmatter is not None) == (depth < 100)
    row = note_json.encode(parsed, 1, 2)
    assert row is not None and note_json.decode([row])[0][3] == parsed
