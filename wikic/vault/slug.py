"""One slug function for file names and the links that point at them (so the two never disagree)."""

from __future__ import annotations

import re
import unicodedata

# Characters Obsidian or some OS refuses in names (obsidian.md §1.6), plus whitespace and punctuation.
_SEPARATORS = re.compile(r"[\s#^\[\]|\\/:*?\"<>%.,;!()+={}~`@$&']+")
_NOT_WORD = re.compile(r"[^\w-]+", re.UNICODE)
_HYPHENS = re.compile(r"[-_]{2,}|_")
WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}
)
MAX_SLUG = 80


def slugify(text: str, max_length: int = MAX_SLUG) -> str:
    """'Sam Altman' -> 'sam-altman'; 'Ünïcode Ça' -> 'ünïcode-ça'; '数据库 选择' -> '数据库-选择'.

    Letters of every script are kept (lower-cased, NFC); everything else becomes a single hyphen.
    Returns '' when nothing usable is left; the caller decides the fallback name.
    """
    text = unicodedata.normalize("NFKC", text).replace("'", "").replace("\u2019", "")
    text = _SEPARATORS.sub("-", text.lower())
    text = _NOT_WORD.sub("-", text)
    text = _HYPHENS.sub("-", text).strip("-")
    if len(text) > max_length:
        cut = text[:max_length]
        text = cut.rsplit("-", 1)[0] if "-" in cut[max_length // 2 :] else cut
        text = text.strip("-")
    if text in WINDOWS_RESERVED:
        text += "-page"
    return unicodedata.normalize("NFC", text)
