"""Names that look alike: "Orion Labs" spelled with a Cyrillic O (U+041E) beside the Latin "Orion Labs".

`skeleton` is what a name looks like, roughly as Unicode's confusable detection (UTS #39) has it, kept small:
NFKC (full-width and other compatibility forms, ligatures, superscripts), the common Cyrillic and Greek
letters that are drawn as a Latin one read as that letter, invisible characters (zero-width space and
joiners, soft hyphen, word joiner, byte order mark) dropped, then lower-cased (not case-folded: "Straße"
and "Strasse" do not look alike). Two names with one skeleton and different letters are told apart by no
one reading them.
"""

from __future__ import annotations

import unicodedata

# Each letter drawn like a Latin one, by case (a Cyrillic capital Ve looks like "B", its lower case like
# nothing Latin), as the fonts people read wikis in draw them.
_LOOKALIKE_PAIRS = (
    # Cyrillic
    "АA ВB ЕE ЅS ІI ЈJ КK МM НH ОO РP СC ТT УY ХX ҮY ҺH ӀI ԚQ ԜW"  # noqa: RUF001
    " аa еe ѕs іi јj оo рp сc уy хx үy һh ӏl ԁd ԛq ԝw ѵv"  # noqa: RUF001
    # Greek
    " ΑA ΒB ΕE ΖZ ΗH ΙI ΚK ΜM ΝN ΟO ΡP ΤT ΥY ΧX ϹC ͿJ"  # noqa: RUF001
    " αa ιi κk νv οo ρp υu χx ϲc ϳj"  # noqa: RUF001
).split()
_INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c\u200d\u200e\u200f"
    "\u2060\u2061\u2062\u2063\u2064\ufeff"
)
_TABLE: dict[int, str | None] = {ord(pair[0]): pair[-1] for pair in _LOOKALIKE_PAIRS}
_TABLE.update(dict.fromkeys(map(ord, _INVISIBLE)))


def skeleton(text: str) -> str:
    """What `text` looks like: two texts with the same skeleton read the same ("Orion" with a Latin, a Cyrillic
    or a full-width O)."""
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFKC", text).translate(_TABLE).lower()


def lookalikes(text: str) -> list[str]:
    """The characters of `text` that read as others (a Cyrillic or full-width O, a zero-width space),
    each once, in order, by code point and name: `U+041E CYRILLIC CAPITAL LETTER O`."""
    found: dict[str, None] = {}
    for char in text:
        if not char.isascii() and (ord(char) in _TABLE or unicodedata.normalize("NFKC", char) != char):
            found.setdefault(f"U+{ord(char):04X} {unicodedata.name(char, 'unnamed')}")
    return list(found)
