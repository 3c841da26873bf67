"""One slug function for file names and the links that point at them (so the two never disagree).

Pages and raw sources are named by the same function with different rules (`PAGE`, `SOURCE`): a page name
must stay what links and the compiler's name matching already expect, and a raw file's name is fixed once
captured, so each keeps the rules it was first named by.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# The device names Windows reserves whatever the extension (`con.md` cannot be made): COM0 and LPT0 among
# them, and COM¹, COM², COM³ (and LPT's), which NFKC has made com1, com2, com3 by the time a name is checked.
WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}
)
MAX_SLUG = 80
_HYPHENS = re.compile(r"-{2,}")
_NOT_ASCII_ALNUM = re.compile(r"[^a-z0-9]+")
_APOSTROPHES = str.maketrans("", "", "'\u2019")


@dataclass(frozen=True)
class SlugRules:
    casefold: bool  # str.casefold ("Straße" -> "strasse") rather than str.lower ("straße")
    keep_marks: bool  # combining marks (Mn, Mc: Indic vowel signs) are letters, not separators
    drop_apostrophes: bool  # "Altman's" -> "altmans" rather than "altman-s"
    fallback: str  # the name when nothing usable is left ("": the caller decides)
    reserved_suffix: str  # appended to a name Windows reserves ("con" -> "con-page")


PAGE = SlugRules(casefold=False, keep_marks=False, drop_apostrophes=True, fallback="", reserved_suffix="page")
SOURCE = SlugRules(casefold=True, keep_marks=True, drop_apostrophes=False, fallback="source", reserved_suffix="source")


def slugify(text: str, max_length: int = MAX_SLUG, rules: SlugRules = PAGE) -> str:
    """'Sam Altman' -> 'sam-altman'; 'Ünïcode Ça' -> 'ünïcode-ça'; '数据库 选择' -> '数据库-选择'.

    Letters and digits of every script are kept, lower-cased; everything else becomes a single hyphen, at
    most `max_length` characters (cut at a hyphen when one is in the second half), in NFC ('İstanbul' ->
    'istanbul'). A name Windows reserves ('con', 'COM0') gets a suffix. Page names by default;
    `rules=SOURCE` for raw files.
    """
    if text.isascii():  # most names: no normalization changes them, and a letter or digit is [a-z0-9]
        if rules.drop_apostrophes:
            text = text.replace("'", "")
        slug = _NOT_ASCII_ALNUM.sub("-", text.lower()).strip("-")
    else:
        text = unicodedata.normalize("NFKC", text)
        if rules.drop_apostrophes:
            text = text.translate(_APOSTROPHES)
        text = text.casefold() if rules.casefold else text.lower()
        if not rules.keep_marks:
            # "İ" (Turkish dotted capital I) lower-cases to "i" + a combining dot above, which says nothing on
            # an "i" and would cut "İstanbul" into "i-stanbul" (raw names keep the mark: capture always has)
            text = text.replace("i\u0307", "i")
        kept = "".join(c if _kept(c, rules.keep_marks) else "-" for c in text)
        slug = _HYPHENS.sub("-", kept).strip("-")
    if len(slug) > max_length:
        cut = slug[:max_length]
        slug = cut.rsplit("-", 1)[0] if "-" in cut[max_length // 2 :] else cut
        slug = slug.strip("-")
    if not slug:
        slug = rules.fallback
    elif slug in WINDOWS_RESERVED:
        slug = f"{slug}-{rules.reserved_suffix}"
    # NFC: one spelling of each name whatever the title's (casefolding "ǰ" decomposes it)
    return unicodedata.normalize("NFC", slug)


def _kept(char: str, keep_marks: bool) -> bool:
    return char.isalnum() or (keep_marks and unicodedata.category(char) in ("Mn", "Mc"))
