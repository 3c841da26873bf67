"""broken-wikilink's "did you mean" names, kept under `.wikic/cache/` from one run to the next.

The name offered for a link that resolves nowhere depends on the link's target and on the vault's page
names, nothing else (`rules/broken_wikilink.py`). So while the page names are the same, the names found in
an earlier run still hold: a lint after one page was edited (the pre-commit case) does not compare each
broken link's target with the vault's names again. The cache belongs to one version of wikic and one set of
page names; any other is not used (and is written anew).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from wikic import __version__
from wikic.vault.state import CLOSE_NAMES, read_cache_json, write_cache


def names_key(stems: Iterable[str]) -> str:
    """What the cached names hold for: this version of wikic and these page names."""
    digest = hashlib.sha256(__version__.encode())
    for stem in sorted(stems):
        digest.update(b"\0" + stem.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def load(root: Path, key: str) -> dict[str, str | None]:
    """target -> the name offered for it (None: none), as an earlier run with the same page names found."""
    data = read_cache_json(root, CLOSE_NAMES)
    close = data.get("close") if data is not None and data.get("key") == key else None
    if not isinstance(close, dict):
        return {}
    return {t: n for t, n in close.items() if isinstance(t, str) and (n is None or isinstance(n, str))}


def save(root: Path, key: str, close: Mapping[str, str | None]) -> None:
    write_cache(root, CLOSE_NAMES, json.dumps({"key": key, "close": dict(close)}, ensure_ascii=False))
