"""Which text encoding a source is in, when it is not UTF-8, and whether the guess is safe to act on.

A wrong guess garbles a source for good (every quote anchored in it would be nonsense), so a guess is
only acted on when one reading is clearly right; otherwise the caller refuses with the candidates and
the command that converts the file. Detection rules, cheapest first:
- a byte-order mark names UTF-8, UTF-16 or UTF-32 outright;
- UTF-8 that decodes strictly is UTF-8;
- UTF-16 without a mark shows as NUL bytes in every other position of ASCII-heavy text;
- single-byte Western text (Latin-1 / Windows-1252) has its high bytes mostly alone between ASCII
  letters, while the East Asian double-byte encodings (GB18030/GBK, Big5, Shift-JIS, EUC-KR) have
  them in pairs;
- among the double-byte encodings, each strict decoding is scored by how much of it is the common
  characters text in that encoding is made of (GB2312's level-1 and 2 hanzi, Big5's frequent hanzi,
  Japanese kana, Korean hangul): random bytes decoded the wrong way land on rare characters.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from wikic.text.scripts import CJK_PUNCTUATION, FULLWIDTH, HANGUL, KANA, within

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
DOUBLE_BYTE = ("gb18030", "big5", "shift_jis", "euc-kr")
_NAMES = {
    "gb18030": "GB18030 (GBK, simplified Chinese)",
    "big5": "Big5 (traditional Chinese)",
    "shift_jis": "Shift-JIS (Japanese)",
    "euc-kr": "EUC-KR (Korean)",
    "cp1252": "Windows-1252 (Western)",
    "latin-1": "Latin-1 (Western)",
}
SAFE_SCORE = 0.85  # share of common characters a reading needs to be taken
MARGIN = 0.15  # how far ahead of the next reading it must be
MIN_CHARACTERS = 8  # fewer East Asian characters than this are too little evidence (one Cyrillic word reads as hanzi)


@dataclass(frozen=True)
class Detected:
    encoding: str | None  # what to decode with; None: not safe to decide
    text: str  # the decoded text ("" when encoding is None)
    candidates: tuple[str, ...] = ()  # plausible encodings when undecided, most likely first
    bom: bool = False

    def describe(self) -> str:
        return ", ".join(_NAMES.get(c, c) for c in self.candidates)


def detect(data: bytes) -> Detected:
    for bom, name in _BOMS:
        if data.startswith(bom):
            try:
                return Detected(name, data[len(bom) :].decode(name), bom=True)
            except UnicodeDecodeError:
                return Detected(None, "", (name,), bom=True)
    wide = _utf16_without_bom(data)  # before UTF-8: NUL bytes are valid UTF-8, but not text
    if wide is not None:
        try:
            return Detected(wide, data.decode(wide))
        except UnicodeDecodeError:
            return Detected(None, "", (wide,))
    if b"\x00" in data[:8192]:
        return Detected(None, "")  # binary
    try:
        return Detected("utf-8", data.decode("utf-8"))
    except UnicodeDecodeError:
        pass
    if _paired_share(data) < 0.5:
        for name in ("cp1252", "latin-1"):  # latin-1 decodes any byte; cp1252 leaves five undefined
            try:
                return Detected(name, data.decode(name))
            except UnicodeDecodeError:
                continue
    scored = sorted(((_score(name, data), name) for name in DOUBLE_BYTE), reverse=True)
    readings = [(score, name) for score, name in scored if score > 0]
    if not readings:
        return Detected(None, "")
    best_score, best = readings[0]
    runner_up = readings[1][0] if len(readings) > 1 else 0.0
    enough = _wide_count(data.decode(best)) >= MIN_CHARACTERS
    if enough and best_score >= SAFE_SCORE and best_score - runner_up >= MARGIN:
        return Detected(best, data.decode(best))
    return Detected(None, "", tuple(name for _, name in readings[:3]))


def _wide_count(text: str) -> int:
    return sum(1 for char in text if ord(char) >= 0x80)


def _utf16_without_bom(data: bytes) -> str | None:
    sample = data[:4096]
    if len(sample) < 8:
        return None
    even, odd = sample[0::2], sample[1::2]
    zero_even, zero_odd = even.count(0) / len(even), odd.count(0) / len(odd)
    if zero_odd > 0.3 and zero_even < 0.05:
        return "utf-16-le"
    if zero_even > 0.3 and zero_odd < 0.05:
        return "utf-16-be"
    return None


def _paired_share(data: bytes) -> float:
    """Share of bytes >= 0x80 that stand next to another such byte."""
    high = paired = 0
    for i, byte in enumerate(data[:65536]):
        if byte < 0x80:
            continue
        high += 1
        if (i > 0 and data[i - 1] >= 0x80) or (i + 1 < len(data) and data[i + 1] >= 0x80):
            paired += 1
    return paired / high if high else 0.0


def _score(name: str, data: bytes) -> float:
    """Share of the East Asian characters of `data` read as `name` that text in `name` is made of, less
    charset-normalizer's measure of how garbled the reading looks (EUC-KR and GB2312 share byte ranges,
    so Korean read as Chinese lands on common hanzi, but in an order no text has)."""
    from charset_normalizer.md import mess_ratio

    try:
        text = data.decode(name)
    except UnicodeDecodeError:
        return 0.0
    total = common = kana = 0
    for char in text:
        if ord(char) < 0x80:
            continue
        total += 1
        kana += within(ord(char), KANA)
        if _common(name, char):
            common += 1
    if not total:
        return 0.0
    share = common / total
    if name == "shift_jis" and kana < 0.1 * total:
        share *= 0.3  # Japanese prose without kana is rare; Chinese read as Shift-JIS is all kanji
    return share - 2 * mess_ratio(text, 1.0)


def _common(name: str, char: str) -> bool:
    code = ord(char)
    if _is_punctuation(code):
        return True
    kana = within(code, KANA)
    hangul = within(code, HANGUL)
    if name == "shift_jis":
        return kana or _lead_in(char, "shift_jis", 0x88, 0x9F)  # JIS level-1 kanji
    if name == "euc-kr":
        return hangul
    if kana or hangul:
        return False
    if name == "gb18030":
        return _lead_in(char, "gb2312", 0xB0, 0xF7)  # GB2312 hanzi, levels 1 and 2
    if name == "big5":
        return _lead_in(char, "big5", 0xA4, 0xC6)  # Big5's frequent hanzi
    return False


def _lead_in(char: str, codec: str, low: int, high: int) -> bool:
    try:
        encoded = char.encode(codec)
    except UnicodeEncodeError:
        return False
    return len(encoded) == 2 and low <= encoded[0] <= high


def _is_punctuation(code: int) -> bool:
    return within(code, CJK_PUNCTUATION) or within(code, FULLWIDTH) or 0x2010 <= code <= 0x206F


def convert_hint(encoding: str, label: str) -> str:
    return f"iconv -f {encoding.upper()} -t UTF-8 {label} > {label}.utf8.md"
