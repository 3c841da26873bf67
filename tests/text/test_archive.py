"""A zip is opened with its decompression bounded: a zip bomb is refused, naming the file and why, before
anything is inflated; a damaged zip is a clear error, never zipfile's own exception; a real export opens."""

from __future__ import annotations

import io
import re
import time
import zipfile
from pathlib import Path

import pytest

from wikic.errors import ExportError
from wikic.text import archive

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "conversations"


def _zip(path: Path, members: dict[str, bytes], *, level: int = 9) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def _bomb(path: Path, megabytes: int = 64) -> Path:
    """conversations.json: '[' and `megabytes` MB of spaces, deflated about a thousand times."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z, z.open("conversations.json", "w") as f:
        f.write(b"[")
        for _ in range(megabytes):
            f.write(b" " * (1 << 20))
        f.write(b"]")
    return path


def test_a_real_export_opens_and_reads_as_before() -> None:
    with archive.open_zip(FIXTURES / "chatgpt-export.zip", "export.zip") as z:
        assert "conversations.json" in z.namelist()
        assert z.read("conversations.json").startswith(b"[")


def test_a_zip_bomb_is_refused_by_its_ratio_before_anything_is_inflated(tmp_path: Path) -> None:
    bomb = _bomb(tmp_path / "bomb.zip")
    started = time.monotonic()
    with pytest.raises(ExportError) as info:
        archive.open_zip(bomb, "raw/bomb.zip")
    assert time.monotonic() - started < 1.0
    message = info.value.message
    assert message.startswith("raw/bomb.zip: a zip archive wikic does not unpack: conversations.json would unpack")
    assert "times its size (at most 100)" in message and info.value.hint


def test_an_open_file_is_checked_the_same_way(tmp_path: Path) -> None:
    data = _bomb(tmp_path / "bomb.zip").read_bytes()
    with pytest.raises(ExportError, match="times its size"):
        archive.open_zip(io.BytesIO(data), "stdin")


@pytest.mark.parametrize(
    ("bound", "value", "members", "message"),
    [
        ("MAX_MEMBER_BYTES", 1 << 20, {"big.json": bytes(range(256)) * 8192}, "big.json would unpack to 2.0 MB"),
        ("MAX_TOTAL_BYTES", 3 << 20, {f"{n}.json": bytes(range(256)) * 8192 for n in range(2)},
         "it would unpack to 4.0 MB (more than 3.0 MB)"),
        ("MAX_MEMBERS", 10, {f"general/2026-01-{n:02d}.json": b"[]" for n in range(1, 12)},
         "it holds 11 files (more than 10)"),
    ],
    ids=["member-size", "total-size", "member-count"],
)
def test_each_bound_refuses_what_exceeds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bound: str, value: int, members: dict[str, bytes], message: str
) -> None:
    path = _zip(tmp_path / "a.zip", members, level=0)  # stored: no ratio to speak of
    with archive.open_zip(path, "a.zip"):
        pass  # within the real bounds
    monkeypatch.setattr(archive, bound, value)
    with pytest.raises(ExportError, match=re.escape(message)):
        archive.open_zip(path, "a.zip")


def test_the_member_count_is_read_before_zipfile_lists_the_members(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                   ) -> None:
    path = _zip(tmp_path / "many.zip", {f"{n}.txt": b"" for n in range(50)})
    monkeypatch.setattr(archive, "MAX_MEMBERS", 49)
    monkeypatch.setattr(zipfile, "ZipFile", lambda *a, **k: pytest.fail("the central directory was parsed"))
    with pytest.raises(ExportError, match="it holds 50 files"):
        archive.open_zip(path, "many.zip")


def test_members_that_share_their_data_are_judged_by_the_file_s_own_size(tmp_path: Path) -> None:
    """An overlapping bomb: every entry of the central directory points at one compressed member."""
    one = _zip(tmp_path / "one.zip", {"a.json": b" " * (2 << 20)}).read_bytes()
    local_end = one.index(b"PK\x01\x02")
    central = one[local_end:one.index(b"PK\x05\x06")]
    copies = 40
    end = bytearray(one[one.index(b"PK\x05\x06"):])
    end[8:10] = end[10:12] = copies.to_bytes(2, "little")
    end[12:16] = (len(central) * copies).to_bytes(4, "little")
    (tmp_path / "overlap.zip").write_bytes(one[:local_end] + central * copies + bytes(end))
    # each entry alone is 2 MB from about 2 KB: refused by its own ratio already; and the total, 80 MB from a
    # file of a few KB, is refused even where each entry's ratio is allowed
    with pytest.raises(ExportError, match="times its size"):
        archive.open_zip(tmp_path / "overlap.zip", "overlap.zip")
    members = [zipfile.ZipInfo(f"{n}.json") for n in range(copies)]
    for info in members:
        info.file_size, info.compress_size = 2 << 20, 100 << 10  # 20 times: allowed one by one
    with pytest.raises(ExportError, match=r"80.0 MB from 100.0 KB, more than 100 times its size"):
        archive.check(members, 100 << 10, "overlap.zip")


@pytest.mark.parametrize("data", [b"PK\x03\x04 cut short", b"PK\x03\x04" + bytes(200)], ids=["cut", "zeros"])
def test_a_damaged_zip_is_a_clear_error(tmp_path: Path, data: bytes) -> None:
    (tmp_path / "broken.zip").write_bytes(data)
    with pytest.raises(ExportError, match=r"broken.zip: not a readable zip archive"):
        archive.open_zip(tmp_path / "broken.zip", "broken.zip")
