"""The "did you mean" of a name no page has: the one matcher (`Names`) of lint's broken links and of the MCP
server's `read_page`, and broken-wikilink's names kept under `.wikic/cache/` from one run to the next.

The name offered for a link that resolves nowhere depends on the link's target and on the vault's page
names, nothing else (`rules/broken_wikilink.py`). So while the page names are the same, the names found in
an earlier run still hold: a lint after one page was edited (the pre-commit case) does not compare each
broken link's target with the vault's names again. The cache belongs to one version of wikic and one set of
page names; any other is not used (and is written anew).
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path

from wikic import __version__
from wikic.vault.resolve import fold_name
from wikic.vault.state import CLOSE_NAMES, read_cache_json, write_cache


def _letters(text: str) -> int:
    """The set of a text's characters as bits (characters may share a bit: the set only ever bounds)."""
    bits = 0
    for ch in text:
        bits |= 1 << (ord(ch) & 63)
    return bits


class Names:
    """Names to offer for a name none of them is, by first letter and length."""

    def __init__(self, names: Iterable[str]) -> None:
        self._by_first: dict[str, list[str]] = {}
        for name in names:
            self._by_first.setdefault(fold_name(name[:1]), []).append(name)
        # (first letter, length) -> the names and their letters; made for a first letter when first asked for
        # (a lint of a few pages asks about a few targets)
        self._buckets: dict[tuple[str, int], list[tuple[str, int]]] = {}
        # (first letter, length) -> a bucket's names by their first three letters (folded), in its order; made for
        # a bucket when a target near it has too many names to compare with (below)
        self._heads: dict[tuple[str, int], dict[str, list[tuple[str, int]]]] = {}

    def _bucket(self, key: str, size: int) -> list[tuple[str, int]] | tuple[()]:
        names = self._by_first.pop(key, None)
        if names is not None:
            for name in names:
                self._buckets.setdefault((key, len(name)), []).append((name, _letters(name)))
        return self._buckets.get((key, size), ())

    def _by_head(self, key: str, size: int, head: str) -> list[tuple[str, int]] | tuple[()]:
        heads = self._heads.get((key, size))
        if heads is None:
            heads = self._heads[(key, size)] = {}
            for item in self._bucket(key, size):
                heads.setdefault(fold_name(item[0][:3]), []).append(item)
        return heads.get(head, ())

    def closest(self, target: str) -> str | None:
        """The name within a typo of `target`: difflib's best match at 0.8. difflib over every name costs ~0.1 s
        per name asked about on a 10,000-page vault, so only names of similar length with the same first letter
        are compared, and names that cannot reach 0.8 are dropped before difflib sees them (below)."""
        key = fold_name(target[:1])
        sizes = range(len(target) - 2, len(target) + 3)
        pool: list[tuple[str, int]]
        if sum(len(self._bucket(key, n)) for n in sizes) > 200:
            # many similar names (generated ones): a typo keeps its first three letters
            head = fold_name(target[:3])
            pool = [s for n in sizes for s in self._by_head(key, n, head)][:200]
        else:
            pool = [s for n in sizes for s in self._bucket(key, n)]
        if not pool or len(target) >= 120:
            return None
        # difflib keeps a name only when 2*shared/(len(a)+len(b)) >= 0.8, `shared` counting the characters the two
        # have in common. Each character of one name missing from the other takes at least one from `shared`:
        # a name with too many such characters is dropped here, exactly as difflib would drop it, but cheaply.
        wanted, size = _letters(target), len(target)
        candidates = [
            name
            for name, letters in pool
            if 2 * min(len(name) - (letters & ~wanted).bit_count(), size - (wanted & ~letters).bit_count())
            >= 0.8 * (len(name) + size)
        ]
        close = difflib.get_close_matches(target, candidates, n=1, cutoff=0.8) if candidates else []
        return close[0] if close else None


def names_key(stems: Iterable[str]) -> str:
    """What the cached names hold for: this version of wikic and these page names."""
    digest = hashlib.sha256(__version__.encode())
    for stem in sorted(stems):
        digest.update(b"\0" + stem.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def load(root: Path, key: str, before: tuple[str, Collection[str]] | None = None) -> dict[str, str | None]:
    """target -> the name offered for it (None: none), as an earlier run with the same page names found.
    `before`: (the key of the page names before some were added or removed, those names): what an earlier run
    with those names found, for the targets none of them could be offered for (`near`)."""
    data = read_cache_json(root, CLOSE_NAMES)
    found = data.get("key") if data is not None else None
    close = data.get("close") if data is not None and (found == key or (before and found == before[0])) else None
    if not isinstance(close, dict):
        return {}
    changed = () if found == key or before is None else before[1]
    return {t: n for t, n in close.items() if isinstance(t, str) and (n is None or isinstance(n, str))
            and not any(near(name, t) for name in changed)}


def near(name: str, target: str) -> bool:
    """Whether `Names.closest(target)` compares `name` with it: the same first letter (folded), and a length
    within two of the target's. A name added or removed changes nothing for a target it is not near."""
    return abs(len(name) - len(target)) <= 2 and fold_name(name[:1]) == fold_name(target[:1])


def save(root: Path, key: str, close: Mapping[str, str | None]) -> None:
    write_cache(root, CLOSE_NAMES, json.dumps({"key": key, "close": dict(close)}, ensure_ascii=False))
