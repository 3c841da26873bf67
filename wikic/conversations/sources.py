"""Where an export's files are read from: a folder (a Slack export unpacked) or a zip (any account export
as downloaded), through one small interface, so a format never cares which."""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO

from wikic.text.archive import open_zip
from wikic.vault.load import not_a_regular_file  # a named pipe in an export's folder would block its read


class Tree:
    """The files of a folder or a zip, by '/'-separated relative name."""

    label: str

    def names(self) -> list[str]:
        raise NotImplementedError

    def read(self, name: str) -> bytes:
        with self.open(name) as fh:
            return fh.read()

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
            for folder, dirs, files in os.walk(self.path):
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
        return self._zip.open(name)  # streams: a member is never read whole unless asked

    def size(self, name: str) -> int:
        return self._zip.getinfo(name).file_size

    def close(self) -> None:
        self._zip.close()


def open_tree(path: Path) -> Tree:
    return FolderTree(path) if path.is_dir() else ZipTree(path)


def is_zip(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == b"PK\x03\x04"
    except OSError:
        return False
