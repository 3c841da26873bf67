"""The page rules' findings on each page, kept under `.wikic/cache/` while the page is unchanged.

A page rule judges a page from the page alone (its text, its note and SCHEMA.md: `rules/_pages.py`), so what
it found on a page whose size and mtime have not changed still holds. A lint after one page was edited (the
pre-commit case) would otherwise read and judge every other subject page again: on a 10,000-page vault most
of its time. The cache belongs to one SCHEMA.md, one set of page rules and one version of wikic; any change
of those, or a damaged file, and it is not used (and is written anew).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path
from typing import Any

from wikic.lint.finding import Finding
from wikic.lint.kept_findings import cache_key
from wikic.lint.rules._pages import subject_page
from wikic.vault.load import PerNote, Vault
from wikic.vault.state import PAGE_JUDGEMENTS, read_cache_json, write_cache


def _load(root: Path, key: str) -> dict[str, Any]:
    data = read_cache_json(root, PAGE_JUDGEMENTS)
    if data is None or data.get("key") != key or not isinstance(data.get("pages"), dict):
        return {}
    return data["pages"]


def _decode(row: Any, size: int, mtime_ns: int) -> dict[str, list[Finding]] | None:
    """A page's findings by rule from its cached row, or None when the row is of another state of the file
    (or not a row)."""
    if not (isinstance(row, list) and len(row) == 3 and row[0] == size and row[1] == mtime_ns
            and isinstance(row[2], dict)):
        return None
    try:
        return {rule: [Finding.from_dict(d) for d in found] for rule, found in row[2].items()}
    except (KeyError, TypeError, ValueError):
        return None


def complete(vault: Vault, rule_ids: Collection[str], judge: PerNote) -> None:
    """Give `vault.per_note` the page rules' findings on every note: a note this load parsed was judged then; one
    from the parse cache gets them from the judgement cache while its file is unchanged, and is read and judged
    here (`judge`: `judge_while_parsing`'s) when not. Then write the cache anew when it no longer says exactly
    what `vault.per_note` holds. `rule_ids`: the page rules judging."""
    root = vault.root
    key = cache_key(root, rule_ids)
    cached = _load(root, key)
    judged: dict[str, Any] = vault.per_note
    rows: dict[str, Any] = {}
    for path, note in vault.notes.items():
        info = vault.files.get(path)
        if info is None:
            continue
        if path not in judged:
            if not subject_page(vault.page_type(path)):
                continue
            row = cached.get(path)
            found = _decode(row, info.size, info.mtime_ns) if row is not None else None
            if found is not None:
                judged[path] = found
                rows[path] = row
                continue
            try:
                data = (root / path).read_bytes()
            except OSError:
                continue  # left to the `unsafe-path` rule, as when the page rules read it themselves
            made = judge(path, data, note)
            if made is None:
                continue  # not a subject page
            judged[path] = made
        found = judged[path]
        rows[path] = [info.size, info.mtime_ns, {rule: [f.to_dict() for f in fs] for rule, fs in found.items()}]
    if rows != cached:
        write_cache(root, PAGE_JUDGEMENTS, json.dumps({"key": key, "pages": rows}, separators=(",", ":")))
