"""Obsidian's link resolution (docs/vault-format.md), deterministic where Obsidian is silent.

- case-insensitive; `.md` optional for notes, required for every other file;
- `./x` and `../x` relative to the linking file; `/x` from the vault root;
- otherwise: relative to the linking file's folder, then from the vault root, then any file whose path
  ends with the link text (a bare name anywhere in the vault);
- several candidates: same folder as the source, then fewest path segments, then shortest path, then
  alphabetical; the link is still reported as ambiguous;
- aliases and titles never resolve a link.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Iterable
from typing import NamedTuple

NOTE_EXT = ".md"


def fold(text: str) -> str:
    """The key two names must share to be "the same" to Obsidian: case-folded, NFC."""
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    return text.lower()


_HEADING_JUNK = re.compile(r"[\W_]+", re.UNICODE)


def heading_key(text: str) -> str:
    """Headings match when their words match, ignoring case and punctuation (Obsidian's stripHeading is
    undocumented; matching on words is tolerant where it is unsure, so it never reports a false break)."""
    return _HEADING_JUNK.sub(" ", fold(text)).strip()


class Resolution(NamedTuple):
    path: str | None  # the vault-relative path it reaches, or None
    candidates: tuple[str, ...]  # all equally valid matches when ambiguous (len > 1), else ()


class Resolver:
    """Built once per vault from the list of every file in it (notes and attachments)."""

    def __init__(self, files: Iterable[str]) -> None:
        self.files = sorted(files)
        self._exact: dict[str, str] = {}
        self._suffix: dict[str, list[str]] = {}
        for path in self.files:
            key = fold(path)
            self._exact.setdefault(key, path)
            is_note = key.endswith(NOTE_EXT)
            if is_note:
                self._exact.setdefault(key[: -len(NOTE_EXT)], path)
            parts = key.split("/")
            for i in range(len(parts)):
                suffix = "/".join(parts[i:])
                self._suffix.setdefault(suffix, []).append(path)
                if is_note:
                    self._suffix.setdefault(suffix[: -len(NOTE_EXT)], []).append(path)
        self._cache: dict[tuple[str, str], Resolution] = {}

    def exists(self, path: str) -> bool:
        return fold(path) in self._exact

    def resolve(self, source: str, target: str) -> Resolution:
        """Where a link written in `source` (vault-relative) pointing at `target` (path part) lands."""
        if target == "":
            return Resolution(source, ())  # [[#Heading]]: the note itself (not cacheable by folder)
        folder = posixpath.dirname(source)
        key = (folder, target)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = self._resolve(source, folder, target)
        return hit

    def _resolve(self, source: str, folder: str, target: str) -> Resolution:
        if target == "":
            return Resolution(source, ())
        t = fold(target.replace("\\", "/"))
        if t.startswith(("./", "../")):
            return self._exact_only(posixpath.normpath(posixpath.join(fold(folder), t)))
        if t.startswith("/"):
            return self._exact_only(posixpath.normpath(t.lstrip("/") or "."))
        if folder:
            if "/" not in t and not t.startswith("."):
                hit = self._exact.get(f"{fold(folder)}/{t}")  # the common case, without normpath
                if hit:
                    return Resolution(hit, ())
            else:
                rel = self._exact_only(posixpath.normpath(posixpath.join(fold(folder), t)))
                if rel.path:
                    return rel
        t = posixpath.normpath(t)  # "notes/../Target" from the vault root is "Target"
        if t == ".." or t.startswith("../"):
            return Resolution(None, ())  # outside the vault
        absolute = self._exact.get(t)
        if absolute:
            return Resolution(absolute, ())
        matches = self._suffix.get(t)
        if not matches:
            return Resolution(None, ())
        if len(matches) == 1:
            return Resolution(matches[0], ())
        unique = sorted(set(matches))
        if len(unique) == 1:
            return Resolution(unique[0], ())
        here = fold(folder)
        best = min(unique, key=lambda p: (fold(posixpath.dirname(p)) != here, p.count("/"), len(p), p))
        return Resolution(best, tuple(unique))

    def _exact_only(self, path: str) -> Resolution:
        if path.startswith("../") or path in ("..", "."):
            return Resolution(None, ())  # outside the vault, or the vault folder itself
        return Resolution(self._exact.get(path), ())

    def by_stem(self, name: str) -> list[str]:
        """Files whose name (without `.md`) is `name`, case-insensitively: for suggestions."""
        return sorted(set(self._suffix.get(fold(name), [])))
