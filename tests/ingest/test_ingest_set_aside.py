"""Files in raw/ that ingest cannot use: a named pipe, socket or device is never opened (by ingest, capture,
the vault's listing or the palace); an empty, binary or zip-bomb file is reported once, set aside until it
changes (`.wikic/set-aside.json`), and listed by `wikic status`."""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from fake_llm import FakeLLM
from library import ingest, vault_status
from testkit import init_wiki, llm_toml

from wikic.ingest.inputs import SourceError, read_inputs
from wikic.ingest.pending import pending_inputs
from wikic.ingest.pipeline import IngestOptions, IngestReport
from wikic.palace.sources import classify, scan
from wikic.settings import IngestSettings
from wikic.status import render_status
from wikic.vault.load import walk
from wikic.vault.state import read_json, state_path

GOOD = "# Chroma\n\nChroma is an open-source vector database that runs inside a Python process.\n"
PLAN = {"summary": "", "concepts": [], "comparisons": [], "relations": [],
        "entities": [{"name": "Chroma", "kind": "product", "aliases": [], "summary": "A vector database.",
                      "facts": [{"text": "Chroma is an open-source vector database.",
                                 "quote": "Chroma is an open-source vector database"}]}]}


@pytest.fixture
def wiki(tmp_path: Path) -> Path:
    return init_wiki(tmp_path / "wiki", min_references=1, toml=llm_toml(strategy="single"))


@pytest.fixture
def fifo(wiki: Path) -> Iterator[Path]:
    path = wiki / "raw/articles/pipe.md"
    os.mkfifo(path)
    yield path


def _set_aside(root: Path) -> dict[str, Any]:
    data = read_json(state_path(root, "set-aside.json"))
    assert data is not None, "no set-aside.json"
    return dict(data)


def _ingest(root: Path, **options: object) -> IngestReport:
    return ingest(root, IngestOptions(use_palace=False, lint_after=False, today=dt.date(2026, 12, 1),
                                      **options), llm=FakeLLM().respond_with(PLAN))  # type: ignore[arg-type]


def _bomb(path: Path) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z, z.open("conversations.json", "w") as f:
        f.write(b"[" + b" " * (16 << 20) + b"]")
    return path


# -- not a regular file: never opened -----------------------------------------------------------------------


def test_a_named_pipe_is_left_out_of_the_listing_and_the_palace(wiki: Path, fifo: Path) -> None:
    (wiki / "entities/pipe.md").unlink(missing_ok=True)
    os.mkfifo(wiki / "entities/pipe.md")
    files, problems = walk(wiki)
    assert "raw/articles/pipe.md" not in files and "entities/pipe.md" not in files
    assert ("entities/pipe.md", "unsafe-path", "a named pipe (FIFO), not a file: not read") in {
        (path, p.rule, p.message) for path, p in problems
    }
    assert classify(wiki, "raw/articles/pipe.md", frozenset()) is None
    assert classify(wiki, "entities/pipe.md", frozenset()) is None
    assert not [s for s in scan(wiki) if s.path.endswith("pipe.md")]


def test_a_named_pipe_in_an_export_folder_is_not_one_of_its_files(tmp_path: Path) -> None:
    import shutil

    from wikic.conversations.sources import FolderTree

    folder = tmp_path / "slack-export"
    shutil.copytree(Path(__file__).resolve().parents[1] / "fixtures/conversations/slack-export", folder)
    os.mkfifo(folder / "general/2026-12-01.json")
    names = FolderTree(folder).names()
    assert "general/2026-11-30.json" in names and "general/2026-12-01.json" not in names


def test_a_socket_is_not_a_source(wiki: Path, tmp_path: Path) -> None:
    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        with pytest.raises(SourceError, match=r"s\.sock: a socket, not a file") as info:
            read_inputs(wiki, [str(path)])
    assert "wikic ingest -" in (info.value.hint or "")


def test_a_device_given_to_ingest_is_refused_before_it_is_read(wiki: Path) -> None:
    with pytest.raises(SourceError, match="/dev/zero: a character device, not a file"):
        read_inputs(wiki, ["/dev/zero"])


