"""Fuzzing the conversation formats (hypothesis): each fixture export, damaged at random, read on its own
and ingested in a batch beside a good export.

A damage is one to three changes to the export's JSON (a value replaced by JSON nested hundreds or
thousands of levels deep, a string of up to a megabyte, a number of 5,000 digits, NaN, a list where an
object is, a number or null where a string is, a key removed, a line replaced), then maybe its bytes cut
short or given invalid UTF-8. Formats: Claude Code, Codex and Gemini CLI sessions (JSON Lines), a Gemini
CLI document, ChatGPT's conversations.json and its zip, Claude.ai's, and a Slack export as a folder and as a
zip. The cut keeps at least the first 16 bytes: a shorter file is recognisably nothing, and is an ordinary
source as any other file is.

The property: detecting and reading the export raise nothing but ExportError (a WikicError), in bounded
time; ingesting it beside a good export raises nothing, and the good export is compiled, whatever became
of the damaged one (failed with its name in the error, compiled, or read as an ordinary source). One
exception: a damage that leaves no conversation at all (a session file with no line) makes an ordinary
source, and an empty one refuses the batch by the inputs' own rule (exit 2, naming it, nothing written).

The fast tier runs a few examples per format; the slow tier many more (`WIKIC_LONG_TESTS=1`: more still),
derandomized under `HYPOTHESIS_PROFILE=ci` like every property test here.
"""

from __future__ import annotations

import contextlib
import faulthandler
import io
import json
import os
import re
import shutil
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from convkit import FIXTURES, files_of, plan_for
from fake_llm import FakeLLM
from hypothesis import HealthCheck, given, settings, strategies as st
from library import ingest

from wikic.conversations.detect import LINE_FORMATS, detect
from wikic.conversations.intake import _conversations
from wikic.conversations.jsonio import read_jsonl
from wikic.errors import WikicError
from wikic.ingest.pipeline import IngestOptions
from wikic.vault.init import init_vault

LONG = os.environ.get("WIKIC_LONG_TESTS") == "1"
FAST_EXAMPLES, SLOW_EXAMPLES = 3, (400 if LONG else 40)
HUGE = 1_000_000  # characters of the longest string put in (a transcript of it is compiled in many chunks)
TIME_LIMIT = 60.0  # seconds an example may take on a loaded machine; a hang is far past it
WATCHDOG = 300  # seconds after which a stuck example (in C code, where no Python check runs) ends the run

# name -> (fixture, how it is laid out)
FORMATS = {
    "claude-code": ("claude-code-session.jsonl", "lines"),
    "codex": ("codex-rollout.jsonl", "lines"),
    "gemini-lines": ("gemini-session.jsonl", "lines"),
    "gemini-document": ("gemini-session.json", "json"),
    "chatgpt": ("chatgpt-conversations.json", "json"),
    "chatgpt-zip": ("chatgpt-conversations.json", "zip"),
    "claude-ai": ("claude-ai-conversations.json", "json"),
    "slack-folder": ("slack-export", "folder"),
    "slack-zip": ("slack-export", "folder-zip"),
}
GOOD = {"default": ("codex-rollout.jsonl", "-codex-"), "codex": ("claude-code-session.jsonl", "-claude-code-")}


# -- what a damage puts in the JSON ------------------------------------------------------------------------

class Raw:
    """JSON text placed as it is (JSON nested too deep for `json.dumps`, numbers too long for `int`)."""

    def __init__(self, text: str) -> None:
        self.text = text


class Removed:
    """The key (or list item) is taken out."""


def deep(levels: int, kind: str, inner: str) -> Raw:
    opening, closing = ("[", "]") if kind == "list" else ('{"a": ', "}")
    return Raw(opening * levels + inner + closing * levels)


TRICKY = [
    "", " ", "\n", "**user** · 2026-11-02 09:20", "---\ntitle: x\n---", "<system-reminder>", "(tools: Bash)",
    "0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00", "2026-13-45T99:99:99Z", "1e400", "-1", "NaN",
    "\x00", "\x1b[31m", "\ud800", "\udfff", "\u2028", "\x85", "\u202e", "[[x]]", "../../etc/passwd", "C:\\x",
    "CON", "🙂" * 50, "a" * 300,
]
_SURROGATE = re.compile("[\ud800-\udfff]")
ALPHABETS = ["x", "ab cd\n", "日本語", "\U0001f600", "**user** · 2026-11-02 09:20\n", "\\ \"'<>&{}[]"]

