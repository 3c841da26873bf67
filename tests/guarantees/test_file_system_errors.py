"""The file system refuses (a full disk, a read-only mount, a permission, too many open files): the command
says what happened and to which path, exits 1 with a hint, and the next run finishes what was interrupted.

The refusals are injected where wikic writes (the rename that puts a page in place), so every run fails at
the same step; a real full tmpfs and a read-only remount behave the same (checked by hand, as root).
"""

from __future__ import annotations

import errno
import os
import traceback
from pathlib import Path

import gkit
import pytest
from standin_openai import StandinServer
from typer.testing import CliRunner

from wikic.cli import app
from wikic.errors import VaultError, describe, from_os_error
from wikic.vault import write


def cli(root: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [*args, "--vault", str(root)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError("".join(traceback.format_exception(result.exception)))
    return result.exit_code, result.stdout, result.stderr


def refuse_page_renames(monkeypatch: pytest.MonkeyPatch, code: int, after: int) -> None:
    """From the `after`-th page put in place on, the rename fails with `code` (as the disk would)."""
    real = os.replace
    seen = {"pages": 0}

    def replace(src: str, dst: str) -> None:
        if "/entities/" in str(dst) or "/concepts/" in str(dst):
            seen["pages"] += 1
            if seen["pages"] > after:
                raise OSError(code, os.strerror(code))
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)


@pytest.mark.parametrize(
    ("code", "said"),
    [(errno.ENOSPC, "no space left on the device"), (errno.EROFS, "the file system is read-only"),
     (errno.EACCES, "permission denied")],
)
def test_a_refused_write_is_one_error_naming_the_file_and_the_next_run_finishes(
    standin: StandinServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, said: str
) -> None:
    root = gkit.make_vault(tmp_path / "wiki", standin.base_url, threshold=1)
    sources = gkit.sources(tmp_path / "inbox", 4)
    with monkeypatch.context() as mp:
        refuse_page_renames(mp, code, after=3)
        exit_code, _, err = cli(root, "ingest", *sources)
    assert exit_code == 1
    # off a terminal, a line per source compiled comes first; then the one error
    lines = err.strip().splitlines()
    errors = [line for line in lines if line.startswith("Error: ")]
    assert len(errors) == 1 and all(line.endswith(" compiled") for line in lines[: lines.index(errors[0])]), err
    first = errors[0]
    assert first.startswith(f"Error: {said}: {root}/") and first.endswith(".md"), err
    assert "Hint: " in err and "Traceback" not in err
    assert [p for rel in gkit.page_paths(root) for p in gkit.whole_page_problems(root, rel)] == []
    exit_code, out, err = cli(root, "ingest")
    assert exit_code == 0, out + err
    assert "finished an interrupted run first" in out
    assert gkit.consistency_problems(root) == []
    assert len(gkit.log_rows(root)) == 4


def test_every_refusal_a_person_can_act_on_is_worded_with_its_path_and_a_hint() -> None:
    for code in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EMFILE, errno.EIO):
        error = from_os_error(OSError(code, os.strerror(code), "/v/index.md"))
        assert isinstance(error, VaultError) and error.exit_code == 1
        assert error.message.endswith(": /v/index.md") and error.hint
    # in an ingest report too (a source that failed on it), without the exception's type
    line = describe(OSError(errno.ENOSPC, "No space left on device", "/v/entities/x.md"))
    assert line.startswith("no space left on the device: /v/entities/x.md (free some space")


def test_a_full_disk_while_flushing_names_the_file_it_was_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")  # a flush names no file

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError) as info:
        write.write_atomic(tmp_path / "log.md", "x", root=tmp_path)
    assert info.value.filename == str(tmp_path / "log.md")
    assert list(tmp_path.iterdir()) == []  # no temporary file left behind