def test_a_named_pipe_in_raw_is_reported_once_then_passed_over(wiki: Path, fifo: Path) -> None:
    first = _ingest(wiki)
    assert [(s.raw_path, s.status) for s in first.sources] == [("raw/articles/pipe.md", "failed")]
    error = first.sources[0].error or ""
    assert error.startswith("raw/articles/pipe.md: a named pipe (FIFO), not a file") and "set aside" in error
    assert "empty" not in error and "nothing was captured" not in error
    assert first.exit_code() == 1
    again = _ingest(wiki)
    assert again.sources == [] and again.exit_code() == 0


# -- refused for what it holds: reported once, set aside until it changes -------------------------------------


def test_an_empty_and_a_binary_file_are_reported_once_and_set_aside_until_they_change(wiki: Path) -> None:
    (wiki / "raw/articles/empty.md").write_bytes(b"")
    blob = wiki / "raw/notes/blob.txt"
    blob.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)))
    (wiki / "raw/articles/chroma.md").write_text(GOOD, encoding="utf-8")

    first = _ingest(wiki)
    status = {s.raw_path: (s.status, s.error or "") for s in first.sources}
    assert status["raw/articles/chroma.md"][0] == "compiled"
    assert status["raw/articles/empty.md"][0] == status["raw/notes/blob.txt"][0] == "failed"
    assert status["raw/articles/empty.md"][1] == (
        "raw/articles/empty.md: empty file (set aside until it changes; `wikic status` lists it)"
    )
    assert "binary file" in status["raw/notes/blob.txt"][1] and "set aside until it changes" in status[
        "raw/notes/blob.txt"][1]
    assert first.exit_code() == 1

    again = _ingest(wiki)
    assert again.sources == [] and again.exit_code() == 0  # quiet: nothing to say, nothing failed

    listed = vault_status(wiki, lint=False).set_aside
    assert [(e["path"], e["since"]) for e in listed] == [("raw/articles/empty.md", "2026-12-01"),
                                                        ("raw/notes/blob.txt", "2026-12-01")]
    text = render_status(vault_status(wiki, lint=False))
    assert "Set aside: 2 raw file(s)" in text and "raw/articles/empty.md: empty file (since 2026-12-01)" in text
    assert json.loads(json.dumps(vault_status(wiki, lint=False).to_dict()))["set_aside"] == listed

    os.utime(blob, ns=(10**18, 10**18))  # touched, the same bytes: still the same file
    assert _ingest(wiki).sources == []
    blob.write_text("Chroma is an open-source vector database that runs inside a Python process.\n", encoding="utf-8")
    changed = _ingest(wiki)
    assert [(s.raw_path, s.status) for s in changed.sources] == [("raw/notes/blob.txt", "compiled")]
    assert list(_set_aside(wiki)["files"]) == ["raw/articles/empty.md"]
    (wiki / "raw/articles/empty.md").unlink()
    _ingest(wiki)
    assert _set_aside(wiki)["files"] == {}  # gone: forgotten


def test_a_copy_of_a_source_dropped_into_raw_is_reported_under_its_own_name_once(wiki: Path) -> None:
    (wiki / "raw/articles/chroma.md").write_text(GOOD, encoding="utf-8")
    assert [s.status for s in _ingest(wiki).sources] == ["compiled"]
    (wiki / "raw/notes/chroma copy.md").write_text(GOOD, encoding="utf-8")

    first = _ingest(wiki)
    assert [(s.raw_path, s.status, s.error) for s in first.sources] == [
        ("raw/notes/chroma copy.md", "duplicate", "raw/notes/chroma copy.md: same content as raw/articles/chroma.md, "
         "skipped (set aside until it changes; `wikic status` lists it)")]
    assert first.exit_code() == 0  # nothing failed: the source it copies is compiled
    assert _ingest(wiki).sources == []  # said once
    listed = vault_status(wiki, lint=False).set_aside
    assert [e["path"] for e in listed] == ["raw/notes/chroma copy.md"]
    (wiki / "raw/notes/chroma copy.md").write_text(GOOD + "\nChroma keeps its data in one folder.\n", encoding="utf-8")
    assert [(s.raw_path, s.status) for s in _ingest(wiki).sources] == [("raw/notes/chroma copy.md", "compiled")]


def test_a_dry_run_reports_but_sets_nothing_aside(wiki: Path) -> None:
    (wiki / "raw/articles/empty.md").write_bytes(b"")
    for _ in range(2):
        report = _ingest(wiki, dry_run=True)
        assert [s.raw_path for s in report.sources] == ["raw/articles/empty.md"]
        assert "set aside" not in (report.sources[0].error or "")
    assert not (wiki / ".wikic/set-aside.json").exists()