HOSTILE = st.one_of(
    st.builds(deep, st.integers(150, 1500), st.sampled_from(["list", "dict"]), st.sampled_from(["1", '"x"', "{}"])),
    st.builds(lambda n, unit: (unit * (n // len(unit) + 1))[:n], st.integers(10_000, HUGE),
              st.sampled_from(ALPHABETS)),
    st.builds(lambda n: Raw("9" * n), st.integers(4_400, 6_000)),
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20), st.sampled_from(TRICKY),
    st.lists(st.one_of(st.none(), st.integers(), st.text(max_size=4)), max_size=3),
    st.dictionaries(st.sampled_from(["type", "role", "content", "text", "mapping", "parts"]),
                    st.one_of(st.none(), st.integers(), st.text(max_size=4)), max_size=3),
    st.just(Removed()),
)


def mutate(draw: Callable[..., Any], value: Any) -> Any:
    """`value` with one place in it (drawn by walking down from the top) replaced by a hostile value."""
    hostile = draw(HOSTILE)
    if not isinstance(value, dict | list) or not value or draw(st.integers(0, 4)) == 0:
        return None if isinstance(hostile, Removed) else hostile  # the whole value (at the top: a line, a file)
    keys = list(value) if isinstance(value, dict) else list(range(len(value)))
    key = draw(st.sampled_from(keys))
    child = value[key]
    if isinstance(child, dict | list) and child and draw(st.booleans()):
        value[key] = mutate(draw, child)
    elif isinstance(hostile, Removed):
        del value[key]
    else:
        value[key] = hostile
    return value


def dumps(value: Any) -> str:
    """`value` as JSON text, each Raw placed as it is."""
    raws: list[str] = []

    def mark(item: Any) -> Any:
        if isinstance(item, Raw):
            raws.append(item.text)
            return f"\ue000{len(raws) - 1}\ue000"
        if isinstance(item, dict):
            return {k: mark(v) for k, v in item.items()}
        if isinstance(item, list):
            return [mark(v) for v in item]
        return item

    text = json.dumps(mark(value), ensure_ascii=False)
    for number, raw in enumerate(raws):
        text = text.replace(f'"\ue000{number}\ue000"', raw)
    # a lone surrogate is valid JSON only escaped (and then read as one); raw, it is no UTF-8 at all
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def damage_bytes(draw: Callable[..., Any], data: bytes) -> bytes:
    """Maybe cut short (past the first 16 bytes), maybe with invalid UTF-8 put in, or both."""
    how = draw(st.sampled_from(["none", "none", "cut", "utf-8", "both"]))
    if how in ("utf-8", "both") and len(data) > 1:
        at = draw(st.integers(1, len(data) - 1))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xe2\x82", b"\xed\xa0\x80", b"\x80\x80"])) + (
            data[at:])
    if how in ("cut", "both") and len(data) > 17:
        data = data[: draw(st.integers(16, len(data) - 1))]
    return data


def lines_of(name: str) -> list[Any]:
    return [json.loads(line) for line in (FIXTURES / name).read_text().splitlines() if line.strip()]


def write_damaged(draw: Callable[..., Any], fmt: str, where: Path) -> Path:
    """The fixture of `fmt`, damaged, written under `where`; its path."""
    fixture, layout = FORMATS[fmt]
    changes = draw(st.integers(1, 3))
    if layout == "lines":
        entries: Any = lines_of(fixture)  # a damage may leave any JSON value in place of the list
        for _ in range(changes):
            entries = mutate(draw, entries) if isinstance(entries, list) else entries
        text = "\n".join(dumps(e) for e in entries) + "\n" if isinstance(entries, list) else dumps(entries)
        path = where / "session.jsonl"
        path.write_bytes(damage_bytes(draw, text.encode("utf-8")))
        return path
    if layout in ("json", "zip"):
        value = json.loads((FIXTURES / fixture).read_text())
        for _ in range(changes):
            value = mutate(draw, value)
        data = dumps(value).encode("utf-8")
        if layout == "json":
            path = where / "conversations.json"
            path.write_bytes(damage_bytes(draw, data))
            return path
        path = where / "export.zip"
        inside = draw(st.booleans())
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("conversations.json", damage_bytes(draw, data) if inside else data)
        path.write_bytes(buffer.getvalue() if inside else damage_bytes(draw, buffer.getvalue()))
        return path
    folder = where / "slack"
    shutil.copytree(FIXTURES / fixture, folder)
    files = {p.relative_to(folder).as_posix(): json.loads(p.read_text()) for p in sorted(folder.rglob("*.json"))}
    for _ in range(changes):
        name = draw(st.sampled_from(sorted(files)))
        if draw(st.integers(0, 5)) == 0:
            (folder / name).unlink(missing_ok=True)  # a file missing from the export
        elif (folder / name).exists():
            (folder / name).write_bytes(damage_bytes(draw, dumps(mutate(draw, files[name])).encode("utf-8")))
    if layout == "folder":
        return folder
    path = where / "slack.zip"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(folder.rglob("*.json")):
            archive.write(file, file.relative_to(folder).as_posix())
    shutil.rmtree(folder)
    path.write_bytes(buffer.getvalue() if draw(st.booleans()) else damage_bytes(draw, buffer.getvalue()))
    return path


