"""Where an export's files are read from: a folder (a Slack export unpacked) or a zip (any account export
as downloaded), through one small interface, so a format never cares which. A file that cannot be read (a
zip cut short, a damaged member, a file without permission) is an ExportError naming it."""

from __future__ import annotations

import os
import zipfile
import zlib
from pathlib import Path
from typing import IO, Any

from wikic.errors import ExportError
from wikic.text.archive import open_zip
from wikic.vault.load import not_a_regular_file  # a named pipe in an export's folder would block its read
from wikic.vault.tree import walk_tree

# What reading a damaged zip raises: a bad header or CRC, a deflate stream cut short or corrupted.
_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, ValueError)


class Tree:
    """The files of a folder or a zip, by '/'-separated relative name."""

    label: str

    def names(self) -> list[str]:
        raise NotImplementedError

    def read(self, name: str) -> bytes:
        try:
            with self.open(name) as fh:
                return fh.read()
        except OSError as exc:
            raise ExportError(f"{self.label}/{name}: cannot be read ({exc.strerror or exc})") from None

    def open(self, name: str) -> IO[bytes]:
        raise NotImplementedError

    def size(self, name: str) -> int:
        raise NotImplementedError


class FolderTree(Tree):
    def __init__(self, path: Path) -> None:
        self.path, self.label = path, str(path)
        self._names: list[str] | None = None

    def names(self) -> list[str]:
        if self._names is None:
            found = []
            for folder, dirs, files in walk_tree(self.path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                rel = Path(folder).relative_to(self.path).as_posix()
                found += [name if rel == "." else f"{rel}/{name}" for name in sorted(files)
                          if not name.startswith(".") and not_a_regular_file(os.path.join(folder, name)) is None]
            self._names = found
        return self._names

    def open(self, name: str) -> IO[bytes]:
        return open(self.path / name, "rb")

    def size(self, name: str) -> int:
        return (self.path / name).stat().st_size


class ZipTree(Tree):
    def __init__(self, path: Path) -> None:
        self.path, self.label = path, str(path)
        self._zip = open_zip(path, str(path))  # bounded: ExportError for a zip bomb or a damaged zip

    def names(self) -> list[str]:
        return [i.filename for i in self._zip.infolist() if not i.is_dir() and not i.filename.startswith("__MACOSX/")]

    def open(self, name: str) -> IO[bytes]:
        try:
            member = self._zip.open(name)  # streams: a member is never read whole unless asked
        except (*_ZIP_ERRORS, KeyError) as exc:
            raise ExportError(f"{self.label}:{name}: cannot be read from the zip ({exc})",
                              hint="download the export again") from None
        return _Member(member, f"{self.label}:{name}")  # type: ignore[return-value]

    def size(self, name: str) -> int:
        return self._zip.getinfo(name).file_size

    def close(self) -> None:
        self._zip.close()


class _Member:
    """A zip member's stream whose read errors (a damaged deflate stream, a bad CRC) are ExportErrors."""

    def __init__(self, stream: IO[bytes], label: str) -> None:
        self._stream, self._label = stream, label

    def read(self, size: int = -1) -> bytes:
        try:
            return self._stream.read(size)
        except _ZIP_ERRORS as exc:
            raise ExportError(f"{self._label}: damaged inside the zip ({exc})",
                              hint="download the export again; what was read before this point was brought in"
                              ) from None

    def seek(self, offset: int, whence: int = 0) -> int:
        try:
            return self._stream.seek(offset, whence)
        except _ZIP_ERRORS as exc:
            raise ExportError(f"{self._label}: damaged inside the zip ({exc})") from None

    def close(self) -> None:
        self._stream.close()

    def __enter__(self) -> _Member:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()


def open_tree(path: Path) -> Tree:
    return FolderTree(path) if path.is_dir() else ZipTree(path)


def is_zip(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == b"PK\x03\x04"
    except OSError:
        return False