# -- zip bombs --------------------------------------------------------------------------------------------


def test_a_zip_bomb_dropped_into_raw_is_refused_at_once_naming_it_and_never_opened_again(
    wiki: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _bomb(wiki / "raw/articles/export.zip")
    first = _ingest(wiki)
    (report,) = first.sources
    assert report.raw_path == "raw/articles/export.zip" and report.status == "failed"
    assert (report.error or "").startswith(
        "raw/articles/export.zip: a zip archive wikic does not unpack: conversations.json would unpack to 16.0 MB"
    )
    opened: list[object] = []
    real = zipfile.ZipFile

    def open_zip(source: str | os.PathLike[str] | IO[bytes], *a: Any, **k: Any) -> zipfile.ZipFile:
        opened.append(source)
        return real(source, *a, **k)

    monkeypatch.setattr(zipfile, "ZipFile", open_zip)
    again = _ingest(wiki)
    assert again.sources == [] and again.exit_code() == 0 and opened == []


def _failed(report: IngestReport) -> list[str]:
    return [s.error or "" for s in report.sources if s.status == "failed"]


def test_a_zip_bomb_given_to_ingest_fails_alone_naming_it(wiki: Path, tmp_path: Path) -> None:
    bomb = _bomb(tmp_path / "export.zip")
    report = _ingest(wiki, inputs=[str(bomb)])
    assert [e for e in _failed(report) if e.startswith(f"{bomb}: a zip archive wikic does not unpack")]
    assert report.exit_code() == 1
    assert not list((wiki / "raw").rglob("*.zip"))


def test_a_damaged_zip_given_to_ingest_fails_alone_with_a_clear_error(wiki: Path, tmp_path: Path) -> None:
    broken = tmp_path / "export.zip"
    broken.write_bytes(b"PK\x03\x04" + bytes(100))
    report = _ingest(wiki, inputs=[str(broken)])
    assert [e for e in _failed(report) if e.startswith(f"{broken}: not a readable zip archive")]


def test_an_ordinary_zip_in_raw_says_what_it_is(wiki: Path) -> None:
    with zipfile.ZipFile(wiki / "raw/articles/photos.zip", "w") as z:
        z.writestr("a.txt", "hello")
    _, unusable = pending_inputs(wiki, IngestSettings())
    (u,) = unusable
    assert u.error == "raw/articles/photos.zip: a zip archive, not text, HTML, PDF or an image"
    assert "unpack it" in (u.hint or "")


def test_a_file_set_aside_and_then_ingested_by_name_is_no_longer_listed(wiki: Path) -> None:
    russian = wiki / "raw/articles/zametki.txt"
    russian.write_bytes("Chroma - это векторная база данных. Она работает внутри процесса Python.\n".encode("koi8-r"))
    first = _ingest(wiki)
    assert "not UTF-8 text" in (first.sources[0].error or "") and "--encoding" in (first.sources[0].error or "")
    assert [e["path"] for e in vault_status(wiki, lint=False).set_aside] == ["raw/articles/zametki.txt"]
    named = _ingest(wiki, inputs=[str(russian)], encoding="koi8-r")
    assert [s.status for s in named.sources] == ["compiled"]
    assert vault_status(wiki, lint=False).set_aside == []
    assert _ingest(wiki).sources == []
    assert _set_aside(wiki)["files"] == {}


def test_a_run_stopped_by_its_configuration_sets_nothing_aside(wiki: Path) -> None:
    from wikic.errors import ConfigError

    (wiki / "raw/articles/empty.md").write_bytes(b"")
    (wiki / "raw/articles/chroma.md").write_text(GOOD, encoding="utf-8")
    (wiki / "wikic.toml").write_text("", encoding="utf-8")  # no model configured
    with pytest.raises(ConfigError):
        ingest(wiki, IngestOptions(use_palace=False, lint_after=False))
    (wiki / "wikic.toml").write_text('[llm]\nstrategy = "single"\n', encoding="utf-8")
    report = _ingest(wiki)  # the run that goes on is the one that tells of the empty file
    assert {s.raw_path: s.status for s in report.sources} == {"raw/articles/empty.md": "failed",
                                                              "raw/articles/chroma.md": "compiled"}
