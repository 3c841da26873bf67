"""Opening a zip archive with bounded decompression: the one way wikic opens a zip (conversation exports,
and a zip dropped into raw/).

A zip states what it holds in its central directory: each member's size before and after compression.
`zipfile` never hands out more bytes of a member than its stated size (a member that inflates further
fails its checksum), so checking the stated sizes bounds every read. A zip bomb states them honestly and
is refused here, before anything is inflated: by the number of members (read from the end record, before
`zipfile` builds an entry for each), the size of one member, the total, and how much smaller than that
the compressed data is (real exports shrink by a factor of 5 to 20; a bomb by hundreds or thousands).
"""

from __future__ import annotations

import os
import struct
import zipfile
from typing import BinaryIO

from wikic.errors import ExportError

MAX_MEMBERS = 250_000  # a Slack export holds a file per channel and day: years of a large workspace
MAX_MEMBER_BYTES = 4 << 30  # one member (a ChatGPT `conversations.json` of a long history is a few hundred MB)
MAX_TOTAL_BYTES = 16 << 30  # every member together, as stated
MAX_RATIO = 100  # stated size / compressed size, of a member or of the whole archive
RATIO_FLOOR = 1 << 20  # below this stated size a high ratio costs nothing (a small file of zeros)

_END = b"PK\x05\x06"  # end of central directory record (22 bytes + comment of up to 65,535)
_END64_LOCATOR = b"PK\x06\x07"  # 20 bytes, just before the end record of a ZIP64 archive
_END64 = b"PK\x06\x06"


def open_zip(source: str | os.PathLike[str] | BinaryIO, label: str) -> zipfile.ZipFile:
    """`source` (a path or a seekable binary file) opened as a zip whose stated sizes are within the bounds
    above. ExportError naming `label` for one that is not, and for one that is not a readable zip at all."""
    try:
        if isinstance(source, (str, os.PathLike)):
            with open(source, "rb") as handle:
                members, size = _member_count(handle), _size(handle)
        else:
            members, size = _member_count(source), _size(source)
            source.seek(0)
        if members is not None and members > MAX_MEMBERS:
            raise _refused(label, f"it holds {members:,} files (more than {MAX_MEMBERS:,})")
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError) as exc:
        raise ExportError(f"{label}: not a readable zip archive ({exc})",
                          hint="download or copy it again; nothing was read from it") from None
    try:
        check(archive.infolist(), size, label)
        for info in archive.infolist():
            if not 0 <= info.header_offset < size:
                # a damaged directory: zipfile would seek there (before the file: an OSError, "Invalid argument")
                raise ExportError(f"{label}: not a readable zip archive ({info.filename} is stated to start "
                                  f"outside the file)", hint="download or copy it again; nothing was read from it")
    except ExportError:
        archive.close()
        raise
    return archive


def check(members: list[zipfile.ZipInfo], archive_bytes: int, label: str) -> None:
    """ExportError naming `label` when the stated sizes of `members` (of an archive of `archive_bytes`) are
    beyond the bounds."""
    if len(members) > MAX_MEMBERS:
        raise _refused(label, f"it holds {len(members):,} files (more than {MAX_MEMBERS:,})")
    total = packed = 0
    for info in members:
        if info.file_size > MAX_MEMBER_BYTES:
            raise _refused(label, f"{info.filename} would unpack to {size_text(info.file_size)} "
                                  f"(more than {size_text(MAX_MEMBER_BYTES)})")
        if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise _refused(label, f"{info.filename} would unpack to {size_text(info.file_size)} from "
                                  f"{size_text(info.compress_size)}, {info.file_size // max(info.compress_size, 1):,} "
                                  f"times its size (at most {MAX_RATIO})")
        total += info.file_size
        packed += info.compress_size
    if total > MAX_TOTAL_BYTES:
        raise _refused(label, f"it would unpack to {size_text(total)} (more than {size_text(MAX_TOTAL_BYTES)})")
    # Members may share their compressed data (an "overlapping" bomb): the file's own size is the real bound.
    if total > RATIO_FLOOR and total > MAX_RATIO * max(min(packed, archive_bytes), 1):
        raise _refused(label, f"it would unpack to {size_text(total)} from {size_text(archive_bytes)}, "
                              f"more than {MAX_RATIO} times its size")


def _refused(label: str, why: str) -> ExportError:
    return ExportError(f"{label}: a zip archive wikic does not unpack: {why}",
                       hint="a zip bomb, or not an export as downloaded; unpack what you need yourself and ingest it")


def _member_count(handle: BinaryIO) -> int | None:
    """The number of members the end record states (ZIP64's when there is one), or None when there is no
    end record to read (zipfile then says what is wrong)."""
    size = _size(handle)
    tail_start = max(0, size - (22 + 65_535))
    handle.seek(tail_start)
    tail = handle.read()
    at = tail.rfind(_END)
    if at < 0 or len(tail) - at < 22:
        return None
    count = struct.unpack("<H", tail[at + 10 : at + 12])[0]
    if count != 0xFFFF:
        return int(count)
    locator = at - 20
    if locator < 0 or tail[locator : locator + 4] != _END64_LOCATOR:
        return None
    offset = struct.unpack("<Q", tail[locator + 8 : locator + 16])[0]
    handle.seek(offset)
    record = handle.read(56)
    if len(record) < 56 or record[:4] != _END64:
        return None
    return int(struct.unpack("<Q", record[32:40])[0])


def _size(handle: BinaryIO) -> int:
    return handle.seek(0, os.SEEK_END)


def size_text(n: int) -> str:
    """`n` bytes as a person reads a size: 1.5 MB, 6.3 KB, 12 bytes."""
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"
