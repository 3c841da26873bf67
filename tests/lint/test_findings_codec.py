"""The findings lint's caches keep (the report of the last run, the base of the lints after it): msgspec (the `fast`
extra) and the standard library write lines either one reads back as the same findings, a damaged line is
refused, a report is decoded only when it is of the vault as it is, and the findings a lint of a few changed pages
makes go in among the kept ones where a sort would put them."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings, strategies as st
from library import run_lint
from testkit import make_vault, page

from wikic.lint import finding, findings_codec, run as lint_run
from wikic.lint.finding import Finding, Fix, merged
from wikic.lint.run import LintOptions

msgspec = pytest.importorskip("msgspec")  # the dev install has the `fast` extra; both paths are compared here

FINDINGS = [
    Finding("broken-wikilink", "error", "entities/ü page.md", 3, 5,
            "link target 'x' does not exist; did you mean [[y]]?", "x",
            Fix("replace", "entities/ü page.md", 3, "[[x]]", "[[y|x]]")),
    Finding("orphan-page", "warning", "concepts/a.md", None, None, "no subject page links here"),
    Finding("index-gap", "info", "index.md", 7, 1, "text \u2028 \"q\" \\ 日本語 \U0001f600 \x7f", None,
            Fix("hub", "raw/a.md")),
    Finding("frontmatter", "", "b.md", 0, 0, ""),
]
# a file name's bytes no UTF-8 decodes, as the walk gives them: msgspec cannot write it, the standard library can
UNDECODABLE = Finding("unsafe-name", "error", "bad/\udcff name.md", None, None, "a name with \udcff in it")
FAST = findings_codec._fast.__wrapped__()


def use(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Write and read with `name`'s codec, however few the findings."""
    monkeypatch.setattr(findings_codec, "_fast_for", lambda size: FAST if name == "msgspec" else None)


@pytest.mark.parametrize("writer", ["json", "msgspec"])
@pytest.mark.parametrize("reader", ["json", "msgspec"])
@pytest.mark.parametrize("findings", [FINDINGS, [*FINDINGS, UNDECODABLE], []])
def test_either_library_reads_what_either_wrote(monkeypatch: pytest.MonkeyPatch, writer: str, reader: str,
                                                findings: list[Finding]) -> None:
    use(monkeypatch, writer)
    line = findings_codec.encode(findings)
    assert b"\n" not in line  # one line of the base, between its head and its keyed lines
    use(monkeypatch, reader)
    assert findings_codec.decode(line) == findings


@pytest.mark.parametrize("imported", [True, False])
def test_msgspec_serves_where_it_saves_time(monkeypatch: pytest.MonkeyPatch, imported: bool) -> None:
    """On any but a few findings once msgspec is imported; before, only on many (importing it costs time)."""
    asked: list[int] = []

    def fast() -> findings_codec._Fast | None:
        asked.append(1)
        return FAST

    monkeypatch.setattr(findings_codec, "_fast", fast)
    monkeypatch.setattr(findings_codec, "_imported", lambda: imported)
    for count, wanted in [(10, False), (1_000, imported), (20_000, True)]:
        findings = (FINDINGS * count)[:count]
        asked.clear()
        line = findings_codec.encode(findings)
        assert findings_codec.decode(line) == findings
        assert asked == ([1, 1] if wanted else []), count


@pytest.mark.parametrize("reader", ["json", "msgspec"])
@pytest.mark.parametrize("damaged", [b"", b"{}", b"[1]", b'[{"rule": "x"}]', b'[{"fix": []}]', b"[[", b"null",
                                     b'[{"rule":"r","severity":"error","path":"p","line":1,"column":1,"message":"m",'
                                     b'"fix":{"path":"p"}}]'])
def test_a_damaged_line_is_refused(monkeypatch: pytest.MonkeyPatch, reader: str, damaged: bytes) -> None:
    use(monkeypatch, reader)
    with pytest.raises((ValueError, TypeError, KeyError)):
        findings_codec.decode(damaged)


KEYED = st.builds(
    Finding, rule=st.sampled_from(["a", "b"]), severity=st.sampled_from(["error", "warning", "info", ""]),
    path=st.sampled_from(["x.md", "y.md"]), line=st.one_of(st.none(), st.integers(0, 2)),
    column=st.one_of(st.none(), st.integers(0, 1)), message=st.sampled_from(["m", "n"]),
    target=st.text(alphabet="tu", max_size=3))  # the target is no part of the order: equal keys, told apart


@settings(max_examples=300, deadline=None)
@given(kept=st.lists(KEYED, max_size=40), made=st.lists(KEYED, max_size=12))
def test_findings_made_go_in_among_those_kept_as_a_sort_places_them(kept: list[Finding], made: list[Finding]) -> None:
    ordered = sorted(kept, key=Finding.sort_key)
    expected = sorted([*ordered, *made], key=Finding.sort_key)
    for share in (1_000_000, 0):  # each put in by halving; all of them sorted
        with mock.patch.object(finding, "_INSERTED_SHARE", share):
            got = merged(ordered, made)
        assert [id(f) for f in got] == [id(f) for f in expected]  # the same objects in the same order: stable too


def test_a_report_is_decoded_only_when_it_is_of_the_vault_as_it_is(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_vault(tmp_path, {"entities/a.md": page("A", body="# A\n\n[[ghost]]\n")})
    options = LintOptions(today=dt.date(2026, 3, 1))
    first = run_lint(root, options)
    report = root / ".wikic" / "cache" / "lint-report.json"
    head, _, line = report.read_bytes().partition(b"\n")
    key = json.loads(head)["key"]
    decoded: list[bytes] = []
    decode = findings_codec.decode

    def spy(data: bytes) -> list[Finding]:
        decoded.append(bytes(data))
        return decode(data)

    monkeypatch.setattr(findings_codec, "decode", spy)
    assert lint_run._read_report(root, "another vault's key") is None and decoded == []
    found = lint_run._read_report(root, key)
    assert found is not None and found[0] == first.findings and decoded == [line]
    # a damaged line of findings: the report is not used, the lint made again finds the same
    report.write_bytes(head + b"\n" + line[: len(line) // 2])
    again = run_lint(root, options)
    assert not again.cached and again.findings == first.findings and first.findings
    assert run_lint(root, options).cached  # and the report written again serves the next run
