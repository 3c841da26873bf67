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
from typing import Any, NamedTuple

NOTE_EXT = ".md"


def fold_name(text: str) -> str:
    """The key two names must share to be "the same" to Obsidian: case-folded, NFC."""
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    return text.lower()


_HEADING_JUNK = re.compile(r"[\W_]+", re.UNICODE)


def heading_key(text: str) -> str:
    """Headings match when their words match, ignoring case and punctuation (Obsidian's stripHeading is
    undocumented; matching on words is tolerant where it is unsure, so it never reports a false break)."""
    return _HEADING_JUNK.sub(" ", fold_name(text)).strip()


class Resolution(NamedTuple):
    path: str | None  # the vault-relative path it reaches, or None
    candidates: tuple[str, ...]  # all equally valid matches when ambiguous (len > 1), else ()


class Resolver:
    """Built once per vault from the list of every file in it (notes and attachments)."""

    def __init__(self, files: Iterable[str]) -> None:
        self.files = sorted(files)
        self._exact: dict[str, str] = {}
        exact = self._exact
        for path in self.files:
            key = fold_name(path)
            if key not in exact:
                exact[key] = path
            if key.endswith(NOTE_EXT) and key[:-3] not in exact:
                exact[key[:-3]] = path
        self._suffix = _Suffixes(self.files)
        self._cache: dict[tuple[str, str], Resolution] = {}
        # target -> where it lands from any folder: a bare name that at most one file's path ends with (most
        # links), whose resolution is then the same from every folder, looked up without the folder
        self._anywhere: dict[str, Resolution] = {}
        self._from_root_cache: dict[str, Resolution] = {}
        self._folded_folders: dict[str, str] = {}

    def exists(self, path: str) -> bool:
        return fold_name(path) in self._exact

    def resolve(self, source: str, target: str) -> Resolution:
        """Where a link written in `source` (vault-relative) pointing at `target` (path part) lands."""
        return self.resolve_all(source, (target,))[0]

    def resolve_all(self, source: str, targets: Iterable[str]) -> list[Resolution]:
        """`resolve` for every link of one note: the folder is worked out once, and a name seen before from
        the same folder is a dictionary lookup (a vault's links name the same pages again and again)."""
        folder = posixpath.dirname(source)
        cache, anywhere = self._cache, self._anywhere
        out = []
        for target in targets:
            if target == "":
                out.append(Resolution(source, ()))  # [[#Heading]]: the note itself (not cacheable by folder)
                continue
            hit = anywhere.get(target)
            if hit is None:
                key = (folder, target)
                hit = cache.get(key)
                if hit is None:
                    hit = cache[key] = self._resolve(folder, target)
                    if self._same_from_anywhere(target):
                        anywhere[target] = hit
            out.append(hit)
        return out

    def _same_from_anywhere(self, target: str) -> bool:
        """Whether `target` lands in the same place from every folder: a bare name (no folder, not relative)
        that at most one file's path ends with. The file in the linking folder, the file at the vault root and
        any file found by its name are then that one file (or there is none)."""
        t = fold_name(target.replace("\\", "/"))
        if "/" in t or t.startswith("."):
            return False
        return len(set(self._suffix.get(t, ()))) <= 1

    def _resolve(self, folder: str, target: str) -> Resolution:
        t = fold_name(target.replace("\\", "/"))
        if t.startswith(("./", "../")):
            return self._exact_only(posixpath.normpath(posixpath.join(fold_name(folder), t)))
        if t.startswith("/"):
            return self._exact_only(posixpath.normpath(t.lstrip("/") or "."))
        if folder:
            folded = self._folded_folders.get(folder)
            if folded is None:
                folded = self._folded_folders[folder] = fold_name(folder)
            if "/" not in t and not t.startswith("."):
                hit = self._exact.get(f"{folded}/{t}")  # the common case, without normpath
                if hit:
                    return Resolution(hit, ())
            else:
                rel = self._exact_only(posixpath.normpath(posixpath.join(folded, t)))
                if rel.path:
                    return rel
        found = self._from_root_cache.get(t)
        if found is None:
            found = self._from_root_cache[t] = self._from_root(t)
        if len(found.candidates) > 1 and folder:
            return self._nearest(found.candidates, folder)
        return found

    def _from_root(self, t: str) -> Resolution:
        """A name read from the vault root: a path, else any file whose path ends with it. Several matches
        are all returned, ordered without regard to where the link sits (`_nearest` adds that)."""
        if "." in t or "//" in t or t.endswith("/"):
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
        return self._nearest(tuple(unique), "")

    @staticmethod
    def _nearest(unique: tuple[str, ...], folder: str) -> Resolution:
        here = fold_name(folder)
        best = min(unique, key=lambda p: (fold_name(posixpath.dirname(p)) != here, p.count("/"), len(p), p))
        return Resolution(best, unique)

    def _exact_only(self, path: str) -> Resolution:
        if path.startswith("../") or path in ("..", "."):
            return Resolution(None, ())  # outside the vault, or the vault folder itself
        return Resolution(self._exact.get(path), ())

    def by_stem(self, name: str) -> list[str]:
        """Files whose name (without `.md`) is `name`, case-insensitively: for suggestions."""
        return sorted(set(self._suffix.get(fold_name(name), [])))



class _Suffixes:
    """Suffix -> the files whose folded path ends with it at a folder boundary ("a/b/c.md": "a/b/c.md",
    "b/c.md", "c.md", and each without ".md" for a note), in path order: worked out for a suffix when it is
    first asked for, from the files of its last part's name (a vault's links ask for a small share of them)."""

    def __init__(self, files: list[str]) -> None:
        self._by_name: dict[str, list[tuple[str, str]]] = {}  # a file's folded name (a note's also without .md)
        by_name = self._by_name
        for path in files:
            key = fold_name(path)
            name = key.rpartition("/")[2]
            entry = (path, key)
            found = by_name.get(name)
            if found is None:
                by_name[name] = [entry]
            else:
                found.append(entry)
            if name.endswith(NOTE_EXT):
                found = by_name.get(name[:-3])
                if found is None:
                    by_name[name[:-3]] = [entry]
                else:
                    found.append(entry)
        self._made: dict[str, list[str]] = {}

    def get(self, suffix: str, default: Any = None) -> Any:
        made = self._made.get(suffix)
        if made is None:
            made = self._made[suffix] = self._find(suffix)
        return made if made else default

    def _find(self, suffix: str) -> list[str]:
        tail = "/" + suffix
        out = []
        for path, key in self._by_name.get(suffix.rpartition("/")[2], ()):
            bare = key[:-3] if key.endswith(NOTE_EXT) else None
            if key == suffix or key.endswith(tail) or (bare is not None and (bare == suffix or bare.endswith(tail))):
                out.append(path)
        return out