# -- the property ------------------------------------------------------------------------------------------


def read_all(path: Path) -> int:
    """Detect and read `path` as ingest does; the conversations it holds. Only WikicError may come out."""
    found = detect(path)
    if found is None:
        return 0
    if found.format in LINE_FORMATS and not found.document:
        data = path.read_bytes()
        return len(LINE_FORMATS[found.format].conversation(read_jsonl(data, str(path)).entries,
                                                           fallback_id="x").turns)
    return sum(1 for _ in _conversations(found))


def check(draw: Callable[..., Any], fmt: str) -> None:
    faulthandler.dump_traceback_later(WATCHDOG, exit=True)
    try:
        with tempfile.TemporaryDirectory() as folder:
            where = Path(folder)
            holds_for(write_damaged(draw, fmt, where), fmt, where)
    finally:
        faulthandler.cancel_dump_traceback_later()


def holds_for(bad: Path, fmt: str, where: Path) -> None:
    """The property for one damaged export `bad` of `fmt`: read alone, then ingested into a vault made under
    `where` beside a good export."""
    started = time.monotonic()
    with contextlib.suppress(WikicError):  # an ExportError naming the file: all a damaged export may raise
        read_all(bad)
    assert time.monotonic() - started < TIME_LIMIT, "reading took too long"

    root = where / "wiki"
    init_vault(root)
    good, tool = GOOD.get(fmt, GOOD["default"])
    before = files_of(root)
    started = time.monotonic()
    try:
        report = ingest(root, IngestOptions(inputs=[str(bad), str(FIXTURES / good)], use_palace=False,
                                            lint_after=False), llm=FakeLLM().respond_with(plan_for))
    except WikicError as exc:
        # no conversation at all (a session file left empty): an ordinary source, refused by the
        # inputs' own rules, before anything of the batch is written
        assert detect(bad) is None and str(bad) in exc.message and files_of(root) == before, exc.message
        return
    assert time.monotonic() - started < TIME_LIMIT, "ingesting took too long"
    statuses = {s.raw_path: s.status for s in report.sources}
    assert [p for p, status in statuses.items() if tool in p and status == "compiled"], statuses
    for s in report.sources:
        assert s.status in ("compiled", "failed", "unchanged"), (s.raw_path, s.status, s.error)
        if s.status == "failed":
            assert s.error and (str(bad) in s.error or s.raw_path.startswith("raw/")), s.error


def fuzz(examples: int) -> Callable[[Callable[..., None]], Callable[..., None]]:
    return settings(max_examples=examples, deadline=None, suppress_health_check=[
        HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])


@pytest.mark.parametrize("fmt", FORMATS)
@fuzz(FAST_EXAMPLES)
@given(data=st.data())
def test_damaged_exports_fail_alone_and_never_crash(fmt: str, data: st.DataObject) -> None:
    check(data.draw, fmt)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
@fuzz(SLOW_EXAMPLES)
@given(data=st.data())
def test_damaged_exports_fail_alone_and_never_crash_many_more(fmt: str, data: st.DataObject) -> None:
    check(data.draw, fmt)


def test_the_damages_reach_what_they_are_meant_to() -> None:
    """The generator makes what the property is about: nesting past the reader's limit, long numbers, and
    text that is still the fixture's where nothing was changed."""
    text = dumps({"a": deep(300, "list", "1"), "n": Raw("9" * 5000), "s": "plain"})
    assert text == '{"a": ' + "[" * 300 + "1" + "]" * 300 + ', "n": ' + "9" * 5000 + ', "s": "plain"}'


def test_a_zip_whose_end_record_states_a_member_before_the_file_fails_alone(tmp_path: Path) -> None:
    """A case the slow fuzz found: ChatGPT's export zipped, one byte put into the end record's offset of the
    central directory, so the member's data is stated to start before the file does. zipfile then seeks to a
    negative offset (an OSError, "Invalid argument"); it is a damaged zip, named, that fails alone."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversations.json", (FIXTURES / "chatgpt-conversations.json").read_bytes())
    whole = buffer.getvalue()
    bad = tmp_path / "export.zip"
    bad.write_bytes(whole[:-6] + b"\xff" + whole[-6:])  # inside the offset of the central directory
    with pytest.raises(WikicError, match=r"export\.zip: not a readable zip archive \(conversations\.json is "
                                         r"stated to start outside the file\)"):
        detect(bad)
    holds_for(bad, "chatgpt-zip", tmp_path)
